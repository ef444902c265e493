package sessionbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/snapshot"
)

// BenchmarkSharedMapping: the look, before a round is left out, for a
// process with a file of the workspace mapped shared (every process's
// maps this user may read), with the PROCMAP_QUERY ioctl where the
// kernel has it; BenchmarkSharedMappingRead reads every process's maps.
func BenchmarkSharedMapping(b *testing.B) {
	ws := b.TempDir()
	for i := 0; i < b.N; i++ {
		if sharedMapping(ws) {
			b.Fatal("a mapping in an empty directory")
		}
	}
}

func BenchmarkSharedMappingRead(b *testing.B) {
	ws := b.TempDir()
	for i := 0; i < b.N; i++ {
		if sharedMappingBy(ws, false) {
			b.Fatal("a mapping in an empty directory")
		}
	}
}

// TestSharedMappingHelper maps the file CORDON_TEST_MAP names (shared
// unless CORDON_TEST_MAP_PRIVATE is set), says so, and waits for its
// standard input to end: the other process TestSharedMapping looks at.
func TestSharedMappingHelper(t *testing.T) {
	file := os.Getenv("CORDON_TEST_MAP")
	if file == "" {
		t.Skip("the helper of TestSharedMapping")
	}
	flags := unix.MAP_SHARED
	if os.Getenv("CORDON_TEST_MAP_PRIVATE") != "" {
		flags = unix.MAP_PRIVATE
	}
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, flags)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Stdout.WriteString("mapped\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	unix.Munmap(m)
}

// TestSharedMapping: another process's shared mapping of a file in the
// workspace (a deep one, one unlinked since) is found, with the ioctl
// and by reading the maps alike; a private one, one in a directory whose
// name only begins with the workspace's, and none at all are not.
func TestSharedMapping(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{ws + "/a/b", ws + "2"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mapIn := func(t *testing.T, file string, private, unlink bool) int {
		if err := os.WriteFile(file, make([]byte, 4096), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestSharedMappingHelper$")
		cmd.Env = append(os.Environ(), "CORDON_TEST_MAP="+file)
		if private {
			cmd.Env = append(cmd.Env, "CORDON_TEST_MAP_PRIVATE=1")
		}
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close(); cmd.Wait() })
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "mapped\n" {
			t.Fatalf("the helper said %q", line)
		}
		if unlink {
			os.Remove(file)
		}
		return cmd.Process.Pid
	}
	for _, c := range []struct {
		name            string
		file            string
		private, unlink bool
		want            bool
	}{
		{"shared, deep", ws + "/a/b/f", false, false, true},
		{"shared, unlinked", ws + "/a/g", false, true, true},
		{"private", ws + "/a/p", true, false, false},
		{"a sibling whose name begins with the workspace's", ws + "2/f", false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			pid := mapIn(t, c.file, c.private, c.unlink)
			if f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid)); err == nil {
				found, ok := queryShared(int(f.Fd()), ws+"/", make([]byte, unix.PathMax))
				f.Close()
				if ok && found != c.want {
					t.Errorf("the helper's own maps, asked: found %v, want %v", found, c.want)
				}
			}
			for _, query := range []bool{true, false} {
				if got := sharedMappingBy(ws, query); got != c.want {
					t.Errorf("query %v: found %v, want %v", query, got, c.want)
				}
			}
		})
	}
	// The ioctl answers where the kernel has it (6.11 on): else every
	// case above would have tried the maps twice.
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := queryShared(int(f.Fd()), ws+"/", make([]byte, unix.PathMax)); !ok {
		var u unix.Utsname
		unix.Uname(&u)
		var major, minor int
		fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor)
		if major > 6 || major == 6 && minor >= 11 {
			t.Errorf("PROCMAP_QUERY failed on Linux %d.%d", major, minor)
		}
		t.Log("no PROCMAP_QUERY here: only the maps were read")
	}
}

// TestLockedLook: the look holds the store's saving lock while it runs,
// lets go of it once done ran (a look that found nothing), and after its
// hold even when the look is held up; when a saver holds the lock, the
// look runs without it.
func TestLockedLook(t *testing.T) {
	st := snapshot.Open(t.TempDir(), snapshot.Budgets{})
	ws := t.TempDir()
	free := func() bool {
		unlock, ok := st.TryLockPending(ws)
		if ok {
			unlock()
		}
		return ok
	}
	heldInDone := true
	if lockedLook(st, ws, time.Minute, func() bool { return false }, func() { heldInDone = !free() }) {
		t.Fatal("a look that found nothing reported a mapping")
	}
	if !heldInDone {
		t.Error("the lock was let go before done ran")
	}
	if !free() {
		t.Error("the lock not let go after the look")
	}
	if !lockedLook(st, ws, time.Minute, func() bool { return true }, func() { t.Error("done ran after a mapping was found") }) || !free() {
		t.Error("a look that found a mapping: not reported, or the lock kept")
	}
	// Held up: let go after the hold, while the look still runs.
	unblock, running := make(chan bool), make(chan bool)
	go lockedLook(st, ws, 50*time.Millisecond, func() bool { running <- true; <-unblock; return false }, func() {})
	<-running
	if free() {
		t.Error("the lock free while the look runs")
	}
	time.Sleep(300 * time.Millisecond)
	if !free() {
		t.Error("the lock still held past the hold")
	}
	close(unblock)
	// A saver holds it: the look runs all the same.
	unlock, ok := st.TryLockPending(ws)
	if !ok {
		t.Fatal("the lock not taken")
	}
	defer unlock()
	ran := false
	lockedLook(st, ws, time.Minute, func() bool { ran = true; return false }, func() {})
	if !ran {
		t.Error("the look did not run while a saver held the lock")
	}
}

// TestKeepChangedSince: when the watch cannot name what changed (a new
// session), the files of the workspace changed since the last round
// began are kept before the command, and none from before it, nor what
// is in .git or a regenerable directory.
func TestKeepChangedSince(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	st := snapshot.Open(state, snapshot.Budgets{Command: 1 << 20})
	write := func(rel string) {
		p := filepath.Join(ws, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old.txt")
	time.Sleep(50 * time.Millisecond) // (more than a tick of the file clock)
	since, err := st.FileClock()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	for _, rel := range []string{"new.txt", "dir/new.txt", ".git/new", "node_modules/x/new.js"} {
		write(rel)
	}
	time.Sleep(50 * time.Millisecond)
	clock, err := st.FileClock()
	if err != nil {
		t.Fatal(err)
	}
	m := &manager{s: spec{Policy: &platform.Policy{Workspace: ws, Regenerable: []string{"node_modules"}}, StateDir: state}}
	m.keepChanged(st, clock, []string{"."}, since)
	var kept []string
	for _, e := range st.Index(ws).Entries {
		rel, _ := filepath.Rel(ws, e.Path)
		kept = append(kept, rel)
	}
	slices.Sort(kept)
	if want := []string{"dir/new.txt", "new.txt"}; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
}

// TestFirstRoundWalkedEarly: the files a new session's first command
// keeps before it starts are found while the sandbox starts
// ([manager.walkEarly]): what changed since the last round before that
// walk, and what changed after it (a file, a new directory's), which the
// watch names; nothing from before the last round, nor in .git.
func TestFirstRoundWalkedEarly(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	st := snapshot.Open(state, snapshot.Budgets{Command: 1 << 20})
	write := func(rel string) {
		p := filepath.Join(ws, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old.txt")
	write("sub/old.txt")
	time.Sleep(50 * time.Millisecond) // (more than a tick of the file clock)
	if err := os.MkdirAll(filepath.Join(state, "snapshots", "pending"), 0o700); err != nil {
		t.Fatal(err)
	}
	st.CountRound(ws)
	if _, ok := st.LastRound(ws); !ok {
		t.Fatal("no last round")
	}
	time.Sleep(50 * time.Millisecond)
	write("before.txt")
	write("sub/before.txt")
	p := &platform.Policy{Workspace: ws, Regenerable: []string{"node_modules"}}
	m := &manager{s: spec{Policy: p, StateDir: state}}
	m.changes = guard.WatchChanges(p, time.Now())
	if m.changes == nil {
		t.Skip("no inotify watch here")
	}
	defer m.changes.Stop()
	if m.early = m.walkEarly(); m.early == nil {
		t.Fatal("no early walk with a last round and a watch")
	}
	<-m.early.done
	// After the walk: the watch names these.
	write("after.txt")
	write("sub/after.txt")
	write("newdir/deep/after.txt")
	write(".git/after")
	clock, err := st.FileClock()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.changes.Paths(); !ok {
		t.Error("the watch cannot name what changed since the early walk: the first command would walk the workspace again")
	}
	m.keepBefore(st, clock, ws, m.early)
	var kept []string
	for _, e := range st.Index(ws).Entries {
		rel, _ := filepath.Rel(ws, e.Path)
		kept = append(kept, rel)
	}
	slices.Sort(kept)
	want := []string{"after.txt", "before.txt", "newdir/deep/after.txt", "sub/after.txt", "sub/before.txt"}
	if !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
}

// TestKeepChangedSameTick: a file changed right before the command
// starts, within the tick of the file clock read for it (it carries that
// reading's own change time: an agent's file tool, then its shell), is
// kept before the command, which has not started: without it, the
// command's round takes the edit for the command's, and a command that
// destroys it cannot be undone to it (TestSessionRoundUndo's "a person
// between commands" failed so about one run in ten).
func TestKeepChangedSameTick(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	st := snapshot.Open(state, snapshot.Budgets{Command: 1 << 20})
	file := filepath.Join(ws, "edited")
	changeTime := func() time.Time {
		var s unix.Stat_t
		if err := unix.Lstat(file, &s); err != nil {
			t.Fatal(err)
		}
		return time.Unix(s.Ctim.Unix())
	}
	var clock time.Time
	for i := 0; ; i++ {
		if i == 200 {
			t.Skip("the file clock never read a file's change time written just before")
		}
		if err := os.WriteFile(file, []byte(fmt.Sprint("v", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		if clock, err = st.FileClock(); err != nil {
			t.Fatal(err)
		}
		if changeTime().Equal(clock) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	m := &manager{s: spec{Policy: &platform.Policy{Workspace: ws}, StateDir: state}}
	m.keepChanged(st, clock, []string{"edited"}, time.Time{})
	entries := st.Index(ws).Entries
	if len(entries) != 1 || entries[0].Path != file {
		t.Fatalf("a file changed before the command, in the clock's tick, was not kept: the index holds %v", entries)
	}
}
