package guard

import (
	"bytes"
	"os"
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
// ([keepLines]). stop ends the watch: no reconcile runs once it returns.
// The places below the root are watched too ([watchBelow]), for what is
// written there from since on (the start of the command that left the
// process running).
func WatchBetween(stateDir string, p *platform.Policy, since time.Time) (stop func()) {
	below := watchBelow(stateDir, p, since)
	top := watchTop(stateDir, p)
	return func() {
		top()
		below()
	}
}

// watchTop watches the places the ledger keeps (see [WatchBetween]).
func watchTop(stateDir string, p *platform.Policy) (stop func()) {
	ws := p.Workspace
	if ws == "" || len(p.Guarded) == 0 {
		return func() {}
	}
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return func() {}
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC); err != nil {
		unix.Close(in)
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
	watch := func(d, name string) bool {
		wd, err := unix.InotifyAddWatch(in, d, events)
		if err != nil || slices.Contains(watched[int32(wd)], name) {
			return false
		}
		watched[int32(wd)] = append(watched[int32(wd)], name)
		dirOf[int32(wd)] = d
		return true
	}
	// (And the person's own repositories below the root, which the
	// ledger keeps as it keeps the workspace's.)
	places := slices.Concat(p.Guarded, p.GitConfig, ownPlaces(stateDir, ws))
	// add sets the watches for the places as they are now, and reports
	// whether it set any new one (a directory on the way was made).
	add := func() bool {
		added := false
		for _, pat := range places {
			if !platform.Within(pat, ws) {
				continue
			}
			if strings.Contains(pat, "**") {
				// (A submodule's git directory at any depth: those there
				// now, each watched as a place of its own.)
				for path, kind := range snapshotNames(ws, pat) {
					added = watch(filepath.Dir(path), filepath.Base(path)) || added
					if kind == 'd' {
						added = watch(path, "") || added
					}
				}
				continue
			}
			dirs, _ := filepath.Glob(filepath.Dir(pat))
			for _, d := range dirs {
				added = watch(d, filepath.Base(pat)) || added
			}
			if len(dirs) == 0 && !hasMeta(filepath.Dir(pat)) {
				// The nearest directory that exists, for the name of the
				// next one on the way.
				d := filepath.Dir(pat)
				for d != ws && platform.Within(d, ws) {
					up := filepath.Dir(d)
					if fi, err := os.Lstat(up); err == nil && fi.IsDir() {
						added = watch(up, filepath.Base(d)) || added
						break
					}
					d = up
				}
			}
			inside, _ := filepath.Glob(pat)
			for _, d := range inside {
				if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
					added = watch(d, "") || added
				}
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
	// What was written after the command's own reconcile and before the
	// watches were set: put back now, before the command's shim returns
	// (not later, when a person may be removing the workspace).
	reconcileNow(stateDir, ws)
	var mu sync.Mutex // held by a reconcile
	stopped := false
	go func() {
		defer unix.Close(in)
		defer unix.Close(wake[0])
		buf := make([]byte, 64<<10)
		fds := []unix.PollFd{{Fd: int32(in), Events: unix.POLLIN}, {Fd: int32(wake[0]), Events: unix.POLLIN}}
		hit := false
		for {
			if hit {
				mu.Lock()
				if !stopped {
					reconcileNow(stateDir, ws)
					// A directory on the way made: watched now, and what
					// was written in it meanwhile put back.
					if add() {
						reconcileNow(stateDir, ws)
					}
				}
				mu.Unlock()
			}
			if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
				return
			}
			if fds[1].Revents != 0 {
				return
			}
			hit = false
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
