package platform

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

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
	// bwrap's standard error is a pipe of this process's, through the
	// trampoline (see trampoline_linux.go): what a failed start prints
	// is not the command's. Without it, as bwrap has it.
	tramp := ""
	if filepath.IsAbs(path) {
		tramp = trampoline(b.stateDir)
		if tramp != "" && b.policy.hides(tramp) {
			tramp = ""
		}
		if testTrampoline != "" {
			tramp = testTrampoline
		}
	}
	a, err := b.startArgs(path, argv, env, terminal, tramp)
	if err != nil {
		proxy.stop()
		release()
		return nil, err
	}
	var s *spawn
	s = &spawn{
		prepare: func() error {
			if bwrapStarting != nil {
				bwrapStarting()
			}
			scopeThread()
			return nil
		},
		path: b.probe.Path, argv: a.argv, env: env, stdin: stdin, stderr: a.errW,
		sys:    groupAttr(&syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}, pgid),
		limits: b.limits(),
		signal: func(pid int, sig syscall.Signal) { forwardOne(sig, pid, terminal) },
		status: bwrapStatus,
		// bwrap has its descriptors from the fork on: this process's
		// copies of them (the directories it binds among them) are not
		// kept while the command runs.
		forked: func() { a.closeTheirs() },
		// bwrap took its block descriptor's byte: it sets up nothing
		// more, and is not started again.
		settled: func() bool { return !a.unread() },
		finish:  func() { a.flush(); a.close(); proxy.stop(); release() },
	}
	// bwrap reads its block descriptor once every mount is made, just
	// before it runs the program. Still unread when bwrap failed, it
	// says that the program never ran: a file in the policy vanished
	// while bwrap mounted (a socket another program removed from /tmp),
	// and a fresh command line, which leaves out what is gone, can
	// start it safely.
	s.again = func(ws syscall.WaitStatus) ([]string, bool) {
		if !ws.Exited() || ws.ExitStatus() != 1 {
			return nil, false
		}
		if !a.unread() {
			// bwrap ran the program, unless what it could not execute
			// was the trampoline (a sandbox where that file cannot be
			// executed): then without it.
			if tramp == "" || a.errs == nil || !bytes.Contains(a.errs.end(), []byte("bwrap: execvp "+tramp+":")) {
				return nil, false
			}
			tramp = ""
		}
		next, err := b.startArgs(path, argv, env, terminal, tramp)
		if err != nil {
			return nil, false // (a, and what bwrap printed, at the end)
		}
		// What the failed bwrap printed goes with it.
		a.close()
		a = next
		s.stderr = a.errW
		return a.argv, true
	}
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

// testTrampoline, when set (by tests), is the trampoline's path.
var testTrampoline string

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
	// errW is bwrap's standard error with the trampoline: the write end
	// of a pipe, close-on-exec here; -1 without (bwrap has this
	// process's).
	errW int
	// errs reads the other end, from the start to the end of bwrap.
	errs *errReader
}

// startArgs makes bwrap's command line for Start. With tramp, the path
// of the trampoline, bwrap's standard error is a pipe ([bwrapStart.errW])
// and bwrap runs the trampoline, which gives the program this process's
// standard error and runs it; with none (or when a descriptor for it
// cannot be had), as bwrap has it.
func (b *bwrapBackend) startArgs(path string, argv, env []string, terminal bool, tramp string) (*bwrapStart, error) {
	a := &bwrapStart{block: -1, blockRead: -1, errW: -1}
	if tramp != "" {
		// This process's standard error, for the program: at the lowest
		// number open nowhere here, inherited across the exec (as the
		// data descriptors are) and closed here right after the fork.
		// The trampoline closes it before it runs the program, which
		// then has exactly the descriptors it had without it.
		k, err := unix.FcntlInt(2, unix.F_DUPFD, 3)
		if err == nil {
			var p [2]int
			if unix.Pipe2(p[:], unix.O_CLOEXEC) == nil {
				unix.SetNonblock(p[0], true)
				a.errW, a.errs = p[1], readErrs(p[0])
				a.fds = append(a.fds, k)
				c := *b
				c.tramp, c.trampFD = tramp, k
				b = &c
			} else {
				unix.Close(k)
			}
		}
	}
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
	if a.errW >= 0 {
		unix.Close(a.errW)
		a.errW = -1
	}
}

// close closes the descriptors of a, and drops what bwrap printed and
// was not flushed.
func (a *bwrapStart) close() {
	a.closeTheirs()
	if a.errs != nil {
		a.errs.close()
		a.errs = nil
	}
	for _, fd := range []*int{&a.block, &a.blockRead} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

// flush writes what bwrap printed on its standard error (its own
// errors: the program has this process's) to this process's, once bwrap
// has ended.
func (a *bwrapStart) flush() {
	if a.errs == nil {
		return
	}
	if data := a.errs.end(); len(data) > 0 {
		os.Stderr.Write(data)
	}
	a.errs.close()
	a.errs = nil
}

// maxBwrapErrs bounds what is kept of bwrap's standard error; the rest
// is read and dropped, so that bwrap never waits on a full pipe.
const maxBwrapErrs = 64 << 10

// An errReader reads bwrap's standard error to its end.
type errReader struct {
	f    *os.File
	data []byte
	done chan struct{}
}

// readErrs reads descriptor fd (non-blocking) on a goroutine of its own.
func readErrs(fd int) *errReader {
	e := &errReader{f: os.NewFile(uintptr(fd), "bwrap-stderr"), done: make(chan struct{})}
	go func() {
		defer close(e.done)
		buf := make([]byte, 4096)
		for {
			n, err := e.f.Read(buf)
			e.data = append(e.data, buf[:min(n, maxBwrapErrs-len(e.data))]...)
			if err != nil {
				return
			}
		}
	}()
	return e
}

// end returns what was read, once bwrap has ended: to the end of the
// pipe, or for at most a second more (a process that inherited the
// write end, which bwrap's never does, keeps it open).
func (e *errReader) end() []byte {
	e.f.SetReadDeadline(time.Now().Add(time.Second))
	<-e.done
	return e.data
}

// close stops the reading and drops what was read.
func (e *errReader) close() {
	e.f.Close()
	<-e.done
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
