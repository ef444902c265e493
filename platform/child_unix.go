//go:build !windows

package platform

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// A spawn says how a backend starts a child: [spawn.start] runs it on a
// goroutine locked to an OS thread of its own, from start to end.
type spawn struct {
	// prepare runs on the locked thread before the program starts: it
	// may confine that thread, which the program then inherits. nil does
	// nothing.
	prepare func() error
	// path and argv are what is run (bwrap, for the bwrap backend).
	path string
	argv []string
	env  []string
	// stdin is the program's standard input.
	stdin *os.File
	// stderr is the descriptor that is the program's standard error
	// when above 2 (bwrap's, a pipe of this process's); else this
	// process's.
	stderr int
	// sys are the process attributes (process group, parent death
	// signal).
	sys *syscall.SysProcAttr
	// forked runs right after the fork, whether it worked or not
	// (closes the child's ends of descriptors); nil does nothing.
	forked func()
	// started runs once the program has started (resource limits); an
	// error kills it.
	started func(pid int) error
	// limits are set before the program runs: it is started through
	// this binary re-executed as [LimitRole], which sets them and execs
	// it (set from outside once it runs, a limit comes too late for its
	// first instructions).
	limits Limits
	// signal passes a signal to the started program; nil sends it to
	// pid, or to its process group when sys gives it one.
	signal func(pid int, sig syscall.Signal)
	// status turns the wait status into the program's (bwrap's 128+N
	// back into a death by signal); nil keeps it.
	status func(syscall.WaitStatus) syscall.WaitStatus
	// finish runs after the program has ended.
	finish func()
	// again, when not nil, says whether a program that ended with ws
	// never got to run what it was started for (bwrap failed to set up
	// the sandbox because a file vanished meanwhile), and gives the
	// argv to start it with again. At most [maxAgain] times.
	again func(ws syscall.WaitStatus) ([]string, bool)
	// settled, with again, reports whether the program started can no
	// longer be started again (bwrap has set up its sandbox): it is
	// asked every millisecond until then, on the thread that started it.
	settled func() bool
}

// maxAgain bounds how often a program is started again (spawn.again).
const maxAgain = 3

// start starts the program and returns at once; the program is waited
// for on the same thread, which ends with it. The thread is never handed
// back to the Go scheduler: it may be confined (Landlock), and bwrap's
// --die-with-parent follows the thread that started it.
func (s *spawn) start() (*Child, error) {
	started := make(chan error, 1)
	c := &Child{done: make(chan childEnd, 1), settled: make(chan struct{})}
	settled := false
	settle := func() {
		if !settled {
			settled = true
			close(c.settled)
		}
	}
	pids := make(chan int, 1)
	var current atomic.Int64 // the pid signals go to: it changes when started again
	// Never unlocked: see above.
	goLocked(func() {
		defer settle()
		pid, err := s.run(started)
		if err != nil {
			return
		}
		current.Store(int64(pid))
		pids <- pid
		var ws syscall.WaitStatus
		for n := 0; ; n++ {
			if s.again == nil || s.settled == nil || n == maxAgain {
				settle() // never started again
			}
			ended := false
			for !settled && !ended {
				// Until it has started for good, or ended.
				var wpid int
				wpid, err = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
				switch {
				case err == syscall.EINTR:
					continue
				case err != nil || wpid == pid:
					ended = true
				case s.settled():
					settle()
				default:
					time.Sleep(time.Millisecond)
				}
			}
			for !ended {
				_, err = syscall.Wait4(pid, &ws, 0, nil)
				ended = err != syscall.EINTR
			}
			if err != nil || s.again == nil || n == maxAgain {
				break
			}
			argv, ok := s.again(ws)
			if !ok {
				break
			}
			s.argv = argv
			retry := make(chan error, 1)
			if pid, err = s.run(retry); err != nil {
				c.done <- childEnd{code: 126, err: err}
				return
			}
			current.Store(int64(pid))
		}
		if s.finish != nil {
			s.finish()
		}
		if err != nil {
			c.done <- childEnd{code: 126, err: fmt.Errorf("cannot wait for %s: %w", s.path, err)}
			return
		}
		if s.status != nil {
			ws = s.status(ws)
		}
		c.done <- childEnd{code: shellStatus(ws), raw: uint32(ws)}
	})
	if err := <-started; err != nil {
		return nil, err
	}
	c.pid = <-pids
	c.forward = func(sig os.Signal) {
		ss, ok := sig.(syscall.Signal)
		if !ok {
			return
		}
		pid := int(current.Load())
		switch {
		case s.signal != nil:
			s.signal(pid, ss)
		case s.sys != nil && s.sys.Setpgid && s.sys.Pgid == 0:
			syscall.Kill(-pid, ss)
		case ss == syscall.SIGINT || ss == syscall.SIGQUIT:
			// The same process group as cordon: a terminal's keyboard
			// signal reached the program already.
			if !IsTerminal(0) && !IsTerminal(1) && !IsTerminal(2) {
				syscall.Kill(pid, ss)
			}
		default:
			syscall.Kill(pid, ss)
		}
	}
	return c, nil
}

// run prepares the thread and starts the program, reporting on started.
func (s *spawn) run(started chan<- error) (int, error) {
	if s.prepare != nil {
		if err := s.prepare(); err != nil {
			started <- err
			return 0, err
		}
	}
	path, argv := s.path, s.argv
	if s.limits != (Limits{}) {
		l := s.limits
		path = "/proc/self/exe"
		argv = append([]string{LimitRole, "limits", strconv.FormatUint(l.CPU, 10), strconv.FormatUint(l.FileSize, 10),
			strconv.FormatUint(l.Files, 10), strconv.FormatUint(l.Memory, 10), s.path}, s.argv...)
	}
	stderr := uintptr(2)
	if s.stderr > 2 {
		stderr = uintptr(s.stderr)
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env: s.env, Files: []uintptr{s.stdin.Fd(), 1, stderr}, Sys: s.sys,
	})
	if s.forked != nil {
		s.forked()
	}
	if err != nil {
		err = fmt.Errorf("cannot start %s: %w", s.path, err)
		started <- err
		return 0, err
	}
	if s.started != nil {
		if err := s.started(pid); err != nil {
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
			started <- err
			return 0, err
		}
	}
	started <- nil
	return pid, nil
}

// shellStatus is the exit status a shell reports for ws: the exit code,
// or 128+N for a death by signal N.
func shellStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// ownGroup reports whether a child should get a process group of its
// own: when no standard stream is a terminal, as bwrap's Exec decides.
// Agents stop commands by signalling cordon's group; cordon passes the
// signal on to the child's group, once.
func ownGroup() bool { return !IsTerminal(0) && !IsTerminal(1) && !IsTerminal(2) }

// startDirect starts the program unconfined.
func startDirect(path string, argv, env []string, stdin *os.File, pgid int) (*Child, error) {
	s := &spawn{path: path, argv: argv, env: env, stdin: stdin, sys: groupAttr(&syscall.SysProcAttr{}, pgid)}
	return s.start()
}

// groupAttr sets the process group a child starts in: pgid when it is
// above 0 (a group of the same session, the terminal's foreground one),
// else one of its own when no standard stream is a terminal ([ownGroup]).
func groupAttr(sys *syscall.SysProcAttr, pgid int) *syscall.SysProcAttr {
	sys.Setpgid, sys.Pgid = pgid > 0 || ownGroup(), max(pgid, 0)
	return sys
}
