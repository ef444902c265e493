package guard

import (
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// Changes watches a session's workspace for the whole session (inotify
// on every directory of it, the watch between commands' walk and more),
// to tell two things without a walk:
//
//   - whether anything below the root may have changed at an auto-run
//     place since a command's end ([Changes.Changed]): the next
//     command's end walks the workspace ([CheckBelow]) only then;
//   - whether anything at all in the workspace may have changed since
//     the last snapshot round began ([Changes.Dirty]): the session's
//     manager starts a round only then. For that it also watches what
//     the walk leaves out (.git and every directory below it, the
//     entries of regenerable directories and below, a bare repository's
//     objects), and every kind of event (a removal, a rename away, a
//     change of mode or times).
//
// One inotify descriptor, one reader. What inotify does not see (a
// write through a shared mapping, or through a hard link whose name is
// outside the workspace) is dealt with by the manager (docs/session.md).
type Changes struct {
	w     *belowWatch
	ev    sync.Mutex // held while events are read and looked at
	dirty bool       // a place below the root may have changed
	// appeared: a repository may have been made or moved in below the
	// root since the last [Changes.Appeared].
	appeared bool
	below    bool // there are places below the root to look for
	ready    atomic.Bool
	// touched: something in the workspace changed since the last
	// [Changes.Clear] (or the watch's start).
	touched bool
	// fresh are the files made since the last Clear that nothing else
	// happened to by that name before (see [Changes.transient]): the
	// workspace differs from the round's only while one is there.
	fresh map[freshName]bool
	// extra are the watches of the directories the walk leaves out,
	// for the round alone: the directory, relative to the workspace.
	extra        map[int32]string
	extraPartial bool // some could not be watched (bounds, the kernel's limit)
	// gitDirs are the watches among extra of the .git directories
	// below the root that are no nested repository's the policy names
	// (nor in a regenerable directory); headless those of them with no
	// HEAD, which no walk takes for a repository: one made there later
	// makes one appear as surely as a .git made (see [Changes.Appeared]).
	gitDirs    map[int32]bool
	headless   map[int32]bool
	gitPartial bool // such a .git could not be watched
	// paths are what changed since the last Clear, relative to the
	// workspace, up to maxChangedPaths; pathsLost when more did, or a
	// queue overflowed.
	paths     map[string]bool
	pathsLost bool
	// marked: [Changes.Mark] was called with the first walk done, and
	// stirred, since then, something in the workspace changed; made are
	// the files made since by a name nothing else happened to before
	// (see [Changes.Still]).
	marked  atomic.Bool
	stirred bool
	made    map[freshName]bool
	stop    func()
}

// roundEvents are every event that tells a change of a directory's
// entries or of a file in it.
const roundEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MODIFY |
	unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// maxRoundDirs bounds the directories watched for the round alone (past
// it, every round runs).
var maxRoundDirs = 65536

// maxChangedPaths bounds the paths [Changes.Paths] keeps.
const maxChangedPaths = 4096

// WatchChanges starts watching p's workspace for changes from since on
// (the first command's start); nil when there is no workspace or no
// watch can be made (then every end walks, and every round runs).
func WatchChanges(p *platform.Policy, since time.Time) *Changes {
	if p.Workspace == "" {
		return nil
	}
	in, err := inotifyInit(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC); err != nil {
		unix.Close(in)
		return nil
	}
	c := &Changes{below: hasBelowEntries(p.RootGuarded), extra: map[int32]string{}, touched: true, pathsLost: true}
	w := &belowWatch{maxDirs: maxBelowDirs, ws: p.Workspace, entries: p.RootGuarded, skip: p.Regenerable, since: since, in: in, dirs: map[int32]string{}, gitDirs: map[int32]string{}, mask: roundEvents}
	mark := func(string) { c.dirty = true }
	repo := func(string) { c.dirty, c.appeared = true, true }
	w.found, w.newRepo, w.newBare = mark, repo, repo
	// A place in a directory changed since (moved in with it, before the
	// first walk got there) counts: the walk at the end asks git.
	w.clean = func(string) bool { return false }
	w.tree = c.watchTree
	w.setRoots(p.Nested)
	c.w = w
	// (Held until the first walk is done: an end before it waits.)
	c.ev.Lock()
	go func() {
		defer unix.Close(in)
		defer unix.Close(wake[0])
		w.add(".", 0, false)
		c.ready.Store(true)
		c.ev.Unlock()
		fds := []unix.PollFd{{Fd: int32(in), Events: unix.POLLIN}, {Fd: int32(wake[0]), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
				c.ev.Lock()
				w.partial = true
				c.ev.Unlock()
				return
			}
			if fds[1].Revents != 0 {
				return
			}
			c.ev.Lock()
			c.read()
			c.ev.Unlock()
		}
	}()
	c.stop = sync.OnceFunc(func() {
		w.stopped.Store(true)
		unix.Write(wake[1], []byte{0})
		unix.Close(wake[1])
	})
	return c
}

// read looks at the events queued, c.ev held.
func (c *Changes) read() {
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(c.w.in, buf)
		if n <= 0 || err != nil {
			break
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			c.roundEvent(ev.Wd, ev.Mask, name)
			// The walk's own events, as the watch between commands
			// has them.
			if ev.Mask&(belowEvents&^unix.IN_ONLYDIR|unix.IN_Q_OVERFLOW|unix.IN_IGNORED) != 0 {
				c.w.event(ev.Wd, ev.Mask, name)
			}
		}
	}
	if c.w.relinks {
		c.w.relinks = false
		c.w.recheckLinks()
	}
}

// roundEvent notes one event for the round: any event is a change (the
// kernel raises none for reading), but a file made and removed again
// ([Changes.transient]); and a directory made or moved where only the
// round's watch looks is watched too.
func (c *Changes) roundEvent(wd int32, mask uint32, name string) {
	c.stir(wd, mask, name)
	if mask&unix.IN_Q_OVERFLOW != 0 {
		c.touched = true
		c.pathsLost = true // (the walk's event handling makes the watch partial)
		return
	}
	dir, inExtra := c.extra[wd]
	if !inExtra {
		if dir = c.w.dirs[wd]; dir == "" {
			dir = c.w.tops[wd]
		}
	}
	if mask&unix.IN_IGNORED != 0 && inExtra {
		c.touched = true
		delete(c.extra, wd)
		delete(c.gitDirs, wd)
		delete(c.headless, wd)
		return
	}
	if dir == "" || name == "" {
		c.touched = true
		return
	}
	if c.gitDirs[wd] && strings.EqualFold(name, "HEAD") {
		switch {
		case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 && c.headless[wd]:
			// A git directory no walk took for a repository is one now
			// (a file tool wrote its HEAD; found by an attacker).
			delete(c.headless, wd)
			c.dirty, c.appeared = true, true
		case mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
			c.headless[wd] = true
		}
	}
	rel := join(dir, name)
	unchanged, gone := c.transient(freshName{wd, name}, rel, mask)
	if !unchanged {
		c.touched = true
	}
	if gone {
		delete(c.paths, rel) // as it was: the name may come and go again
	} else if !c.pathsLost && !c.paths[rel] {
		if len(c.paths) >= maxChangedPaths {
			c.pathsLost = true
		} else {
			if c.paths == nil {
				c.paths = map[string]bool{}
			}
			c.paths[rel] = true
		}
	}
	// A directory made where the walk does not go (below .git, in
	// node_modules), or a .git made where it does.
	if mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 && (inExtra || c.w.tops[wd] != "" || name == ".git") {
		if fd, err := openBelow(c.w.ws, dir); err == nil {
			c.watchTree(fd, name, rel, true)
			unix.Close(fd)
		}
	}
}

// stir notes one event for [Changes.Still]: every event is a change but
// one on a file made since the mark by a name nothing else happened to
// before (written, changed, or removed again: git's index.lock). A
// directory made counts at once.
func (c *Changes) stir(wd int32, mask uint32, name string) {
	if c.stirred {
		return
	}
	f := freshName{wd, name}
	switch {
	case name == "" || mask&(unix.IN_ISDIR|unix.IN_Q_OVERFLOW|unix.IN_IGNORED) != 0:
	case c.made[f]:
		switch {
		case mask&(unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ATTRIB) == mask:
			return
		case mask == unix.IN_DELETE:
			delete(c.made, f)
			return
		}
	case mask == unix.IN_CREATE && len(c.made) < maxTransient:
		if c.made == nil {
			c.made = map[freshName]bool{}
		}
		c.made[f] = true
		return
	}
	c.stirred = true
}

// A freshName is a name in the directory a watch is of: a directory
// moved where no walk follows it keeps its watch and its old relative
// name, which one made again by that name shares.
type freshName struct {
	wd   int32
	name string
}

// maxTransient bounds the files [Changes.transient] follows.
const maxTransient = 1024

// transient reports whether an event on rel leaves the workspace as it
// was at the last [Changes.Clear] once rel is gone again (unchanged), and
// whether rel is gone so (gone: the name is as it was then): rel is a file
// made since then (IN_CREATE) by a name nothing else happened to before,
// then written or changed, then removed (IN_DELETE). git makes and
// removes its index.lock so at every git status with nothing to write;
// a round for that (and the next command's wait for it) changed nothing.
// Called before rel is added to the paths seen. Anything else (a
// directory, a file renamed in or away, one that was there before, one
// seen before by that name, more than maxTransient, paths not known) is a
// change.
func (c *Changes) transient(f freshName, rel string, mask uint32) (unchanged, gone bool) {
	switch {
	case mask&unix.IN_ISDIR != 0:
	case c.fresh[f]:
		switch {
		case mask&(unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ATTRIB) == mask:
			return true, false
		case mask == unix.IN_DELETE:
			delete(c.fresh, f)
			return true, true
		}
		delete(c.fresh, f)
	case mask == unix.IN_CREATE && !c.pathsLost && !c.paths[rel] && len(c.fresh) < maxTransient:
		if c.fresh == nil {
			c.fresh = map[freshName]bool{}
		}
		c.fresh[f] = true
		return true, false
	}
	return false, false
}

// watchTree watches, for the round, the directory name in dirfd (rel
// below the workspace; itself only when self) and every directory below
// it, links never followed, c.ev held.
func (c *Changes) watchTree(dirfd int, name, rel string, self bool) {
	c.tree(dirfd, name, rel, self, 0)
}

func (c *Changes) tree(dirfd int, name, rel string, self bool, depth int) {
	if c.w.stopped.Load() {
		return
	}
	// A .git below the root not watched (bounds, the kernel's limit, one
	// its owner cannot read now: chmod 000, given back later by a command
	// with no event the watch acts on): a HEAD made there would not be
	// seen, so every ticket looks ([Changes.Appeared]).
	gitDir := self && name == ".git" && c.belowGitDir(rel)
	if depth > maxBelowDepth || len(c.extra) >= maxRoundDirs {
		c.extraPartial = true
		c.gitPartial = c.gitPartial || gitDir
		return
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		c.gitPartial = c.gitPartial || gitDir && err != unix.ENOENT
		return
	}
	defer unix.Close(fd)
	if self {
		wd, err := unix.InotifyAddWatch(c.w.in, "/proc/self/fd/"+strconv.Itoa(fd), roundEvents)
		if err != nil {
			c.extraPartial = true // ENOSPC: the kernel's limit on watches
			c.gitPartial = c.gitPartial || gitDir
			return
		}
		if _, walked := c.w.dirs[int32(wd)]; !walked {
			c.extra[int32(wd)] = rel
			if gitDir {
				c.gitDir(fd, int32(wd))
			}
		}
	}
	for _, d := range readDirFD(fd) {
		if d.typ == unix.DT_DIR {
			c.tree(fd, d.name, join(rel, d.name), true, depth+1)
		}
	}
}

// belowGitDir reports whether rel, a .git directory, is one below the
// root that is no nested repository's the policy names and lies in no
// regenerable directory (where the walks for repositories do not go).
func (c *Changes) belowGitDir(rel string) bool {
	parent := filepath.Dir(rel)
	return parent != "." && !slices.Contains(c.w.roots, parent) && !slices.ContainsFunc(strings.Split(parent, "/"), c.w.skipped)
}

// gitDir notes the watch wd of such a .git directory, open at fd: with
// no HEAD, as headless; with a HEAD made or changed since the watch's
// since (before the watch got there: a walk at a ticket's start, which
// ran before, may not have seen it), as a repository that appeared.
func (c *Changes) gitDir(fd int, wd int32) {
	if c.gitDirs == nil {
		c.gitDirs, c.headless = map[int32]bool{}, map[int32]bool{}
	}
	c.gitDirs[wd] = true
	var st unix.Stat_t
	switch {
	case unix.Fstatat(fd, "HEAD", &st, unix.AT_SYMLINK_NOFOLLOW) != nil:
		c.headless[wd] = true
	case changedSince(&st, c.w.since):
		c.dirty, c.appeared = true, true
	}
}

// Changed reports whether anything below the root may have changed at
// an auto-run place since the last call (or the watch's start): the
// events queued until now are read first. Always true where the watch
// does not see everything (more directories than it holds, events
// lost), has stopped, or there are no such places.
func (c *Changes) Changed() bool {
	if c == nil || !c.below {
		return true
	}
	return c.take(&c.dirty, false)
}

// Appeared reports whether a repository may have been made or moved in
// below the root since the last call (or since the watch's since, for
// the first): the events queued until now are read first. Always true
// where the watch does not see everything (more directories than it
// holds, events lost, a .git below the root it could not watch), has
// stopped, or for a nil c.
func (c *Changes) Appeared() bool {
	if c == nil {
		return true
	}
	return c.take(&c.appeared, true)
}

// startedAfter reports whether c watches from after t (a nil c: yes).
func (c *Changes) startedAfter(t time.Time) bool {
	return c == nil || c.w.since.After(t)
}

// take reports flag (or whether the watch does not see everything: its
// bounds, events lost, and with gits a .git below the root it could not
// watch) once the events queued until now are read, and clears it; true
// once the watch stopped.
func (c *Changes) take(flag *bool, gits bool) bool {
	c.ev.Lock()
	defer c.ev.Unlock()
	if c.w.stopped.Load() {
		return true
	}
	c.read()
	v := *flag || c.w.partial || gits && c.gitPartial
	*flag = false
	return v
}

// Dirty reports whether anything in the workspace may have changed
// since the last [Changes.Clear]: the events queued until now are read
// first. Always true before the watch's first walk is done, once it
// stopped, and where it does not see everything (directories past its
// bounds or the kernel's limit, events lost): a round then runs.
func (c *Changes) Dirty() bool {
	if c == nil || !c.ready.Load() {
		return true
	}
	c.ev.Lock()
	defer c.ev.Unlock()
	if c.w.stopped.Load() {
		return true
	}
	c.read()
	return c.touched || len(c.fresh) > 0 || c.w.partial || c.extraPartial
}

// Ready waits for the watch's first walk and reports whether it is
// done: false for no watch.
func (c *Changes) Ready() bool {
	if c == nil {
		return false
	}
	c.ev.Lock()
	defer c.ev.Unlock()
	return c.ready.Load()
}

// Clear starts a new period for [Changes.Dirty] and [Changes.Paths]:
// called as a round starts, before it reads anything, so that what
// changes while it runs counts for the next one. A watch whose first
// walk is not done stays dirty.
func (c *Changes) Clear() {
	if c == nil || !c.ready.Load() {
		return
	}
	c.ev.Lock()
	defer c.ev.Unlock()
	c.read()
	c.touched, c.fresh, c.paths, c.pathsLost = false, nil, nil, false
}

// Taint makes [Changes.Dirty] true until the next Clear: a round that
// did not complete.
func (c *Changes) Taint() {
	if c == nil {
		return
	}
	c.ev.Lock()
	c.touched = true
	c.ev.Unlock()
}

// Paths returns what changed since the last [Changes.Clear], relative
// to the workspace (files and directories made, written, removed); ok
// is false when that is not known (more than maxChangedPaths, events
// lost, the watch not ready or partial).
func (c *Changes) Paths() (paths []string, ok bool) {
	if c == nil || !c.ready.Load() {
		return nil, false
	}
	c.ev.Lock()
	defer c.ev.Unlock()
	c.read()
	if c.pathsLost || c.w.partial || c.extraPartial || c.w.stopped.Load() {
		return nil, false
	}
	for p := range c.paths {
		paths = append(paths, p)
	}
	return paths, true
}

// Mark starts a period for [Changes.Still]: called just before the disk
// is read as the trusted state, or made to hold it (a ticket's trusted
// state taken, a reconcile). Before the watch's first walk is done it
// waits for nothing: that period is never still.
func (c *Changes) Mark() {
	if c == nil {
		return
	}
	if !c.ready.Load() {
		c.marked.Store(false)
		return
	}
	c.ev.Lock()
	defer c.ev.Unlock()
	c.read()
	c.stirred, c.made = false, nil
	c.marked.Store(true)
}

// Still reports whether nothing in the workspace changed since the last
// [Changes.Mark], the events queued until now read first: no entry made
// (but a file made and removed again by a name nothing else happened to
// before), written, removed, renamed, or changed in mode or times, and
// no directory made. False for a nil c, without a mark, once the watch
// stopped, and where it does not see everything (directories past its
// bounds or the kernel's limit, a .git it could not watch, events
// lost). What inotify does not see (a write through a hard link whose
// other name is elsewhere, or through a shared mapping of a process
// still running) is its caller's to rule out ([stillTrusted]).
func (c *Changes) Still() bool {
	if c == nil || !c.marked.Load() {
		return false
	}
	c.ev.Lock()
	defer c.ev.Unlock()
	if c.w.stopped.Load() {
		return false
	}
	c.read()
	return !c.stirred && len(c.made) == 0 && !c.w.partial && !c.extraPartial && !c.gitPartial
}

// Stop ends the watch.
func (c *Changes) Stop() {
	if c != nil {
		c.stop()
	}
}
