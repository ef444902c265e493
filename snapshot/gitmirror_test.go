package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

var objectPatterns = []string{"objects/??/*", "objects/pack/pack-*.pack", "objects/pack/pack-*.idx"}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o444); err != nil {
			t.Fatal(err)
		}
	}
}

func TestKeepObjects(t *testing.T) {
	s := Open(t.TempDir(), Budgets{})
	git := filepath.Join(t.TempDir(), ".git")
	writeFiles(t, git, map[string]string{
		"objects/ab/cdef":          "loose",
		"objects/pack/pack-1.pack": "pack one",
		"objects/pack/pack-1.idx":  "idx one",
		"objects/info/packs":       "derived, not kept",
		"objects/pack/pack-1.rev":  "derived, not kept",
	})
	res, err := s.TrackObjects(git, git, objectPatterns)
	if err != nil || res.Copied != 3 {
		t.Fatalf("first round: %+v, %v; want 3 copied", res, err)
	}
	// A second round with nothing changed reads no directory again.
	if res, err := s.TrackObjects(git, git, objectPatterns); err != nil || res.Copied != 0 || res.Gone != 0 {
		t.Fatalf("second round: %+v, %v; want nothing", res, err)
	}
	// The copy is the store's own: a change in place to the repository's
	// file (as a sandboxed command can make) does not reach it.
	os.Chmod(filepath.Join(git, "objects/ab/cdef"), 0o644)
	if err := os.WriteFile(filepath.Join(git, "objects/ab/cdef"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	time.Sleep(30 * time.Millisecond)
	// git gc: a new pack, the loose object and the old pack gone.
	writeFiles(t, git, map[string]string{"objects/pack/pack-2.pack": "pack two", "objects/pack/pack-2.idx": "idx two"})
	os.Remove(filepath.Join(git, "objects/ab/cdef"))
	os.Remove(filepath.Join(git, "objects/pack/pack-1.pack"))
	os.Remove(filepath.Join(git, "objects/pack/pack-1.idx"))
	res, err = s.TrackObjects(git, git, objectPatterns)
	if err != nil || res.Copied != 2 || res.Gone != 3 {
		t.Fatalf("after gc: %+v, %v; want 2 copied, 3 gone", res, err)
	}
	// Then everything removed.
	if err := os.RemoveAll(git); err != nil {
		t.Fatal(err)
	}
	if res, err := s.TrackObjects(git, git, objectPatterns); err != nil || res.Gone != 2 {
		t.Fatalf("after rm -rf: %+v, %v; want 2 gone", res, err)
	}
	// Restoring to before the gc brings back what the repository had
	// then: pack 2 was not there yet, but extra objects are harmless.
	n, err := s.RestoreObjects(git, start)
	if err != nil || n != 5 {
		t.Fatalf("restored %d, %v; want 5", n, err)
	}
	if data, _ := os.ReadFile(filepath.Join(git, "objects/ab/cdef")); string(data) != "loose" {
		t.Errorf("the loose object came back as %q", data)
	}
	for _, d := range []string{"refs/heads", "objects/info"} {
		if fi, err := os.Stat(filepath.Join(git, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s was not made: git would not take the directory for a repository", d)
		}
	}
	// Objects found gone before a snapshot's start are not its own.
	os.RemoveAll(git)
	s.TrackObjects(git, git, objectPatterns)
	if n, err := s.RestoreObjects(git, time.Now().Add(time.Second)); err != nil || n != 0 {
		t.Errorf("restored %d, %v of objects gone before; want 0", n, err)
	}
}

// An object changed in place is found by the round after the change,
// and by every round after it while it stays changed, though rounds
// look in the mirror only at objects whose file or directory changed
// since the last look: in place with its size kept, replaced by a file
// made before the last look (a rename keeps its own times), and left
// changed.
func TestChangedInPlaceFound(t *testing.T) {
	s := Open(t.TempDir(), Budgets{})
	git := filepath.Join(t.TempDir(), ".git")
	writeFiles(t, git, map[string]string{"objects/ab/cdef": "loose", "objects/cd/0123": "other", "objects/pack/pack-1.pack": "pack"})
	round := func(want ...string) {
		t.Helper()
		res, err := s.TrackObjects(git, git, objectPatterns)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range res.Changed {
			got = append(got, filepath.ToSlash(strings.TrimPrefix(p, git+string(filepath.Separator))))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("changed in place: %q, want %q", got, want)
		}
		time.Sleep(3 * tick) // the next change is not within this round's tick
	}
	time.Sleep(3 * tick)
	round()
	round()
	// In place, the same size.
	p := filepath.Join(git, "objects/ab/cdef")
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte("LOOSE"), 0o644); err != nil {
		t.Fatal(err)
	}
	round("objects/ab/cdef")
	round("objects/ab/cdef") // still changed, nothing touched since
	// Replaced by a file of the same size made before the last look.
	made := filepath.Join(git, "objects/cd/.tmp")
	os.WriteFile(made, []byte("OTHER"), 0o444)
	time.Sleep(3 * tick)
	round("objects/ab/cdef")
	if err := os.Rename(made, filepath.Join(git, "objects/cd/0123")); err != nil {
		t.Fatal(err)
	}
	round("objects/ab/cdef", "objects/cd/0123")
	// Put back: no longer reported.
	os.WriteFile(p, []byte("loose"), 0o444)
	round("objects/cd/0123")
}

// A directory of objects swapped for a symlink is not read: it could
// lead to files the sandbox hides, which a restore would then copy into
// the workspace.
func TestKeepObjectsNoSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	s := Open(t.TempDir(), Budgets{})
	git := filepath.Join(t.TempDir(), ".git")
	secret := t.TempDir()
	writeFiles(t, secret, map[string]string{"id_rsa": "secret"})
	os.MkdirAll(filepath.Join(git, "objects"), 0o755)
	if err := os.Symlink(secret, filepath.Join(git, "objects", "ab")); err != nil {
		t.Fatal(err)
	}
	if res, err := s.TrackObjects(git, git, objectPatterns); err != nil || res.Copied != 0 {
		t.Fatalf("%+v, %v: copied through a symlink", res, err)
	}
	os.Remove(filepath.Join(git, "objects", "ab"))
	if n, _ := s.RestoreObjects(git, time.Time{}); n != 0 {
		t.Errorf("restored %d files", n)
	}
}

// The same when it is the directory holding the fan-out directories
// (objects/ itself) that is swapped for a symlink: a round resolves each
// holding directory once, not each fan-out directory, and must still
// see it.
func TestKeepObjectsNoSymlinkAbove(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	s := Open(t.TempDir(), Budgets{})
	git := filepath.Join(t.TempDir(), ".git")
	writeFiles(t, git, map[string]string{"objects/ab/cdef": "loose", "objects/pack/pack-1.pack": "pack"})
	if res, err := s.TrackObjects(git, git, objectPatterns); err != nil || res.Copied != 2 {
		t.Fatalf("first round: %+v, %v", res, err)
	}
	secret := t.TempDir()
	writeFiles(t, secret, map[string]string{"ab/id_rsa": "secret", "ab/cdef": "loose", "pack/pack-1.pack": "pack", "pack/pack-9.pack": "secret"})
	os.RemoveAll(filepath.Join(git, "objects"))
	if err := os.Symlink(secret, filepath.Join(git, "objects")); err != nil {
		t.Fatal(err)
	}
	res, err := s.TrackObjects(git, git, objectPatterns)
	if err != nil || res.Copied != 0 || res.Gone != 2 {
		t.Fatalf("%+v, %v: want nothing copied through the symlink and both objects gone", res, err)
	}
}

// What does not fit in the mirror's half of the total budget is not
// copied, and said.
func TestKeepObjectsBudget(t *testing.T) {
	s := Open(t.TempDir(), Budgets{Total: 20})
	git := filepath.Join(t.TempDir(), ".git")
	writeFiles(t, git, map[string]string{"objects/pack/pack-1.pack": strings.Repeat("x", 11)})
	res, err := s.TrackObjects(git, git, objectPatterns)
	if err != nil || res.Copied != 0 || len(res.Unkept) != 1 || !strings.Contains(res.Unkept[0], "budget") {
		t.Fatalf("%+v, %v: want the pack unkept for the budget", res, err)
	}
	if u := s.MirrorUnkept(git); len(u) != 1 {
		t.Errorf("MirrorUnkept = %q", u)
	}
	// Tried again next round.
	if res, _ := s.TrackObjects(git, git, objectPatterns); len(res.Unkept) != 1 {
		t.Errorf("second round: %+v", res)
	}
}

func TestGitFiles(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	writeFiles(t, git, map[string]string{
		"HEAD": "ref: refs/heads/main\n", "refs/heads/main": "x", "refs/heads/a/b": "y", "logs/HEAD": "z",
		"hooks/pre-commit": "not data", "description": "not data",
	})
	got := GitFiles(git, []string{"HEAD", "packed-refs", "refs/**", "logs/**"})
	var rel []string
	for _, p := range got {
		r, _ := filepath.Rel(git, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	if strings.Join(rel, " ") != "HEAD logs/HEAD refs/heads/a/b refs/heads/main" {
		t.Errorf("GitFiles = %q", rel)
	}
}

// Past the total budget, snapshots that keep a reference a command
// removed go after the others, and --forget lets one go.
func TestEvictKeepsRefsLast(t *testing.T) {
	dir := t.TempDir()
	s := Open(t.TempDir(), Budgets{Total: 30})
	ws := filepath.Join(dir, "ws")
	write := func(name, data string) string {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	ref := &Manifest{Workspace: ws, Kind: KindBefore, Time: time.Now().Add(-time.Hour)}
	if err := s.Save(ref, []string{write(".git/refs/heads/gone", "0123456789")}); err != nil {
		t.Fatal(err)
	}
	plain := &Manifest{Workspace: ws, Kind: KindBefore, Time: time.Now().Add(-time.Minute)}
	if err := s.Save(plain, []string{write("a.txt", "abcdefghij")}); err != nil {
		t.Fatal(err)
	}
	// Over the budget now: the newer snapshot without references goes
	// first, though the older one is older.
	if err := s.Save(&Manifest{Workspace: ws, Kind: KindBefore}, []string{write("b.txt", "0123456789abcdef")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ref.ID); err != nil {
		t.Errorf("the snapshot keeping a branch was evicted first: %v", err)
	}
	if _, err := s.Get(plain.ID); err == nil {
		t.Error("the plain snapshot was kept past the budget")
	}
	if err := s.Forget(ref.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ref.ID); err == nil {
		t.Error("forgotten, but still listed")
	}
	if err := s.Forget(ref.ID); err == nil {
		t.Error("forgetting an unknown snapshot succeeded")
	}
}

// Empty files cost no bytes but each costs the index: past MaxKept the
// round keeps no new one, says so, and still keeps what it kept before.
func TestTrackBoundsFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 20,100 files")
	}
	s := Open(t.TempDir(), Budgets{})
	ws := t.TempDir()
	mine := filepath.Join(ws, "mine.txt")
	os.WriteFile(mine, []byte("mine"), 0o644)
	if _, err := s.Track(ws, []string{mine}, &Manifest{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(ws, "junk")
	os.Mkdir(junk, 0o755)
	for i := range MaxKept + 100 {
		if err := os.WriteFile(filepath.Join(junk, fmt.Sprintf("%06d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Track(ws, []string{junk, mine}, &Manifest{Workspace: ws, Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	idx := s.Index(ws)
	if len(idx.Entries) > MaxKept+1 { // and the one it held
		t.Errorf("the index holds %d entries", len(idx.Entries))
	}
	if !slices.ContainsFunc(idx.Entries, func(e Entry) bool { return e.Path == mine }) {
		t.Error("the person's file was dropped from the index")
	}
	if !slices.ContainsFunc(res.Skipped, func(s string) bool { return strings.Contains(s, "more files not kept") }) {
		t.Errorf("nothing said of the files not kept: %q", res.Skipped)
	}
}

// Fake submodule git directories cost at most MaxGitDirs mirrors, and a
// mirror of one that is gone and holds nothing is removed.
func TestGitDirsBounded(t *testing.T) {
	s := Open(t.TempDir(), Budgets{})
	git := filepath.Join(t.TempDir(), ".git")
	for i := range 100 {
		writeFiles(t, git, map[string]string{fmt.Sprintf("modules/m%03d/HEAD", i): "ref: refs/heads/main\n"})
		os.MkdirAll(filepath.Join(git, fmt.Sprintf("modules/m%03d/objects", i)), 0o755)
	}
	dirs := GitDirs(git)
	if len(dirs) != MaxGitDirs || dirs[0] != git {
		t.Fatalf("GitDirs: %d dirs, want %d with the repository's first", len(dirs), MaxGitDirs)
	}
	for _, d := range dirs {
		if _, err := s.TrackObjects(d, git, objectPatterns); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetModules(git, dirs[1:]); err != nil {
		t.Fatal(err)
	}
	if got := s.Mirrored(git); len(got) != MaxGitDirs {
		t.Fatalf("Mirrored: %d", len(got))
	}
	os.RemoveAll(filepath.Join(git, "modules"))
	if err := s.SetModules(git, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Mirrored(git); len(got) != 1 {
		t.Errorf("Mirrored after the modules went: %q", got)
	}
	if mirrors, _ := os.ReadDir(filepath.Join(s.Dir, "git")); len(mirrors) != 1 {
		t.Errorf("%d mirrors left, want the repository's", len(mirrors))
	}
}

// The repository's own files are bounded as the work tree's are: a
// command that makes 20,100 refs does not make every round read and
// write them all, before the command (Refresh) or after it (GitFiles).
func TestGitFilesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 20,100 files")
	}
	git := filepath.Join(t.TempDir(), ".git")
	os.MkdirAll(filepath.Join(git, "refs", "junk"), 0o755)
	for i := range MaxKept + 100 {
		if err := os.WriteFile(filepath.Join(git, "refs", "junk", fmt.Sprintf("%06d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := GitFiles(git, []string{"refs/**"})
	if len(files) > MaxKept {
		t.Errorf("GitFiles: %d files", len(files))
	}
	s := Open(t.TempDir(), Budgets{})
	ws := filepath.Dir(git)
	var all []string
	for i := range MaxKept + 100 {
		all = append(all, filepath.Join(git, "refs", "junk", fmt.Sprintf("%06d", i)))
	}
	if err := s.Refresh(ws, all, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Index(ws).Entries); n > MaxKept {
		t.Errorf("Refresh kept %d entries", n)
	}
}

// Fake submodules cannot take the room of the repository's own mirror,
// nor have it removed: a workspace's mirrors share half the budget, the
// repository's first, and none of them is dropped for its round.
func TestMirrorsShareBudget(t *testing.T) {
	s := Open(t.TempDir(), Budgets{Total: 100})
	git := filepath.Join(t.TempDir(), ".git")
	writeFiles(t, git, map[string]string{"objects/pack/pack-1.pack": strings.Repeat("r", 30)})
	for i := range 3 {
		writeFiles(t, git, map[string]string{
			fmt.Sprintf("modules/j%d/HEAD", i):                     "ref: refs/heads/main\n",
			fmt.Sprintf("modules/j%d/objects/pack/pack-1.pack", i): strings.Repeat("j", 40),
		})
	}
	dirs := GitDirs(git)
	s.SetModules(git, dirs[1:])
	for round := range 3 {
		for _, d := range dirs {
			if _, err := s.TrackObjects(d, git, objectPatterns); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(filepath.Join(s.mirrorDir(git), "have", "objects", "pack", "pack-1.pack")); err != nil {
			t.Fatalf("round %d: the repository's own pack is not kept: %v", round, err)
		}
	}
	var total int64
	for _, g := range s.Mirrored(git) {
		st := s.readMirror(s.mirrorDir(g))
		total += st.Have + st.Gone
	}
	if total > 50 {
		t.Errorf("the workspace's mirrors hold %d bytes, over half the budget", total)
	}
}
