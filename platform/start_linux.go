package platform

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Start runs the program under bwrap as a child of this process, with
// stdin as its standard input. Signals given to [Child.Forward] go to the
// shell inside the sandbox, as with Exec; intruders are moved aside when
// it ends.
func (b *bwrapBackend) Start(path string, argv, env []string, stdin *os.File) (*Child, error) {
	terminal := !ownGroup()
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	args, err := b.args(path, argv, logicalDir(envLookup(env)("PWD")), !terminal, func(data []byte) (int, error) {
		fd, err := dataFD(data)
		if err == nil {
			fds = append(fds, fd)
		}
		return fd, err
	})
	if err != nil {
		return nil, err
	}
	s := &spawn{
		prepare: func() error { scopeThread(); return nil },
		path:    b.probe.Path, argv: args, env: env, stdin: stdin,
		sys:     &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: !terminal},
		started: func(pid int) error { return limitProcess(pid, b.policy.Limits) },
		signal:  func(pid int, sig syscall.Signal) { forwardOne(sig, pid, terminal) },
		status:  bwrapStatus,
		finish:  func() { removeIntruders(b.policy) },
	}
	return s.start()
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
	s := &spawn{
		prepare: l.confineThread,
		path:    path, argv: argv, env: env, stdin: stdin,
		sys:     &syscall.SysProcAttr{Setpgid: ownGroup()},
		started: func(pid int) error { return limitProcess(pid, l.p.Limits) },
	}
	return s.start()
}
