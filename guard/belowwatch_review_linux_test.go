package guard

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A repository a background process makes below the root (git init
// deep/repo) is adopted by the ledger for its git directory only: a
// place at its root (deep/repo/.envrc) is still a place below the root,
// which the watch moves aside, as the round does.
func TestWatchBelowAdoptedRootPlace(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	os.MkdirAll(filepath.Join(ws, "a/repo/.git/hooks"), 0o755)
	time.Sleep(100 * time.Millisecond)
	planted := filepath.Join(ws, "a/repo/.envrc")
	os.WriteFile(planted, []byte("touch pwned\n"), 0o644)
	if !waitGone(planted) {
		t.Error("a place at the root of a repository made during the watch stayed")
	}
}

// A link the watch looked through when it held no place is looked
// through again when another link to the same directory is made: what
// it holds may have changed since (the watch does not go into
// node_modules).
func TestWatchBelowLinkLookedThroughAgain(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	st := filepath.Join(ws, "node_modules/st")
	os.MkdirAll(st, 0o755)
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	os.Symlink("node_modules/st", filepath.Join(ws, "tool1"))
	time.Sleep(100 * time.Millisecond)
	os.WriteFile(filepath.Join(st, ".envrc"), []byte("touch pwned\n"), 0o644)
	os.Symlink("node_modules/st", filepath.Join(ws, "tool2"))
	if !waitGone(filepath.Join(ws, "tool2")) {
		t.Error("a link made during the watch to a directory holding a place stayed (the directory was looked through earlier, empty)")
	}
}

// A place written, during the watch, in a directory the watch does not
// go into (node_modules) but that a link in the workspace leads to
// (tool -> node_modules/st: npm run in tool reads tool/.npmrc): the
// link is moved aside, whether it was made before the watch or during
// it.
func TestWatchBelowPlantBehindLink(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	for _, d := range []string{"node_modules/st", "node_modules/old"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.Symlink("node_modules/old", filepath.Join(ws, "oldtool")) // the person's
	time.Sleep(50 * time.Millisecond)
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	os.Symlink("node_modules/st", filepath.Join(ws, "tool"))
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Lstat(filepath.Join(ws, "tool")); err != nil {
		t.Fatalf("a link to an empty directory was moved: %v", err)
	}
	os.WriteFile(filepath.Join(ws, "node_modules/st/.envrc"), []byte("touch pwned\n"), 0o644)
	if !waitGone(filepath.Join(ws, "tool")) {
		t.Error("a link made during the watch stayed once a place was written behind it")
	}
	os.MkdirAll(filepath.Join(ws, "node_modules/old/.vscode"), 0o755)
	os.WriteFile(filepath.Join(ws, "node_modules/old/.vscode/tasks.json"), []byte("{}"), 0o644)
	if !waitGone(filepath.Join(ws, "oldtool")) {
		t.Error("a link from before the watch stayed once a place was written behind it")
	}
}

// A watched directory moved out of the watch's way (into node_modules,
// or outside the workspace) and a link to it put in its place: a place
// written there after is seen through the link, which is moved aside.
func TestWatchBelowDirSwappedForLink(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	outside := filepath.Join(filepath.Dir(ws), "out")
	os.MkdirAll(filepath.Join(ws, "c"), 0o755)
	time.Sleep(50 * time.Millisecond)
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(100 * time.Millisecond)
	for dir, to := range map[string]string{"a": filepath.Join(ws, "node_modules/h"), "c": outside} {
		if err := os.Rename(filepath.Join(ws, dir), to); err != nil {
			t.Fatal(err)
		}
		os.Symlink(to, filepath.Join(ws, dir))
		time.Sleep(100 * time.Millisecond)
		os.WriteFile(filepath.Join(to, ".envrc"), []byte("touch pwned\n"), 0o644)
		if !waitGone(filepath.Join(ws, dir)) {
			t.Errorf("%s, swapped for a link to %s, stayed with a place written behind it", dir, to)
		}
	}
}

// stop may be called twice (a deferred stop after an explicit one): the
// second call closes nothing, not a descriptor opened since with the
// number the first one closed.
func TestWatchBelowStopTwice(t *testing.T) {
	p, state := belowPolicy(t)
	p.Guarded = []string{filepath.Join(p.Workspace, ".envrc")}
	stop := WatchBetween(state, p, time.Now()).Stop
	time.Sleep(100 * time.Millisecond)
	stop()
	time.Sleep(100 * time.Millisecond) // (the watches' goroutines close theirs)
	var files []*os.File
	for range 8 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	stop()
	for _, f := range files {
		if _, err := f.Stat(); err != nil {
			t.Errorf("a descriptor opened after the watch stopped was closed by a second stop: %v", err)
		}
	}
}

// Events lost (the kernel's queue overflowed, as a process that writes
// thousands of files can make it): the watch looks at the workspace
// again at once, for the places written meanwhile and the directories
// made meanwhile, which it watches from then on.
func TestWatchBelowQueueOverflow(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(in)
	var found []string
	w := &belowWatch{stateDir: state, ws: ws, entries: p.RootGuarded, skip: p.Regenerable, since: time.Now(), in: in,
		dirs: map[int32]string{}, gitDirs: map[int32]string{}, found: func(rel string) { found = append(found, rel) }}
	w.add(".", 0, false)
	os.MkdirAll(filepath.Join(ws, "e/f"), 0o755)
	os.WriteFile(filepath.Join(ws, "e/f/.envrc"), []byte("touch pwned\n"), 0o644)
	// The events lost.
	buf := make([]byte, 64<<10)
	for {
		if n, err := unix.Read(in, buf); n <= 0 || err != nil {
			break
		}
	}
	w.event(-1, unix.IN_Q_OVERFLOW, "")
	if !slices.Contains(found, "e/f/.envrc") {
		t.Errorf("a place written while events were lost was not found: %v", found)
	}
	if !slices.Contains(slices.Collect(maps.Values(w.dirs)), "e/f") {
		t.Errorf("a directory made while events were lost is not watched: %v", w.dirs)
	}
	if !w.partial {
		t.Error("lost events do not make the watch partial (the next round looks from its start)")
	}
}

// The watch's mark (the next round looks from the watch's start on) is
// taken by the round of the command whose end started the watch, which
// runs while the watch does; what the watch cannot see after that round
// (a write through a hard link made from node_modules to a person's
// place, the link removed after) must still be looked at by the next
// command's round: the mark is there once the watch stops.
func TestWatchBelowMarkOutlivesRound(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	envrc := filepath.Join(ws, "a/.envrc") // the person's
	os.WriteFile(envrc, []byte("ok\n"), 0o644)
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	stop := watchBelow(state, p, since)
	defer stop()
	time.Sleep(50 * time.Millisecond)
	// The round of the command that left the process running.
	mark, ok := BelowSince(state, ws)
	if !ok {
		t.Fatal("no mark at the watch's start")
	}
	DoneBelow(state, ws, mark)
	// After it, the process writes the person's place through a hard
	// link the watch does not see, and removes the link.
	h := filepath.Join(ws, "node_modules/h")
	if err := os.Link(envrc, h); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(h, []byte("touch pwned\n"), 0o644)
	os.Remove(h)
	time.Sleep(100 * time.Millisecond)
	stop()
	// The next command's round.
	from, ok := BelowSince(state, ws)
	if !ok || from.After(since) {
		t.Fatalf("after the watch, the next round looks from %v (marked %v), not from the watch's start %v", from, ok, since)
	}
	found, _, _ := FindBelow("", ws, p.RootGuarded, p.Regenerable, nil, from, nil)
	if !slices.Contains(found, envrc) {
		t.Errorf("the next round does not find the place written through a hard link: %v", found)
	}
}

// A watch stopped while its first walk runs (the session ends, or the
// next command comes, at once) leaves no descriptor open once its walk
// has ended; nor does one that moved places and looked through links.
func TestWatchBelowStopDuringWalk(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	for i := range 3000 {
		os.MkdirAll(filepath.Join(ws, "w", strconv.Itoa(i/100), strconv.Itoa(i)), 0o755)
	}
	os.MkdirAll(filepath.Join(ws, "node_modules/st"), 0o755)
	os.Symlink("node_modules/st", filepath.Join(ws, "tool"))
	count := func() int {
		names, _ := os.ReadDir("/proc/self/fd")
		return len(names)
	}
	settle := func(want int) int {
		n := count()
		for start := time.Now(); n > want && time.Since(start) < 5*time.Second; n = count() {
			time.Sleep(10 * time.Millisecond)
		}
		return n
	}
	before := count()
	WatchBetween(state, p, time.Now()).Stop()
	if n := settle(before); n != before {
		t.Errorf("%d descriptors open before a watch stopped during its walk, %d after", before, n)
	}
	stop := WatchBetween(state, p, time.Now()).Stop
	time.Sleep(500 * time.Millisecond)
	os.WriteFile(filepath.Join(ws, "w/1/150/.envrc"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, "node_modules/st/.envrc"), nil, 0o644)
	waitGone(filepath.Join(ws, "tool"))
	stop()
	if n := settle(before); n != before {
		t.Errorf("%d descriptors open before a watch, %d after", before, n)
	}
}

// A watch that cannot start (no inotify instance left: the kernel's
// limit per user, 128 by default, which editors share) says so, as one
// that cannot watch every directory does.
func TestWatchBelowNoInstance(t *testing.T) {
	defer func(f func(int) (int, error)) { inotifyInit = f }(inotifyInit)
	inotifyInit = func(int) (int, error) { return -1, unix.EMFILE }
	p, state := belowPolicy(t)
	watchBelow(state, p, time.Now())()
	if _, ok := BelowSince(state, p.Workspace); !ok {
		t.Error("a watch that could not start left no mark")
	}
	if lines := takeLines(state, p.Workspace); !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "could not watch") }) {
		t.Errorf("nothing says the watch could not start: %q", lines)
	}
}

// A repository made below the root piece by piece (its .git first, its
// hooks directory later): a hook planted there is put back at once, as
// in one git init made whole.
func TestWatchBelowAdoptedHooksLater(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	defer Release(state, ws)
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	git := filepath.Join(ws, "a/repo/.git")
	os.MkdirAll(git, 0o755)
	time.Sleep(200 * time.Millisecond)
	os.Mkdir(filepath.Join(git, "hooks"), 0o755)
	time.Sleep(200 * time.Millisecond)
	hook := filepath.Join(git, "hooks/pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch pwned\n"), 0o755)
	if !waitGone(hook) {
		t.Error("a hook planted in a hooks directory made after its repository was found stayed")
	}
}

// The git directory of a repository the watch found, replaced by
// another (moved away, a new one made): the new one's hooks are watched
// as the first one's were.
func TestWatchBelowAdoptedGitDirReplaced(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	defer Release(state, ws)
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	git := filepath.Join(ws, "a/repo/.git")
	os.MkdirAll(filepath.Join(git, "hooks"), 0o755)
	time.Sleep(200 * time.Millisecond)
	os.Rename(git, filepath.Join(ws, "a/repo/old"))
	os.MkdirAll(filepath.Join(git, "hooks"), 0o755)
	time.Sleep(200 * time.Millisecond)
	hook := filepath.Join(git, "hooks/pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch pwned\n"), 0o755)
	if !waitGone(hook) {
		t.Error("a hook planted in a repository's new git directory stayed")
	}
}

// A watch between commands that cannot be set says so (Between.Failed),
// whatever could not be set: no inotify instance left (the kernel's
// limit per user, which a process a command left running can use up),
// no watch left on a guarded place's directory. A watch that says
// nothing while watching nothing let a background process plant
// .git/commondir and .envrc for the person's next git or cd.
func TestWatchBetweenFailed(t *testing.T) {
	failed := func(t *testing.T, b *Between) error {
		t.Helper()
		defer b.Stop()
		select {
		case err := <-b.Failed():
			return err
		case <-time.After(500 * time.Millisecond):
			return nil
		}
	}
	t.Run("no instance", func(t *testing.T) {
		defer func(f func(int) (int, error)) { inotifyInit = f }(inotifyInit)
		inotifyInit = func(int) (int, error) { return -1, unix.EMFILE }
		p, state := belowPolicy(t)
		p.Guarded = []string{filepath.Join(p.Workspace, ".envrc")}
		if err := failed(t, WatchBetween(state, p, time.Now())); err == nil || !strings.Contains(err.Error(), "inotify") {
			t.Errorf("a watch without an inotify instance said %v", err)
		}
	})
	t.Run("no watch", func(t *testing.T) {
		defer func(f func(int, string, uint32) (int, error)) { inotifyAddWatch = f }(inotifyAddWatch)
		inotifyAddWatch = func(int, string, uint32) (int, error) { return -1, unix.ENOSPC }
		p, state := belowPolicy(t)
		p.RootGuarded = nil
		p.Guarded = []string{filepath.Join(p.Workspace, ".envrc")}
		if err := failed(t, WatchBetween(state, p, time.Now())); err == nil || !strings.Contains(err.Error(), "cannot watch") {
			t.Errorf("a watch that could not watch the workspace said %v", err)
		}
	})
	t.Run("below, no instance", func(t *testing.T) {
		defer func(f func(int) (int, error)) { inotifyInit = f }(inotifyInit)
		calls := 0
		real := inotifyInit
		inotifyInit = func(flags int) (int, error) {
			if calls++; calls == 1 { // the watch below the root starts first
				return -1, unix.EMFILE
			}
			return real(flags)
		}
		p, state := belowPolicy(t)
		p.Guarded = []string{filepath.Join(p.Workspace, ".envrc")}
		if err := failed(t, WatchBetween(state, p, time.Now())); err == nil {
			t.Error("a watch whose places below the root could not be watched said nothing")
		}
	})
	// (Found by an attacker: a process a command left used up the
	// user's watches, then planted .envrc two directories down, which
	// stayed until the agent's next command.)
	t.Run("below, no watch left", func(t *testing.T) {
		defer func(f func(int, string, uint32) (int, error)) { inotifyAddWatch = f }(inotifyAddWatch)
		real := inotifyAddWatch
		inotifyAddWatch = func(fd int, path string, mask uint32) (int, error) {
			if strings.HasPrefix(path, "/proc/self/fd/") { // the watch below the root
				return -1, unix.ENOSPC
			}
			return real(fd, path, mask)
		}
		p, state := belowPolicy(t)
		p.Guarded = []string{filepath.Join(p.Workspace, ".envrc")}
		if err := failed(t, WatchBetween(state, p, time.Now())); err == nil || !strings.Contains(err.Error(), "max_user_watches") {
			t.Errorf("a watch below the root the kernel refused said %v", err)
		}
	})
	t.Run("whole", func(t *testing.T) {
		p, state := belowPolicy(t)
		p.Guarded = []string{filepath.Join(p.Workspace, ".envrc"), filepath.Join(p.Workspace, "gone/.envrc")}
		if err := failed(t, WatchBetween(state, p, time.Now())); err != nil {
			t.Errorf("a watch that could watch everything said %v", err)
		}
	})
}
