package guard

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// WatchBetween watches the guarded places of policy p's workspace while
// no command of a session runs but something a command left still does
// (a dev server, a watcher): such a process may write a place the host
// runs from (.envrc, .npmrc, .vscode/tasks.json, a hook) at any time, and
// without a watch what it wrote would stay on disk until the next
// command, long enough for the person's own command to run it. A change
// to a place the patterns name is put back at once, with inotify on the
// directories that hold them (and on the guarded directories
// themselves), and the lines saying so are kept for the next command
// ([keepLines]). A write through a shared mapping makes no event: the
// guarded files themselves are looked at too, every [lookEvery], and
// one found otherwise than the last look is put back the same way
// ([look]). [Between.Stop] ends the watch: no reconcile runs once
// it returns. The places below the root are watched too ([watchBelow]),
// for what is written there from since on (the start of the command
// that left the process running).
//
// A watch that cannot be set (no inotify instance left: the kernel's
// limit per user, which a sandboxed process can use up; no watch left;
// a directory on the way that cannot be read) is no watch:
// [Between.Failed] then says why, at once or when it happens, and the
// caller must not let what was left running run on unwatched.
func WatchBetween(stateDir string, p *platform.Policy, since time.Time) *Between {
	b := &Between{failed: make(chan error, 1)}
	fail := func(err error) {
		select {
		case b.failed <- err:
		default:
		}
	}
	below, err := startBelow(stateDir, p, since, fail)
	if err != nil {
		fail(err)
	}
	top := watchTop(stateDir, p, fail)
	b.stop = func() {
		top()
		below()
	}
	return b
}

// A Between is a watch of [WatchBetween].
type Between struct {
	stop   func()
	failed chan error
}

// Stop ends the watch: no reconcile runs once it returns.
func (b *Between) Stop() { b.stop() }

// Failed delivers why a place could not be watched, once.
func (b *Between) Failed() <-chan error { return b.failed }

// watchTop watches the places the ledger keeps (see [WatchBetween]);
// fail is told when one cannot be watched.
func watchTop(stateDir string, p *platform.Policy, fail func(error)) (stop func()) {
	ws := p.Workspace
	if ws == "" || len(p.Guarded) == 0 {
		return func() {}
	}
	in, err := inotifyInit(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		fail(fmt.Errorf("no inotify instance is left for the guarded places of %s: %w", printable(ws), err))
		return func() {}
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC); err != nil {
		unix.Close(in)
		fail(err)
		return func() {}
	}
	// What makes or changes a place: a removal runs nothing, and is
	// left to the next command (a person removing the workspace must not
	// see its hooks put back as they go).
	const events = unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_MOVED_TO | unix.IN_CREATE | unix.IN_ATTRIB | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR
	// watched maps a watch descriptor to the names in its directory that
	// are guarded ("" for every name: a guarded directory), or that lead
	// to a guarded place whose directory does not exist yet (.vscode,
	// for .vscode/tasks.json).
	watched := map[int32][]string{}
	dirOf := map[int32]string{}
	var watchAs func(d, name string, events uint32) bool
	watch := func(d, name string) bool {
		return watchAs(d, name, events)
	}
	// A guarded file is watched itself too, by its inode: a write through
	// a hard link of another name (ln .git/config .git/foo, or one in a
	// directory not watched) makes no event named for the place in its
	// directory, but does on the file, and so does making the link (its
	// count). A file put back is a new inode, watched by the next add.
	const fileEvents = unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_DONT_FOLLOW
	watchAs = func(d, name string, events uint32) bool {
		wd, err := inotifyAddWatch(in, d, events)
		if err != nil && err != unix.ENOENT && err != unix.ENOTDIR {
			// (Gone meanwhile, or not a directory: nothing to watch
			// there.)
			fail(fmt.Errorf("cannot watch %s: %w", printable(d), err))
		}
		if err != nil || slices.Contains(watched[int32(wd)], name) {
			return false
		}
		watched[int32(wd)] = append(watched[int32(wd)], name)
		dirOf[int32(wd)] = d
		return true
	}
	places := topPlaces(stateDir, p)
	// files are the regular files at the places as the last add found
	// them, and looks what they were then (see [look]).
	var files []string
	var looks map[string]look
	// add sets the watches for the places as they are now, and reports
	// whether it set any new one (a directory on the way was made).
	add := func() bool {
		added := false
		files = files[:0]
		for _, s := range spots(ws, places) {
			if s.file {
				files = append(files, s.path)
				added = watchAs(s.path, "", fileEvents) || added
			} else {
				added = watch(s.path, s.name) || added
			}
		}
		return added
	}
	add()
	relevant := func(wd int32, name string) bool {
		for _, pat := range watched[wd] {
			if pat == "" {
				return true
			}
			if ok, _ := filepath.Match(pat, name); ok {
				return true
			}
		}
		return false
	}
	// settle puts the places back, and reports whether it must again.
	// The files are looked at before the reconcile, and that look stands
	// only if nothing changed them since: what a process wrote between a
	// put-back and a look taken after it would be what later looks
	// compare with. A directory on the way made is watched now, and
	// what was written in it meanwhile put back next.
	settle := func() (again bool) {
		looks = lookAll(files)
		reconcileNow(stateDir, ws)
		return add() || lookedChanged(looks)
	}
	// What was written after the command's own reconcile and before the
	// watches were set: put back now, before the command's shim returns
	// (not later, when a person may be removing the workspace).
	again := settle()
	var mu sync.Mutex // held by a reconcile
	stopped := false
	go func() {
		defer unix.Close(in)
		defer unix.Close(wake[0])
		buf := make([]byte, 64<<10)
		fds := []unix.PollFd{{Fd: int32(in), Events: unix.POLLIN}, {Fd: int32(wake[0]), Events: unix.POLLIN}}
		hit := again
		looked := time.Now()
		for {
			again = false
			if hit {
				mu.Lock()
				if !stopped {
					again = settle()
				}
				mu.Unlock()
			}
			wait := max(lookEvery-time.Since(looked), 0)
			if again {
				wait = 0
			}
			if _, err := unix.Poll(fds, int(wait.Milliseconds())); err != nil && err != unix.EINTR {
				return
			}
			if fds[1].Revents != 0 {
				return
			}
			hit = again
			for {
				n, err := unix.Read(in, buf)
				if n <= 0 || err != nil {
					break
				}
				for off := 0; off+unix.SizeofInotifyEvent <= n; {
					ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
					name := bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00")
					// A change of attributes is also what a removal
					// makes (the link count): only one of a name still
					// there counts.
					gone := false
					if ev.Mask&unix.IN_ATTRIB != 0 && ev.Mask&(unix.IN_CREATE|unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_MOVED_TO) == 0 {
						var st unix.Stat_t
						gone = unix.Lstat(filepath.Join(dirOf[ev.Wd], string(name)), &st) != nil
					}
					// (IN_IGNORED and IN_DELETE_SELF come whatever the
					// mask: a watched directory removed.)
					made := ev.Mask&(events&^(unix.IN_DONT_FOLLOW|unix.IN_ONLYDIR)) != 0
					hit = hit || ev.Mask&unix.IN_Q_OVERFLOW != 0 || made && !gone && relevant(ev.Wd, string(name))
					off += unix.SizeofInotifyEvent + int(ev.Len)
				}
			}
			// A write through a shared mapping makes no event: the
			// files themselves, looked at (however many events come).
			if time.Since(looked) >= lookEvery {
				looked = time.Now()
				hit = lookedChanged(looks) || hit
			}
		}
	}()
	// (Once: a second call must not close a descriptor opened since
	// with the same number.)
	return sync.OnceFunc(func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		unix.Write(wake[1], []byte{0})
		unix.Close(wake[1])
	})
}

// lookEvery is how often the watch between commands looks at the
// guarded files themselves ([look]), for what a shared mapping wrote.
const lookEvery = 250 * time.Millisecond

// reconcileNow puts ws's guarded places back to the trusted state, now,
// while a ticket is held, and keeps the lines for the next command.
func reconcileNow(stateDir, ws string) {
	b, err := open(stateDir, ws, false)
	if err != nil {
		return
	}
	defer b.close()
	if len(b.l.Active) == 0 {
		return
	}
	lines := b.reconcile()
	b.save()
	keepLines(stateDir, ws, lines) // under the ledger's lock: the next reconcile sees them
}

// hasMeta reports whether a path has glob characters.
func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }
