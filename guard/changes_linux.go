package guard

import (
	"bytes"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// Changes watches a session's workspace below its root for the whole
// session (inotify on every directory the walk goes through, as the
// watch between commands does), only to tell whether anything there may
// have changed since a command's end: the next command's end walks the
// workspace ([CheckBelow]) only then, so that a command that changed
// nothing below the root costs a read of the queued events, not a walk.
type Changes struct {
	w     *belowWatch
	ev    sync.Mutex // held while events are read and looked at
	dirty bool
	wake  int
	stop  func()
}

// WatchChanges starts watching p's workspace for changes below its root
// from since on (the first command's start); nil when there is nothing
// to watch or no watch can be made (then every end walks).
func WatchChanges(p *platform.Policy, since time.Time) *Changes {
	if p.Workspace == "" || !hasBelowEntries(p.RootGuarded) {
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
	c := &Changes{}
	w := &belowWatch{ws: p.Workspace, entries: p.RootGuarded, skip: p.Regenerable, since: since, in: in, dirs: map[int32]string{}, gitDirs: map[int32]string{}}
	mark := func(string) { c.dirty = true }
	w.found, w.newRepo, w.newBare = mark, mark, mark
	// A place in a directory changed since (moved in with it, before the
	// first walk got there) counts: the walk at the end asks git.
	w.clean = func(string) bool { return false }
	w.setRoots(p.Nested)
	c.w = w
	// (Held until the first walk is done: an end before it waits.)
	c.ev.Lock()
	go func() {
		defer unix.Close(in)
		defer unix.Close(wake[0])
		w.add(".", 0, false)
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
			c.w.event(ev.Wd, ev.Mask, name)
		}
	}
	if c.w.relinks {
		c.w.relinks = false
		c.w.recheckLinks()
	}
}

// Changed reports whether anything below the root may have changed
// since the last call (or the watch's start): the events queued until
// now are read first. Always true where the watch does not see
// everything (more directories than it holds, events lost) or has
// stopped.
func (c *Changes) Changed() bool {
	if c == nil {
		return true
	}
	c.ev.Lock()
	defer c.ev.Unlock()
	if c.w.stopped.Load() {
		return true
	}
	c.read()
	changed := c.dirty || c.w.partial
	c.dirty = false
	return changed
}

// Stop ends the watch.
func (c *Changes) Stop() {
	if c != nil {
		c.stop()
	}
}
