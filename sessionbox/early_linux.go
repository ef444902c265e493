package sessionbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// The manager started early. A session's first command starts the
// session's manager, a second start of this binary (3 to 4 ms of page
// faults on a 2-core VM before its main runs), once the shim has judged
// the command and resolved its policy, which the manager is sent; until
// then the other core is idle. So a shim about to judge a command that
// finds no session to prepare ([Prepare]: no manager listens on the
// prepare socket of its agent and workspace) starts the manager's
// process at once, and sends it the session's spec when the command is
// to start the session ([Options.startManager]); if the command runs
// otherwise, the process is ended.
//
// A manager started early holds nothing but its end of the pair until
// the spec comes: no policy, no secret, no environment (every manager
// starts with none, and takes the spec's as its own, [adoptEnv], so one
// started early and one started late are the same), no lock. It reads
// the spec as every manager does, and ends, saying nothing, when the
// shim's end closes first (the shim refused the command, ran it in a
// sandbox of its own, found the session running after all, or ended).
// The agent's start it carries in its arguments (for the shims of a
// Landlock sandbox, [platform.CarriedArg]) is the one the shim's policy
// gets; a manager carrying another is ended and a new one started.

// A launched manager is a manager's process waiting for its spec.
type launched struct {
	conn  *os.File // this process's end of the pair: the manager's descriptor 3
	since int64    // the agent's start it carries
	done  chan struct{}
	proc  *os.Process
}

// early is the manager this process started early, if any.
var early struct {
	sync.Mutex
	m *launched
}

// launch starts a manager's process carrying the agent's start since,
// with no environment, in its own session (a kill of the agent's
// process groups does not reach it), in /.
func launch(since int64) (*launched, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	mine, theirs := os.NewFile(uintptr(pair[0]), "manager"), os.NewFile(uintptr(pair[1]), "shim")
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{ManagerRole, platform.CarriedArg(since)}
	cmd.Dir, cmd.Env, cmd.ExtraFiles = "/", []string{}, []*os.File{theirs}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	theirs.Close()
	if err != nil {
		mine.Close()
		return nil, fmt.Errorf("cannot start the session manager: %v", err)
	}
	l := &launched{conn: mine, since: since, done: make(chan struct{}), proc: cmd.Process}
	go func() {
		cmd.Wait()
		close(l.done)
	}()
	return l, nil
}

// errGone is a manager's process that ended before it answered its spec.
var errGone = errors.New("the session manager ended unexpectedly")

// hand sends l its spec (one line) and returns its answer: nil once it
// listens, errBusy when another manager holds the session, errGone when
// the process ended first, or the error it gave.
func (l *launched) hand(data []byte) error {
	defer l.conn.Close()
	if _, err := l.conn.Write(append(data, '\n')); err != nil {
		return errGone
	}
	line, err := bufio.NewReader(l.conn).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case line == "ok":
		return nil
	case line == "busy":
		return errBusy
	case strings.HasPrefix(line, "error "):
		return errors.New(strings.TrimPrefix(line, "error "))
	case line == "" && err != nil:
		return errGone
	}
	return fmt.Errorf("the session manager answered %q", line)
}

// end closes l's end, which ends the process (it reads no spec), and
// waits for it to be reaped, killing it after a moment.
func (l *launched) end() {
	l.conn.Close()
	select {
	case <-l.done:
	case <-time.After(200 * time.Millisecond):
		l.proc.Kill()
		<-l.done
	}
}

// startEarly launches a manager carrying since, unless one was already.
func startEarly(since int64) {
	early.Lock()
	defer early.Unlock()
	if early.m != nil {
		return
	}
	if l, err := launch(since); err == nil {
		early.m = l
	}
}

// takeEarly returns the manager started early, if it carries since, and
// forgets it; one that carries another start is ended.
func takeEarly(since int64) *launched {
	l := forgetEarly()
	if l != nil && l.since != since {
		l.end()
		return nil
	}
	return l
}

// Discard ends the manager started early by [Prepare], if there is one,
// and waits for its end: before this process runs its command otherwise
// (exec'ing a sandbox of its own, which would inherit the process as a
// child of its own).
func Discard() {
	if l := forgetEarly(); l != nil {
		l.end()
	}
}

// forgetEarly returns the manager started early, if any, and forgets it.
func forgetEarly() *launched {
	early.Lock()
	defer early.Unlock()
	l := early.m
	early.m = nil
	return l
}

// closeEarly closes this process's end of the manager started early,
// if any, which then ends; [Discard] still waits for it.
func closeEarly() {
	early.Lock()
	defer early.Unlock()
	if early.m != nil {
		early.m.conn.Close()
	}
}

// adoptEnv makes env this process's environment, the last of two
// entries of a name winning, as os/exec starts a process with env.
func adoptEnv(env []string) {
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			os.Setenv(k, v)
		}
	}
}
