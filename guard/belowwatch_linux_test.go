package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// belowPolicy is a workspace with the places .envrc and .vscode/ and a
// nested repository at sub, and the state directory beside it.
func belowPolicy(t *testing.T) (*platform.Policy, string) {
	t.Helper()
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	for _, d := range []string{"a/b", "node_modules/x", "sub/.git", ".git/modules"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	state := filepath.Join(root, "state")
	os.MkdirAll(filepath.Join(state, "guard"), 0o700) // (the ledger's, made by the session's ticket)
	return &platform.Policy{Workspace: ws, RootGuarded: []string{".git/hooks/", ".envrc", ".vscode/"}, Regenerable: []string{"node_modules"},
		Nested: []string{filepath.Join(ws, "sub")}}, state
}

// waitGone waits up to a second for path to be gone.
func waitGone(path string) bool {
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Lstat(path); err != nil {
			return true
		}
	}
	return false
}

func TestWatchBelow(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	old := filepath.Join(ws, "a/.envrc") // the person's, from before
	os.WriteFile(old, []byte("x"), 0o644)
	staged := filepath.Join(ws, "node_modules/x/staged") // (not watched)
	os.MkdirAll(staged, 0o755)
	os.WriteFile(filepath.Join(staged, ".envrc"), []byte("x"), 0o644)
	time.Sleep(50 * time.Millisecond)
	planted := filepath.Join(ws, "a/b/.envrc") // before the watch, after since
	since := time.Now()
	os.WriteFile(planted, []byte("x"), 0o644)
	stop := watchBelow(state, p, since)
	defer stop()
	if !waitGone(planted) {
		t.Error("a place written after since, before the watch, stayed")
	}
	if _, err := os.Lstat(old); err != nil {
		t.Errorf("the person's place from before since was moved: %v", err)
	}
	for _, f := range []string{"a/b/c/d/.vscode/tasks.json", "e/.envrc"} {
		path := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("x"), 0o644)
		if !waitGone(path) {
			t.Errorf("%s written during the watch stayed", f)
		}
	}
	// A directory moved into place with a place in it made before since
	// (its change time is old).
	os.Rename(staged, filepath.Join(ws, "a/staged"))
	if !waitGone(filepath.Join(ws, "a/staged/.envrc")) {
		t.Error("a place in a directory moved into the workspace stayed")
	}
	// A link made to a directory that holds a place (one the watch
	// does not look into).
	os.MkdirAll(filepath.Join(ws, "node_modules/st"), 0o755)
	os.WriteFile(filepath.Join(ws, "node_modules/st/.envrc"), []byte("x"), 0o644)
	os.Symlink("node_modules/st", filepath.Join(ws, "tool"))
	if !waitGone(filepath.Join(ws, "tool")) {
		t.Error("a link to a directory holding a place, made during the watch, stayed")
	}
	os.WriteFile(old, []byte("changed"), 0o644)
	if !waitGone(old) {
		t.Error("the person's place changed during the watch stayed")
	}
	// Left alone: an ordinary file, the ledger's places of a nested
	// repository, a regenerable directory's, and a place at the root.
	kept := []string{"a/b/main.go", "sub/.envrc", "node_modules/x/.envrc", ".envrc"}
	for _, f := range kept {
		os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o644)
	}
	time.Sleep(200 * time.Millisecond)
	stop()
	for _, f := range kept {
		if _, err := os.Lstat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s was moved: %v", f, err)
		}
	}
	// Once stopped, nothing is moved.
	after := filepath.Join(ws, "a/.vscode/x")
	os.MkdirAll(filepath.Dir(after), 0o755)
	os.WriteFile(after, nil, 0o644)
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Lstat(after); err != nil {
		t.Errorf("a place written after the watch stopped was moved: %v", err)
	}
	lines := strings.Join(takeLines(state, ws), "\n")
	for _, f := range []string{"a/b/.envrc", "e/.envrc", "tasks.json", "a/.envrc"} {
		if !strings.Contains(lines, f) {
			t.Errorf("no line says %s was moved:\n%s", f, lines)
		}
	}
	if moved, _ := filepath.Glob(filepath.Join(state, "quarantine", "*", ws, "a", ".envrc")); len(moved) != 1 {
		t.Errorf("the person's changed place is not in the quarantine: %v", moved)
	}
}

// Every watch marks the workspace so that the next round looks from the
// watch's start on (what it cannot see: a write through a hard link from
// a directory it does not watch); with more directories than it holds,
// it says so.
func TestWatchBelowPartial(t *testing.T) {
	defer func(n int) { maxBelowDirs = n }(maxBelowDirs)
	maxBelowDirs = 2
	p, state := belowPolicy(t)
	since := time.Now().Add(-time.Second)
	stop := watchBelow(state, p, since)
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(10 * time.Millisecond) {
		// (Made, then written: an empty one is not yet it.)
		if fi, err := os.Stat(ledgerFile(state, p.Workspace) + ".lines"); err == nil && fi.Size() > 0 {
			break
		}
	}
	stop()
	mark, _ := BelowSince(state, p.Workspace)
	if !mark.Equal(time.Unix(0, since.UnixNano())) {
		t.Fatalf("BelowSince = %v, want %v", mark, since)
	}
	if lines := strings.Join(takeLines(state, p.Workspace), "\n"); !strings.Contains(lines, "could not watch every directory") {
		t.Errorf("nothing says the watch was partial: %q", lines)
	}
	// A later watch keeps the earlier mark; a round done from it
	// removes it.
	watchBelow(state, p, time.Now())()
	DoneBelow(state, p.Workspace, time.Now())
	if _, ok := BelowSince(state, p.Workspace); !ok {
		t.Fatal("a round from a later time removed the mark")
	}
	DoneBelow(state, p.Workspace, mark)
	if _, ok := BelowSince(state, p.Workspace); ok {
		t.Fatal("the round done from the mark left it")
	}
}

// BenchmarkWatchBelow is the cost of starting a session's watch of the
// places below the root (a walk of every directory, a watch on each) in
// a workspace of 1,000 directories of 10 files each, and of stopping it.
func BenchmarkWatchBelow(b *testing.B) {
	root := b.TempDir()
	ws := filepath.Join(root, "ws")
	for i := range 1000 {
		d := filepath.Join(ws, "pkg"+strconv.Itoa(i/50), "dir"+strconv.Itoa(i))
		os.MkdirAll(d, 0o755)
		for j := range 10 {
			os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(j)+".go"), nil, 0o644)
		}
	}
	state := filepath.Join(root, "state")
	os.MkdirAll(filepath.Join(state, "guard"), 0o700)
	p := &platform.Policy{Workspace: ws, RootGuarded: []string{".envrc", ".npmrc", ".vscode/"}}
	b.ResetTimer()
	for range b.N {
		w := &belowWatch{stateDir: state, ws: ws, entries: p.RootGuarded, since: time.Now(), dirs: map[int32]string{}, found: func(string) {}}
		in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
		if err != nil {
			b.Fatal(err)
		}
		w.in = in
		start := time.Now()
		w.add(".", 0, false)
		b.ReportMetric(float64(time.Since(start).Microseconds()), "walk-µs/op")
		if len(w.dirs) != 1021 {
			b.Fatalf("%d directories watched", len(w.dirs))
		}
		unix.Close(in)
	}
}

// FindBelow, the snapshot round's own walk: places and links to
// directories holding one, changed since t, at any depth, below nested
// repositories' roots too; not the nested roots' own places, not inside
// git or regenerable directories, not what did not change.
func TestFindBelow(t *testing.T) {
	p, _ := belowPolicy(t)
	ws := p.Workspace
	write := func(f string) {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755)
		os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o644)
	}
	write("a/.envrc")                // the person's, before t
	write("node_modules/old/.envrc") // behind a link made before t
	os.Symlink("../node_modules/old", filepath.Join(ws, "a/oldlink"))
	os.Symlink("/usr/bin", filepath.Join(ws, "a/bin")) // holds no place
	outside := filepath.Join(filepath.Dir(ws), "evil") // (in shared scratch, say)
	os.WriteFile(outside, nil, 0o644)
	os.MkdirAll(filepath.Join(ws, "a/d"), 0o755)
	os.Symlink(outside, filepath.Join(ws, "a/d/.envrc"))
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	os.WriteFile(outside, []byte("touch pwned"), 0o644)
	for _, f := range []string{"a/b/.envrc", "sub/x/.vscode/tasks.json", "sub/.envrc", "node_modules/x/.envrc", ".envrc", ".git/modules/.envrc", "node_modules/st/.envrc"} {
		write(f)
	}
	os.Symlink("node_modules/st", filepath.Join(ws, "tool"))
	os.Symlink("../node_modules/st", filepath.Join(ws, "a/vs"))
	found, _, complete := FindBelow("", ws, p.RootGuarded, p.Regenerable, p.Nested, since, nil)
	if !complete {
		t.Error("a small workspace was not walked whole")
	}
	want := []string{"a/b/.envrc", "a/d/.envrc", "a/vs", "sub/x/.vscode/tasks.json", "tool"}
	var got []string
	for _, f := range found {
		rel, _ := filepath.Rel(ws, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("FindBelow = %v, want %v", got, want)
	}
	// A place changed since t behind a link made before it.
	write("node_modules/old/.envrc")
	found, _, _ = FindBelow("", ws, p.RootGuarded, p.Regenerable, p.Nested, since, nil)
	if !slices.Contains(found, filepath.Join(ws, "a/oldlink")) {
		t.Errorf("a link to a directory whose place changed since t was not found: %v", found)
	}
	// A person's place hard-linked from a directory the walk does not
	// go into: a write through the other name changes it unseen.
	write("c/.envrc")
	time.Sleep(50 * time.Millisecond)
	later := time.Now()
	os.Link(filepath.Join(ws, "c/.envrc"), filepath.Join(ws, "node_modules/h"))
	os.WriteFile(filepath.Join(ws, "node_modules/h"), []byte("y"), 0o644)
	found, _, _ = FindBelow("", ws, p.RootGuarded, p.Regenerable, p.Nested, later.Add(time.Hour), nil)
	if !slices.Contains(found, filepath.Join(ws, "c/.envrc")) {
		t.Errorf("a place with another name was not found: %v", found)
	}
	defer func(n int) { maxBelowDirs = n }(maxBelowDirs)
	maxBelowDirs = 2
	if _, _, complete := FindBelow("", ws, p.RootGuarded, p.Regenerable, p.Nested, since, nil); complete {
		t.Error("a walk past its bound says it was complete")
	}
}

// A session's watch of changes below the root tells, the moment it is
// asked (no wait for the watch's own reading), whether a command made or
// changed a place, a .git or a bare repository there since the last
// time; a change elsewhere does not count.
func TestWatchChanges(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "a/b"), 0o755)
	os.MkdirAll(filepath.Join(ws, "node_modules/x"), 0o755)
	p := &platform.Policy{Workspace: ws, RootGuarded: []string{".envrc", ".npmrc", ".vscode/"}, Regenerable: []string{"node_modules"}}
	// A directory with an old place moved in by the first command
	// before the watch's first walk got there.
	os.MkdirAll(filepath.Join(ws, "staged"), 0o755)
	os.WriteFile(filepath.Join(ws, "staged/.npmrc"), nil, 0o644)
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	os.Rename(filepath.Join(ws, "staged"), filepath.Join(ws, "a/moved"))
	c := WatchChanges(p, since)
	if c == nil {
		t.Fatal("no watch")
	}
	defer c.Stop()
	if !c.Changed() {
		t.Error("a place moved in with its directory before the watch's first walk, not seen")
	}
	c.Stop()
	c = WatchChanges(p, time.Now().Add(time.Second))
	if c == nil {
		t.Fatal("no watch")
	}
	defer c.Stop()
	write := func(f string) {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if c.Changed() {
		t.Error("changed before anything was")
	}
	write("a/b/main.go")
	write("node_modules/x/.npmrc")
	if c.Changed() {
		t.Error("a source file, or a place in node_modules, counts as a change below the root")
	}
	for _, f := range []string{"a/b/.npmrc", "new/deep/.vscode/tasks.json", "d/.git", "e/HEAD"} {
		write(f)
		if f == "e/HEAD" {
			os.MkdirAll(filepath.Join(ws, "e/objects"), 0o755)
			os.MkdirAll(filepath.Join(ws, "e/refs"), 0o755)
		}
		if !c.Changed() {
			t.Errorf("%s made, not seen", f)
		}
		if c.Changed() {
			t.Errorf("%s seen twice", f)
		}
	}
}

// A session's watch tells whether a repository was made or moved in
// below the root since it was last asked (a session's next ticket looks
// for them only then, [HoldWatched]): a place written, a file in an old
// repository, do not count; a git init, a repository moved in from
// outside, a directory made a bare repository do, each once.
func TestChangesAppeared(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "vendor/old"), 0o755)
	hostGit(t, filepath.Join(ws, "vendor/old"), "", "init", "-q")
	p := &platform.Policy{Workspace: ws, RootGuarded: []string{".envrc", ".git/hooks", ".git/config"}, Regenerable: []string{"node_modules"}}
	time.Sleep(20 * time.Millisecond)
	c := WatchChanges(p, time.Now())
	if c == nil {
		t.Fatal("no watch")
	}
	defer c.Stop()
	if c.Appeared() {
		t.Error("a repository older than the watch's since counts as appeared")
	}
	os.WriteFile(filepath.Join(ws, "vendor/.envrc"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(ws, "vendor/old/.git/description"), []byte("x"), 0o644)
	if c.Appeared() {
		t.Error("a place written, or a file in an old repository, counts as a repository that appeared")
	}
	steps := []struct {
		name string
		make func()
	}{
		{"git init", func() {
			os.MkdirAll(filepath.Join(ws, "vendor/new"), 0o755)
			hostGit(t, filepath.Join(ws, "vendor/new"), "", "init", "-q")
		}},
		{"a repository moved in", func() {
			out := filepath.Join(root, "out")
			os.MkdirAll(out, 0o755)
			hostGit(t, out, "", "init", "-q")
			if err := os.Rename(out, filepath.Join(ws, "vendor/moved")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a bare repository", func() {
			hostGit(t, ws, "", "init", "-q", "--bare", "deep/bare")
		}},
	}
	for _, s := range steps {
		s.make()
		if !c.Appeared() {
			t.Errorf("%s: not seen", s.name)
		}
		if c.Appeared() {
			t.Errorf("%s: seen twice", s.name)
		}
	}
}
