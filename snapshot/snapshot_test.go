package snapshot

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newStore(t *testing.T, b Budgets) (*Store, string) {
	t.Helper()
	return Open(t.TempDir(), b), t.TempDir()
}

func actions(rs []Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Action+" "+filepath.Base(r.Entry.Path))
	}
	return strings.Join(out, ", ")
}

// A deleted directory tree, an overwritten file and a symlink come back
// as they were.
func TestSaveRestore(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	write(t, ws+"/dir/sub/deep.txt", "deep")
	write(t, ws+"/dir/top.txt", "top")
	write(t, ws+"/notes.txt", "v1")
	os.Chmod(ws+"/notes.txt", 0o640)
	os.Symlink("notes.txt", ws+"/link")
	m := &Manifest{Kind: KindBefore, Command: "rm -rf dir; echo v2 > notes.txt", Workspace: ws}
	if err := s.Save(m, []string{ws + "/dir", ws + "/notes.txt", ws + "/link"}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(ws + "/dir")
	write(t, ws+"/notes.txt", "v2")
	os.Remove(ws + "/link")
	m.Ended = time.Now()
	if err := s.Update(m); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	res := s.Restore(got, RestoreOptions{})
	for _, r := range res {
		if r.Action != Restored {
			t.Errorf("%s: %s %s", r.Entry.Path, r.Action, r.Why)
		}
	}
	if read(t, ws+"/dir/sub/deep.txt") != "deep" || read(t, ws+"/dir/top.txt") != "top" || read(t, ws+"/notes.txt") != "v1" {
		t.Fatal("content not restored")
	}
	if fi, _ := os.Stat(ws + "/notes.txt"); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if target, _ := os.Readlink(ws + "/link"); target != "notes.txt" {
		t.Errorf("link -> %q", target)
	}
	// Again: everything is as saved.
	if a := actions(s.Restore(got, RestoreOptions{})); strings.Contains(a, Restored) {
		t.Errorf("second restore: %s", a)
	}
}

// A path changed after the command ended is kept unless forced.
func TestRestoreKeepsLaterChanges(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	write(t, ws+"/f", "saved")
	m := &Manifest{Kind: KindBefore, Workspace: ws}
	if err := s.Save(m, []string{ws + "/f"}); err != nil {
		t.Fatal(err)
	}
	m.Ended = time.Now()
	s.Update(m)
	time.Sleep(20 * time.Millisecond)
	write(t, ws+"/f", "a person's later edit")
	if a := actions(s.Restore(m, RestoreOptions{})); a != "kept f" {
		t.Fatalf("restore: %s", a)
	}
	if read(t, ws+"/f") != "a person's later edit" {
		t.Fatal("a later change was overwritten")
	}
	if a := actions(s.Restore(m, RestoreOptions{Force: true})); a != "restored f" || read(t, ws+"/f") != "saved" {
		t.Fatalf("forced restore: %s", a)
	}
}

// Restoring never writes through a symlink planted where a directory
// was: the file would land outside the workspace.
func TestRestoreRefusesSymlinkedDir(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	outside := t.TempDir()
	write(t, ws+"/d/f", "saved")
	m := &Manifest{Kind: KindBefore, Workspace: ws}
	if err := s.Save(m, []string{ws + "/d/f"}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(ws + "/d")
	os.Symlink(outside, ws+"/d")
	m.Ended = time.Now().Add(time.Hour)
	res := s.Restore(m, RestoreOptions{Force: true})
	if res[0].Action != Failed {
		t.Fatalf("restored through a symlink: %s", actions(res))
	}
	if _, err := os.Lstat(outside + "/f"); err == nil {
		t.Fatal("a file was written outside the workspace")
	}
}

// A directory swapped for a symlink to a secret between planning and
// copying does not get the secret copied into the store.
func TestSaveRefusesSwappedDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("openat2 is Linux's")
	}
	s, ws := newStore(t, Budgets{})
	secret := t.TempDir()
	write(t, secret+"/id_rsa", "PRIVATE KEY")
	write(t, ws+"/d/id_rsa", "harmless")
	entries, total, err := s.Plan([]string{ws + "/d"})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(ws + "/d")
	os.Symlink(secret, ws+"/d")
	err = s.SaveEntries(&Manifest{Workspace: ws}, entries, total)
	if err == nil {
		t.Fatal("saved through a swapped symlink")
	}
	filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "PRIVATE KEY") {
				t.Errorf("the secret is in the store: %s", p)
			}
		}
		return nil
	})
}

func TestBudgets(t *testing.T) {
	s, ws := newStore(t, Budgets{File: 10, Command: 15, Total: 40})
	write(t, ws+"/big", strings.Repeat("x", 11))
	var ob *OverBudgetError
	if err := s.Save(&Manifest{}, []string{ws + "/big"}); !errors.As(err, &ob) || ob.What != "file" {
		t.Fatalf("per file: %v", err)
	}
	write(t, ws+"/a", strings.Repeat("a", 8))
	write(t, ws+"/b", strings.Repeat("b", 8))
	if err := s.Save(&Manifest{}, []string{ws + "/a", ws + "/b"}); !errors.As(err, &ob) || ob.What != "command" {
		t.Fatalf("per command: %v", err)
	}
	if all, _ := s.List(); len(all) != 0 {
		t.Fatalf("an over-budget save left %d snapshots", len(all))
	}
	// Total: five snapshots of 10 distinct bytes each fit 40 bytes four
	// at a time; the oldest goes.
	var ids []string
	for i := range 5 {
		write(t, ws+"/f", fmt.Sprintf("content-%02d", i))
		m := &Manifest{Time: time.Now().Add(time.Duration(i) * time.Second)}
		if err := s.Save(m, []string{ws + "/f"}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	all, _ := s.List()
	if len(all) != 4 || all[len(all)-1].ID != ids[1] {
		t.Fatalf("after eviction: %d snapshots, oldest %s (want 4, %s)", len(all), all[len(all)-1].ID, ids[1])
	}
	objs := 0
	filepath.WalkDir(s.objects(), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			objs++
		}
		return nil
	})
	if objs != 4 {
		t.Errorf("%d objects left, want 4 (the evicted one's removed)", objs)
	}
}

// Many processes saving at once leave every snapshot whole.
func TestConcurrentSaves(t *testing.T) {
	if os.Getenv("SNAPSHOT_CHILD") != "" {
		s := Open(os.Getenv("SNAPSHOT_STATE"), Budgets{})
		ws := os.Getenv("SNAPSHOT_WS")
		for i := range 5 {
			p := filepath.Join(ws, fmt.Sprintf("%s-%d", os.Getenv("SNAPSHOT_CHILD"), i))
			os.WriteFile(p, []byte(p), 0o644)
			if err := s.Save(&Manifest{Command: p}, []string{p}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	state, ws := t.TempDir(), t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for n := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentSaves$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("SNAPSHOT_CHILD=%d", n), "SNAPSHOT_STATE="+state, "SNAPSHOT_WS="+ws)
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := Open(state, Budgets{})
	all, err := s.List()
	if err != nil || len(all) != 40 {
		t.Fatalf("%d snapshots (%v), want 40", len(all), err)
	}
	for _, m := range all {
		os.Remove(m.Command)
	}
	for _, m := range all {
		if r := s.Restore(m, RestoreOptions{}); r[0].Action != Restored || read(t, m.Command) != m.Command {
			t.Fatalf("%s: %s", m.Command, actions(r))
		}
	}
}

// The continuous guard records what a command replaced or deleted of
// what it saved before, not what changed before the command started.
func TestTrack(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	write(t, ws+"/out.json", `{"v":1}`)
	write(t, ws+"/keep.txt", "keep")
	write(t, ws+"/gone.txt", "gone")
	paths := []string{ws + "/out.json", ws + "/keep.txt", ws + "/gone.txt"}
	time.Sleep(2 * tick) // else the files are racy, read again next round
	res, err := s.Track(ws, paths, &Manifest{Command: "first", Time: time.Now()})
	if err != nil || res.Lost != nil || res.Stored != 3 {
		t.Fatalf("first round: %+v %v", res, err)
	}
	// Nothing changed: nothing is read or recorded.
	res, err = s.Track(ws, paths, &Manifest{Command: "noop", Time: time.Now()})
	if err != nil || res.Lost != nil || res.Stored != 0 {
		t.Fatalf("no change: %+v %v", res, err)
	}
	// A person edits keep.txt between commands: not the next command's.
	write(t, ws+"/keep.txt", "edited by a person")
	time.Sleep(3 * tick)
	start := time.Now()
	write(t, ws+"/out.json", `{"v":2}`)
	os.Remove(ws + "/gone.txt")
	res, err = s.Track(ws, paths[:2], &Manifest{Command: "python3 gen.py", Time: start})
	if err != nil || res.Lost == nil {
		t.Fatalf("after the command: %+v %v", res, err)
	}
	if a := actions(s.Restore(res.Lost, RestoreOptions{})); a != "restored gone.txt, restored out.json" {
		t.Fatalf("undo: %s", a)
	}
	if read(t, ws+"/out.json") != `{"v":1}` || read(t, ws+"/gone.txt") != "gone" || read(t, ws+"/keep.txt") != "edited by a person" {
		t.Fatal("undo did not bring back exactly what the command destroyed")
	}
}

// A person's edit made after the command ended is never taken for the
// command's: not right after the guard's round (the kernel stamps file
// times with a clock that lags time.Now()), nor between the command's
// end and the round.
func TestEditAfterCommandIsKept(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	file := ws + "/a.tmp"
	for i := range 20 {
		write(t, file, "a")
		time.Sleep(2 * tick) // not racy: saved once, trusted to its stat
		if _, err := s.Track(ws, []string{file}, &Manifest{Command: "index", Time: time.Now()}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		os.Remove(file) // the command
		m := &Manifest{Command: "rm a.tmp", Workspace: ws, Time: start}
		if i%2 == 1 {
			// The command's end, then a person's edit, then the round.
			end, err := s.FileClock()
			if err != nil {
				t.Fatal(err)
			}
			s.passClock(end)
			write(t, file, "a person")
			m.Ended = end
		}
		res, err := s.Track(ws, nil, m)
		if err != nil || res.Lost == nil {
			t.Fatalf("round %d: %+v %v", i, res, err)
		}
		if i%2 == 0 {
			write(t, file, "a person") // right after the round
		}
		if a := actions(s.Restore(res.Lost, RestoreOptions{})); a != "kept a.tmp" || read(t, file) != "a person" {
			t.Fatalf("round %d: undo overwrote a person's edit made after the command: %s", i, a)
		}
		os.Remove(file)
		if a := actions(s.Restore(res.Lost, RestoreOptions{})); a != "restored a.tmp" {
			t.Fatalf("round %d: undo of the deletion: %s", i, a)
		}
	}
}

// A repository's .git, alone or inside a directory, is not saved: its
// loss stays a person's question.
func TestNoGitHistory(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	write(t, ws+"/sub/.git/HEAD", "ref: refs/heads/main\n")
	write(t, ws+"/sub/x", "x")
	for _, p := range []string{ws + "/sub", ws + "/sub/.git"} {
		if err := s.Save(&Manifest{}, []string{p}); err == nil || !strings.Contains(err.Error(), "history") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestClockPast: a reading of the file clock is kept when the files
// changed before it carry earlier times; when one carries the reading
// itself (changed within its tick, before it was read), a later reading
// is returned, past that file's change time.
func TestClockPast(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	file := filepath.Join(ws, "edited")
	changeTime := func() time.Time {
		fi, err := os.Lstat(file)
		if err != nil {
			t.Fatal(err)
		}
		return time.Unix(ctime(fi))
	}
	write(t, file, "old")
	time.Sleep(2 * tick)
	clock, err := s.FileClock()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ClockPast(clock, []string{file, filepath.Join(ws, "gone")}); !got.Equal(clock) {
		t.Errorf("a file changed ticks before moved the clock on, from %v to %v", clock, got)
	}
	for i := 0; ; i++ {
		if i == 200 {
			t.Skip("the file clock never read a file's change time written just before")
		}
		write(t, file, fmt.Sprint("v", i))
		if clock, err = s.FileClock(); err != nil {
			t.Fatal(err)
		}
		if changeTime().Equal(clock) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if got := s.ClockPast(clock, []string{file}); !got.After(changeTime()) {
		t.Errorf("the clock %v is not past a file changed before it was read (%v)", got, changeTime())
	}
}
