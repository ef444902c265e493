package sessionbox

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/snapshot"
)

// The continuous guard's rounds, in a session: without a session, every
// command in a git workspace starts a saver (cordon's role
// [snapshot.SaverRole]) that waits for it to end and then runs one round
// (git status, the repository's data, the below-root walk), and the next
// command waits for that round. Most of an agent's commands change
// nothing (cat, grep, git log, a test that writes only caches). In a
// session the manager starts the saver instead, and only when something
// in the workspace may have changed: its watch of the workspace
// ([guard.Changes], one for the session's life) saw an event anywhere
// in it since the last round began (.git and regenerable directories
// included), cannot see everything, or the checks below say so. What
// the saver does is the same as without a session, so is its pending
// mark in the store, which the next command (and cordon undo) waits for.
// See docs/session.md for why a round left out loses nothing.

// A command is one command of the session whose round is the manager's.
type command struct {
	round    *Round
	pid      int    // the shim's
	pidStart string // ([platform.ProcessStart])
	saver    bool   // a saver was started as it started (it runs the round after it)
}

// roundStart is called as a command the keeper is given (the seq-th)
// starts, before it can: with something changed since the last round (a
// person's edit, a background process's write), the files changed are
// kept now ([manager.keepChanged]), and a saver starts, which keeps the
// repository's data (the pre-round) and runs the round after the
// command, as without a session.
func (m *manager) roundStart(seq int, r *Round, pid int) {
	if r == nil || r.Workspace == "" || r.Workspace != m.s.Policy.Workspace {
		return
	}
	if m.changes == nil {
		m.changes = guard.WatchChanges(m.s.Policy, m.since)
	}
	c := &command{round: r, pid: pid, pidStart: platform.ProcessStart(pid)}
	if m.commands == nil {
		m.commands = map[int]*command{}
	}
	m.commands[seq] = c
	if m.early != nil {
		// (Done long before, as a rule: the walk is shorter than
		// bwrap's start.)
		<-m.early.done
	}
	if !m.changes.Dirty() { // (never while m.early is there: see walkEarly)
		return
	}
	st := snapshot.Open(m.s.StateDir, r.Budgets)
	clock, err := st.FileClock()
	if err != nil {
		return // (the round after the command runs all the same)
	}
	// What the walk at the sandbox's start found is kept once: this
	// command's round clears the watch's paths. The clock may move on
	// (see [snapshot.Store.ClockPast]): the pre-round's is the same.
	clock = m.keepBefore(st, clock, r.Workspace, m.early)
	m.early = nil
	c.saver = m.startSaver(c, clock)
}

// keepBefore keeps, before a command in ws starts, the files changed
// since the last round ([manager.keepChanged]): those the watch names,
// with those early found before the watch's paths were cleared; when it
// cannot name them, those of the workspace changed since the last round
// began. It returns the clock they were kept with: clock, or a later
// reading when one of them changed in clock's tick ([manager.keep]).
func (m *manager) keepBefore(st *snapshot.Store, clock time.Time, ws string, early *earlyWalk) time.Time {
	if paths, ok := m.changes.Paths(); ok {
		files := m.changedFiles(paths, time.Time{})
		if early != nil {
			// The watch's paths are those since the early walk: what
			// changed before it, since the last round, it found.
			files = append(files, early.files...)
			slices.Sort(files)
			files = slices.Compact(files)
		}
		return m.keep(st, clock, files)
	} else if last, ok := st.LastRound(ws); ok {
		// The watch cannot name what changed: it has just started (a
		// new session's first command, the agent's Landlock session
		// replaced when an entry in the home directory came or went,
		// say) or lost events. What changed since the last round
		// (whichever session or shim ran it) is found by its change
		// time instead: else a person's edit made while the old
		// session lived would not be kept before this command.
		return m.keepChanged(st, clock, []string{"."}, last)
	}
	return clock
}

// An earlyWalk is what [manager.walkEarly] found.
type earlyWalk struct {
	done  chan struct{}
	files []string // changed since the last round, as of the walk
}

// walkEarly finds, while the sandbox starts, the files of the workspace
// changed since the last round, which the first command's round start
// keeps ([manager.roundStart]) instead of walking the workspace itself:
// once the watch's first walk is done, its paths are cleared and the
// workspace walked; a file changed before its directory's turn in the
// walk, the walk finds by its change time, one changed after it, the
// watch names. Nil when there is no watch or no last round (the first
// command then does as any command whose watch cannot name what
// changed); the walk is done once e.done is closed, which
// [manager.roundStart] waits for: until then, the watch is used only to
// tell whether the guarded places below the root changed, which the
// walk leaves alone.
func (m *manager) walkEarly() *earlyWalk {
	if m.changes == nil || m.s.Policy.Workspace == "" {
		return nil
	}
	// (The budgets are the round's; the last round's start does not
	// depend on them.)
	last, ok := snapshot.Open(m.s.StateDir, snapshot.Budgets{}).LastRound(m.s.Policy.Workspace)
	if !ok {
		return nil
	}
	e := &earlyWalk{done: make(chan struct{})}
	go func() {
		defer close(e.done)
		if !m.changes.Ready() {
			return
		}
		m.changes.Clear()
		// Dirty until the first round: as a watch that has just started.
		m.changes.Taint()
		e.files = m.changedFiles([]string{"."}, last)
	}()
	return e
}

// keepChanged keeps in the workspace's index (see [snapshot.Store.Refresh])
// the files among paths (relative to the workspace, what the watch saw
// change since the last round) and below the directories among them,
// up to maxKeepChanged, that changed before clock, the file clock read
// before the command starts (and, unless since is zero, at or after
// since): what a person (or a background process) changed between two
// commands is kept before the next command can destroy it, so that it
// is there to undo; without a session nothing tells which files
// changed, and only the repository's data is kept before a command
// (shim.preRound). Not what is in a git directory (the saver's
// pre-round keeps the repository's data) or in a regenerable one. It
// returns the clock they were kept with ([manager.keep]).
func (m *manager) keepChanged(st *snapshot.Store, clock time.Time, paths []string, since time.Time) time.Time {
	return m.keep(st, clock, m.changedFiles(paths, since))
}

// keep keeps files (absolute paths) in the workspace's index, changed
// before clock, and returns the clock it kept them with. The command has
// not started (the keeper does not have it yet): a file that carries
// clock's own change time was changed before clock was read, in the same
// tick (a person's edit right before the command, an agent's file tool
// then its shell), so the file clock is read again once past it
// ([snapshot.Store.ClockPast]), else [snapshot.Store.Refresh] would
// leave the file to the command's round, which takes it for the
// command's doing and keeps nothing to undo it to.
func (m *manager) keep(st *snapshot.Store, clock time.Time, files []string) time.Time {
	clock = st.ClockPast(clock, files)
	st.Refresh(m.s.Policy.Workspace, files, clock)
	return clock
}

// changedFiles are the files [manager.keepChanged] keeps, as absolute paths.
func (m *manager) changedFiles(paths []string, since time.Time) []string {
	ws := m.s.Policy.Workspace
	var files []string
	n := 0
	var add func(abs string)
	add = func(abs string) {
		if n++; n > maxKeepChanged {
			return
		}
		fi, err := os.Lstat(abs)
		switch {
		case err != nil:
		case fi.IsDir():
			des, _ := os.ReadDir(abs)
			for _, d := range des {
				if !m.leftOut(d.Name()) {
					add(filepath.Join(abs, d.Name()))
				}
			}
		case !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0:
		case since.IsZero() || snapshot.ChangedSince(fi, since):
			files = append(files, abs)
		}
	}
	for _, rel := range paths {
		if !slices.ContainsFunc(strings.Split(rel, "/"), m.leftOut) {
			add(filepath.Join(ws, rel))
		}
	}
	return files
}

// maxKeepChanged bounds the files [manager.keepChanged] looks at.
const maxKeepChanged = 4096

// leftOut reports whether a directory called name is left out of what
// [manager.keepChanged] keeps: a git directory, a regenerable one.
func (m *manager) leftOut(name string) bool {
	if name == ".git" {
		return true
	}
	return slices.ContainsFunc(m.s.Policy.Regenerable, func(s string) bool {
		ok, _ := filepath.Match(s, name)
		return ok
	})
}

// roundEnd is called once the seq-th command has ended, before its end
// is answered (so before its shim exits and another command can start
// in the workspace): a round is due when anything may have changed
// since the last one began, and then marked pending before this returns.
func (m *manager) roundEnd(seq int) {
	c := m.commands[seq]
	delete(m.commands, seq)
	// Commands whose shim is gone without an end (the keeper could not
	// start them) are forgotten.
	for s, o := range m.commands {
		if !snapshot.Running(o.pid, o.pidStart) {
			delete(m.commands, s)
		}
	}
	if c == nil {
		return
	}
	if c.saver {
		// Its saver runs the round once the shim has exited, which is
		// after this: what changes from now on is the next round's.
		m.changes.Clear()
		return
	}
	if m.roundDue() {
		m.changes.Clear()
		if !m.startSaver(c, time.Time{}) {
			m.changes.Taint()
		}
		return
	}
	// The look for shared mappings asks every process's maps (2 to 5
	// ms): off the command's path, under a pending mark that names this
	// process as the saver, which the next command waits for. Under the
	// saving lock too, when no saver holds it: the next command then
	// waits on the lock and goes on once the mark is gone, instead of
	// looking again every millisecond.
	ws := c.round.Workspace
	st := snapshot.Open(m.s.StateDir, c.round.Budgets)
	st.MarkPending(ws, c.pid, c.pidStart, os.Getpid())
	go func() {
		if !lockedLook(st, ws, lookHold, func() bool { return sharedMapping(ws) }, func() { st.DonePending(ws, c.pid, c.pidStart) }) {
			return
		}
		m.changes.Clear()
		if m.startSaver(c, time.Time{}) {
			return // (its mark replaced this one)
		}
		m.changes.Taint()
		st.DonePending(ws, c.pid, c.pidStart)
	}()
}

// lockedLook runs look under ws's saving lock when no one holds it, and
// returns its answer; when that is false, done runs before the lock is
// let go. The lock is let go after hold all the same: a look held up (a
// process's maps that cannot be read now) leaves the next command to
// its own looks at the mark, which give up in time.
func lockedLook(st *snapshot.Store, ws string, hold time.Duration, look func() bool, done func()) bool {
	unlock := func() {}
	if release, locked := st.TryLockPending(ws); locked {
		var once sync.Once
		unlock = func() { once.Do(release) }
		t := time.AfterFunc(hold, unlock)
		defer t.Stop()
	}
	defer unlock()
	if look() {
		return true
	}
	done()
	return false
}

// lookHold bounds how long the look for shared mappings holds the
// store's saving lock (it takes 2 to 5 ms).
const lookHold = 2 * time.Second

// roundDue reports whether a round after a command may find anything:
// the session's watch saw a change, or cannot tell; a mark of the watch
// between commands is waiting for a round; a file the last round kept
// is not as it found it ([snapshot.Store.KeptChanged]). Else
// [manager.roundEnd] looks for a process with a file in the workspace
// mapped shared (its writes raise no event until it lets go of the
// mapping).
func (m *manager) roundDue() bool {
	if m.changes.Dirty() {
		return true
	}
	if _, marked := guard.BelowSince(m.s.StateDir, m.s.Policy.Workspace); marked {
		return true
	}
	if m.rechecked == nil {
		m.rechecked = snapshot.Rechecked{}
	}
	return snapshot.Open(m.s.StateDir, snapshot.Budgets{}).KeptChanged(m.s.Policy.Workspace, m.rechecked)
}

// startSaver starts the saver for command c (with clock, the pre-round
// too) and marks it pending; false when it could not be started.
func (m *manager) startSaver(c *command, clock time.Time) bool {
	r := c.round
	args := []string{r.Workspace, strconv.Itoa(c.pid), c.pidStart, strconv.FormatInt(r.Start, 10), r.Snapshot, r.Dir, r.Command}
	if !clock.IsZero() {
		args = append(args, strconv.FormatInt(clock.UnixNano(), 10))
	}
	cmd := exec.Command("/proc/self/exe", args...)
	cmd.Args[0] = snapshot.SaverRole
	cmd.Env, cmd.Dir = r.Env, "/"
	// In this process's group (reapOrphans leaves it to cmd.Wait), and
	// spared when the session ends (see shutdown): its round completes.
	if err := cmd.Start(); err != nil {
		return false
	}
	snapshot.Open(m.s.StateDir, r.Budgets).MarkPending(r.Workspace, c.pid, c.pidStart, cmd.Process.Pid)
	pid := cmd.Process.Pid
	m.saversMu.Lock()
	if m.savers == nil {
		m.savers = map[int]bool{}
	}
	m.savers[pid] = true
	m.saversMu.Unlock()
	changes := m.changes
	go func() {
		err := cmd.Wait()
		m.saversMu.Lock()
		delete(m.savers, pid)
		m.saversMu.Unlock()
		if err != nil {
			// Not completed: the next command's end starts a round.
			changes.Taint()
		}
	}()
	return true
}

// saver reports whether pid is a saver this manager started.
func (m *manager) saver(pid int) bool {
	m.saversMu.Lock()
	defer m.saversMu.Unlock()
	return m.savers[pid]
}

// sharedMapping reports whether a process this user may look at has a
// file in ws (or below it) mapped shared: a write through such a
// mapping raises no inotify event until the mapping's end (IN_CLOSE_WRITE
// then). Processes whose maps cannot be read are taken as having none.
//
// Each process is asked with the PROCMAP_QUERY ioctl of its maps file
// (Linux 6.11), for its shared, file-backed mappings only: the kernel
// then names those, instead of formatting every mapping of every
// process (3.8 ms a call on the VM, 185 processes). Where the ioctl is
// missing or fails for a process, its maps are read as before.
func sharedMapping(ws string) bool { return sharedMappingBy(ws, true) }

// sharedMappingBy is [sharedMapping], asking with the ioctl only when
// query is true (false: every process's maps read, as on older kernels).
func sharedMappingBy(ws string, query bool) bool {
	des, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	self := strconv.Itoa(os.Getpid())
	prefix := strings.TrimSuffix(ws, "/") + "/"
	buf := make([]byte, 0, 64<<10)
	name := make([]byte, unix.PathMax)
	for _, d := range des {
		pid := d.Name()
		if pid[0] < '0' || pid[0] > '9' || pid == self {
			continue
		}
		// A raw descriptor: os.Open would add fcntl and epoll calls to
		// each of hundreds of processes.
		file := "/proc/" + pid + "/maps"
		fd, err := unix.Open(file, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		found, ok := false, false
		if query && !noProcmapQuery.Load() {
			found, ok = queryShared(fd, prefix, name)
		}
		if ok {
			unix.Close(fd)
		} else {
			f := os.NewFile(uintptr(fd), file)
			found = scanShared(f, prefix, buf)
			f.Close()
		}
		if found {
			return true
		}
	}
	return false
}

// noProcmapQuery is set once the kernel has no PROCMAP_QUERY ioctl.
var noProcmapQuery atomic.Bool

// procmapQuery is the kernel's struct procmap_query (linux/fs.h).
type procmapQuery struct {
	Size        uint64
	QueryFlags  uint64
	QueryAddr   uint64
	VMAStart    uint64
	VMAEnd      uint64
	VMAFlags    uint64
	VMAPageSize uint64
	VMAOffset   uint64
	Inode       uint64
	DevMajor    uint32
	DevMinor    uint32
	VMANameSize uint32
	BuildIDSize uint32
	VMANameAddr uint64
	BuildIDAddr uint64
}

const (
	// procmapQueryIoctl is PROCMAP_QUERY, _IOWR('f', 17, struct procmap_query).
	procmapQueryIoctl = 3<<30 | uint(unsafe.Sizeof(procmapQuery{}))<<16 | 'f'<<8 | 17
	// The query's flags: mappings that may be shared (VM_MAYSHARE, the
	// s of maps), backed by a file, the next one from the address on.
	procmapShared     = 0x08
	procmapNext       = 0x10
	procmapFileBacked = 0x20
)

// queryShared asks, with the PROCMAP_QUERY ioctl on the maps file fd,
// whether one of its process's shared file mappings is of a file whose
// path begins with prefix; name is room for a path. ok is false when the
// ioctl could not tell (then read the maps).
func queryShared(fd int, prefix string, name []byte) (found, ok bool) {
	// The kernel writes the name through an address in the query: name
	// must stay where it is (on the heap, pinned).
	var pin runtime.Pinner
	pin.Pin(&name[0])
	defer pin.Unpin()
	var addr uint64
	for {
		q := procmapQuery{
			Size:        uint64(unsafe.Sizeof(procmapQuery{})),
			QueryFlags:  procmapShared | procmapNext | procmapFileBacked,
			QueryAddr:   addr,
			VMANameSize: uint32(len(name)),
			VMANameAddr: uint64(uintptr(unsafe.Pointer(&name[0]))),
		}
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(procmapQueryIoctl), uintptr(unsafe.Pointer(&q)))
		switch {
		case errno == unix.ENOENT:
			return false, true // no more such mappings
		case errno == unix.ESRCH:
			return false, true // no memory (a kernel thread) or gone: its maps are empty
		case errno == unix.ENOTTY || errno == unix.EINVAL:
			noProcmapQuery.Store(true)
			return false, false
		case errno != 0:
			return false, false
		}
		if q.VMANameSize > uint32(len(name)) || q.VMAEnd <= addr {
			return false, false
		}
		// The name ends in its terminating zero; a file unlinked since
		// has " (deleted)" after its path.
		n := name[:q.VMANameSize]
		if i := bytes.IndexByte(n, 0); i >= 0 {
			n = n[:i]
		}
		if bytes.HasPrefix(n, []byte(prefix)) {
			return true, true
		}
		addr = q.VMAEnd
	}
}

// scanShared reads the maps file f for a shared mapping whose line
// names a path that begins with prefix; buf is room to read in.
func scanShared(f *os.File, prefix string, buf []byte) bool {
	sc := bufio.NewScanner(f)
	sc.Buffer(buf, 1<<20)
	needle := []byte(" " + prefix)
	for sc.Scan() {
		// ADDR PERMS OFFSET DEV INODE PATH: PERMS "rw-s", the fourth
		// letter s for shared (p: private, copied on write).
		line := sc.Bytes()
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 || sp+5 > len(line) || line[sp+4] != 's' {
			continue
		}
		if bytes.Contains(line, needle) {
			return true
		}
	}
	return false
}
