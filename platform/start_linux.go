package platform

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Start runs the program under bwrap as a child of this process, with
// stdin as its standard input. Signals given to [Child.Forward] go to the
// shell inside the sandbox, as with Exec.
func (b *bwrapBackend) Start(path string, argv, env []string, stdin *os.File) (*Child, error) {
	return b.start(path, argv, env, stdin, 0)
}

// start is Start, in process group pgid when it is above 0 ([StartIn]).
func (b *bwrapBackend) start(path string, argv, env []string, stdin *os.File, pgid int) (*Child, error) {
	ScreenInherited()
	stdin = screenStdin(stdin)
	b.policy.SearchSockets()
	terminal := !ownGroup()
	b, release, err := b.withLayers()
	if err != nil {
		return nil, err
	}
	b, proxy, env, err := b.withProxy(env)
	if err != nil {
		release()
		return nil, err
	}
	a, err := b.startArgs(path, argv, env, terminal)
	if err != nil {
		proxy.stop()
		release()
		return nil, err
	}
	s := &spawn{
		prepare: func() error {
			if bwrapStarting != nil {
				bwrapStarting()
			}
			scopeThread()
			return nil
		},
		path: b.probe.Path, argv: a.argv, env: env, stdin: stdin,
		sys:    groupAttr(&syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}, pgid),
		limits: b.limits(),
		signal: func(pid int, sig syscall.Signal) { forwardOne(sig, pid, terminal) },
		status: bwrapStatus,
		// bwrap has its descriptors from the fork on: this process's
		// copies of them (the directories it binds among them) are not
		// kept while the command runs.
		forked: func() { a.closeTheirs() },
		finish: func() { a.close(); proxy.stop(); release() },
	}
	// bwrap reads its block descriptor once every mount is made, just
	// before it runs the program. Still unread when bwrap failed, it
	// says that the program never ran: a file in the policy vanished
	// while bwrap mounted (a socket another program removed from /tmp),
	// and a fresh command line, which leaves out what is gone, can
	// start it safely.
	s.again = func(ws syscall.WaitStatus) ([]string, bool) {
		if !ws.Exited() || ws.ExitStatus() != 1 || !a.unread() {
			return nil, false
		}
		a.close()
		next, err := b.startArgs(path, argv, env, terminal)
		if err != nil {
			return nil, false // (a, closed, is closed again at the end)
		}
		a = next
		return a.argv, true
	}
	s.ran = func() bool { return !a.unread() }
	c, err := s.start()
	if err != nil {
		a.close()
		proxy.stop()
		release()
	}
	return c, err
}

// bwrapStarting, when set (by tests), runs just before bwrap starts.
var bwrapStarting func()

// bwrapStart is one command line for bwrap, with the descriptors it
// reads: the seccomp filter, empty files, and the block descriptor
// whose byte bwrap takes once the sandbox is set up.
type bwrapStart struct {
	argv  []string
	fds   []int // bwrap's, closed once it runs
	block int   // this process's end of the block pipe, to look at
	// blockRead is bwrap's end of the block pipe, kept open here until
	// the end: the byte stays countable whatever bwrap did.
	blockRead int
}

// startArgs makes bwrap's command line for Start.
func (b *bwrapBackend) startArgs(path string, argv, env []string, terminal bool) (*bwrapStart, error) {
	a := &bwrapStart{block: -1, blockRead: -1}
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		return nil, fmt.Errorf("cannot make a pipe for bwrap: %w", err)
	}
	unix.CloseOnExec(p[1])
	if _, err := unix.Write(p[1], []byte{0}); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, fmt.Errorf("cannot write to bwrap's pipe: %w", err)
	}
	// This process keeps the write end: bwrap's read never sees an end
	// of file before the byte, and the byte stays countable here.
	a.block, a.blockRead = p[1], p[0]
	args, err := b.args(path, argv, logicalDir(envLookup(env)("PWD")), !terminal, func(data []byte) (int, error) {
		fd, err := dataFD(data)
		if err == nil {
			a.fds = append(a.fds, fd)
		}
		return fd, err
	}, func(path string) (int, error) {
		fd, err := openUnfollowed(path)
		if err == nil {
			a.fds = append(a.fds, fd)
		}
		return fd, err
	})
	if err != nil {
		a.close()
		return nil, err
	}
	// The block descriptor goes first: bwrap's options end at "--".
	a.argv = slices.Insert(args, 1, "--block-fd", strconv.Itoa(p[0]))
	return a, nil
}

// unread reports whether the block pipe still holds its byte: bwrap
// never got to the point of running the program.
func (a *bwrapStart) unread() bool {
	n, err := unix.IoctlGetInt(a.block, unix.TIOCINQ)
	return err == nil && n > 0
}

// closeTheirs closes this process's copies of bwrap's descriptors.
func (a *bwrapStart) closeTheirs() {
	for _, fd := range a.fds {
		unix.Close(fd)
	}
	a.fds = nil
}

// close closes the descriptors of a.
func (a *bwrapStart) close() {
	a.closeTheirs()
	for _, fd := range []*int{&a.block, &a.blockRead} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

// forwardOne passes one signal to the shell inside bwrap's sandbox; see
// [forward].
func forwardOne(sig syscall.Signal, bwrap int, terminal bool) {
	if terminal && (sig == syscall.SIGINT || sig == syscall.SIGQUIT || sig == syscall.SIGWINCH) {
		return
	}
	if shell := sandboxShell(bwrap); shell > 0 && !zombie(shell) {
		syscall.Kill(shell, sig)
	} else {
		syscall.Kill(bwrap, sig)
	}
}

// Start confines a thread of its own (see the top of landlock_linux.go),
// then starts the program from it, as a child with stdin as its standard
// input. This process and its other threads stay unconfined. The
// resource limits go on the child alone, once it has started.
func (l *landlockBackend) Start(path string, argv, env []string, stdin *os.File) (*Child, error) {
	return l.start(path, argv, env, stdin, 0)
}

// start is Start, in process group pgid when it is above 0 ([StartIn]).
// The program dies with the thread that started it. With the network
// allowlist, it runs behind the forwarder for a proxy this process
// serves until it ends.
func (l *landlockBackend) start(path string, argv, env []string, stdin *os.File, pgid int) (*Child, error) {
	ScreenInherited()
	stdin = screenStdin(stdin)
	l.searchSockets()
	return l.startIn(path, argv, env, "", stdin, pgid)
}

// startIn is start, in directory dir ("" for this one; only through the
// setup step in a user namespace).
func (l *landlockBackend) startIn(path string, argv, env []string, dir string, stdin *os.File, pgid int) (*Child, error) {
	l, release, err := l.withLayers()
	if err != nil {
		return nil, err
	}
	l, proxy, path, argv, env, err := l.withProxy(path, argv, env)
	if err != nil {
		release()
		return nil, err
	}
	var s *spawn
	switch {
	case l.userns:
		if s, err = l.usernsSpawn(path, argv, env, dir, stdin, pgid); err != nil {
			proxy.stop()
			release()
			return nil, err
		}
	case dir != "":
		proxy.stop()
		release()
		return nil, errors.New("cordon: a directory for a program started without a user namespace")
	default:
		s = &spawn{
			prepare: l.confineThread,
			path:    path, argv: argv, env: env, stdin: stdin,
			sys:    groupAttr(&syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}, pgid),
			limits: l.programLimits(argv),
		}
	}
	s.finish = func() {
		// Not on this thread, which may be confined: from another.
		done := make(chan struct{})
		go func() { proxy.stop(); release(); close(done) }()
		<-done
	}
	c, err := s.start()
	if err != nil {
		proxy.stop()
		release()
	}
	if errno := syscall.Errno(0); l.userns && errors.As(err, &errno) {
		// The fork failed: the setup's own errors are sentences.
		err = fmt.Errorf("%w (making the sandbox's user namespace; cordon sandbox says whether this system allows them)", err)
	}
	return c, err
}

// StartIn is b.Start, with the program in process group pgid (of this
// session) when pgid is above 0: a process that starts programs on
// another's behalf (the guard) puts them in that process's group, so
// that the terminal and job control see them where they would have been.
func StartIn(b Backend, pgid int, path string, argv, env []string, stdin *os.File) (*Child, error) {
	switch b := b.(type) {
	case *bwrapBackend:
		return b.start(path, argv, env, stdin, pgid)
	case *landlockBackend:
		return b.start(path, argv, env, stdin, pgid)
	case direct:
		return startDirect(path, argv, env, stdin, pgid)
	}
	return b.Start(path, argv, env, stdin)
}

// ForwardTo passes signal sig to program pid started by backend name
// ([Child.Pid]), as [Child.Forward] would from its parent: into bwrap's
// sandbox to its shell; to the program alone otherwise, except for a
// keyboard signal that reached it from the terminal already.
func ForwardTo(name string, pid int, sig syscall.Signal) {
	terminal := !ownGroup()
	if name == BackendBwrap {
		forwardOne(sig, pid, terminal)
		return
	}
	if terminal && (sig == syscall.SIGINT || sig == syscall.SIGQUIT || sig == syscall.SIGWINCH) {
		return
	}
	syscall.Kill(pid, sig)
}

// LimitMain sets the limits args give and execs the program; it returns
// only on failure.
func LimitMain(args []string) int {
	if len(args) < 8 || args[1] != "limits" {
		fmt.Fprintln(os.Stderr, "cordon: bad arguments for setting limits")
		return 126
	}
	var v [4]uint64
	for i := range v {
		v[i], _ = strconv.ParseUint(args[2+i], 10, 64)
	}
	err := execLimited(args[6], args[7:], os.Environ(), Limits{CPU: v[0], FileSize: v[1], Files: v[2], Memory: v[3]})
	fmt.Fprintf(os.Stderr, "cordon: %v\n", err)
	return 126
}
