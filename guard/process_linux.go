package guard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/cordonsh/cordon/internal/smallfile"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cordonsh/cordon/audit"
	"github.com/cordonsh/cordon/internal/wire"
	"github.com/cordonsh/cordon/netproxy"
	"github.com/cordonsh/cordon/platform"
	"golang.org/x/sys/unix"
)

// A spec is what the shim tells its guard process, as one line (package
// wire: byte for byte).
type spec struct {
	Backend  string           `json:"backend"`
	Policy   *platform.Policy `json:"policy"`
	StateDir string           `json:"state_dir"`
	Path     string           `json:"path"`
	Argv     []string         `json:"argv"`
	Env      []string         `json:"env"`
	Group    int              `json:"group,omitempty"` // the process group to start the program in; 0: its own
	// Secrets are the policy's credential values ([platform.Policy.Secrets],
	// never encoded with it), for the broker the guard serves.
	Secrets []string `json:"secrets,omitempty"`
}

// A Command is a program started confined, under a guard process when
// its backend is a sandbox.
type Command struct {
	backend string
	pid     int
	conn    *os.File
	r       *bufio.Reader
	child   *platform.Child // without a guard
}

// Start starts the program at path confined by backend b and policy p,
// with stdin as its standard input, under a guard process (see the
// package documentation). stateDir is cordon's state directory, where
// the guard keeps its ledger and quarantine: it must lie outside every
// directory the sandbox can write. The direct backend (a nested sandbox,
// or none asked for) starts the program itself, unguarded.
func Start(b platform.Backend, p *platform.Policy, stateDir, path string, argv, env []string, stdin *os.File) (*Command, error) {
	if b.Name() != platform.BackendBwrap && b.Name() != platform.BackendLandlock {
		c, err := b.Start(path, argv, env, stdin)
		if err != nil {
			return nil, err
		}
		return &Command{child: c}, nil
	}
	// What the guard's ledger holds and its sandbox lays read-only: the
	// policy crosses to the guard whole.
	p.FindScratchRepositories()
	if err := checkStateDir(p, stateDir); err != nil {
		return nil, err
	}
	s := &spec{Backend: b.Name(), Policy: p, StateDir: stateDir, Path: path, Argv: argv, Env: env, Secrets: p.Secrets()}
	if platform.IsTerminal(0) || platform.IsTerminal(1) || platform.IsTerminal(2) {
		s.Group = syscall.Getpgrp()
	}
	data, err := wire.Encode(s)
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot make a socket for the guard: %w", err)
	}
	// The guard's end is inherited at its own number, past the
	// descriptors the caller left open, which pass through untouched.
	// (ForkExec holds syscall.ForkLock itself; the shim starts nothing
	// else meanwhile that could inherit it.)
	_, err = unix.FcntlInt(uintptr(fds[1]), unix.F_SETFD, 0)
	pid := 0
	if err == nil {
		pid, err = syscall.ForkExec(selfPath(), []string{Role, strconv.Itoa(fds[1])}, &syscall.ProcAttr{
			Env: env, Files: []uintptr{stdin.Fd(), 1, 2},
			// A group of its own: a kill of the caller's group does
			// not reach it.
			Sys: &syscall.SysProcAttr{Setpgid: true},
		})
	}
	unix.Close(fds[1])
	conn := os.NewFile(uintptr(fds[0]), "guard")
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot start cordon's guard process: %w", err)
	}
	c := &Command{backend: b.Name(), conn: conn, r: bufio.NewReader(conn)}
	if _, err := conn.Write(append(data, '\n')); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot talk to cordon's guard process (%d): %w", pid, err)
	}
	word, arg, err := c.read()
	switch {
	case err != nil:
		conn.Close()
		return nil, err
	case word == "error":
		conn.Close()
		return nil, errors.New(arg)
	case word != "pid":
		conn.Close()
		return nil, fmt.Errorf("cordon's guard process said %q", word)
	}
	c.pid, _ = strconv.Atoi(arg)
	return c, nil
}

// selfPath is this binary: /proc/self/exe, unless that is the dynamic
// loader (bwrap without --argv0 runs a dynamic program through it), then
// argv[0] looked up on PATH.
func selfPath() string {
	if link, err := os.Readlink("/proc/self/exe"); err == nil && strings.HasPrefix(filepath.Base(link), "ld-") {
		if p, err := exec.LookPath(os.Args[0]); err == nil {
			return p
		}
	}
	return "/proc/self/exe"
}

// checkStateDir refuses a state directory the sandbox could write: the
// trusted state and the quarantine would be the sandbox's to forge.
func checkStateDir(p *platform.Policy, stateDir string) error {
	if len(p.Guarded) == 0 && len(p.GitConfig) == 0 {
		return nil
	}
	const fix = "; nothing was run: set XDG_STATE_HOME (or HOME) to a directory outside the workspace and scratch directories"
	if stateDir == "" {
		return errors.New("cordon has no state directory to keep what commands make at guarded places in (HOME and XDG_STATE_HOME are unset)" + fix)
	}
	real := realPrefix(stateDir)
	for _, w := range p.WritableRoots() {
		if platform.Within(real, w) {
			return fmt.Errorf("cordon's state directory %s can be written by sandboxed commands (it is inside %s)%s", stateDir, w, fix)
		}
	}
	return nil
}

// realPrefix resolves the links of the longest existing prefix of path.
func realPrefix(path string) string {
	rest := ""
	for dir := filepath.Clean(path); ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// read reads one line of the guard's: a word and its argument.
func (c *Command) read() (string, string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", "", errors.New("cordon's guard process ended unexpectedly (was it killed?)")
	}
	word, arg, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	return word, arg, nil
}

// Forward passes a signal this process received on to the program (see
// [platform.Child.Forward]).
func (c *Command) Forward(sig os.Signal) {
	if c.child != nil {
		c.child.Forward(sig)
		return
	}
	if s, ok := sig.(syscall.Signal); ok && c.pid > 0 {
		platform.ForwardTo(c.backend, c.pid, s)
	}
}

// WaitStatus waits for the program to end, and for its guard to have
// put the guarded places back, and returns its raw wait status.
func (c *Command) WaitStatus() (uint32, error) {
	if c.child != nil {
		ws := c.child.WaitStatus()
		_, err := c.child.Wait()
		return ws, err
	}
	defer c.conn.Close()
	for {
		word, arg, err := c.read()
		if err != nil {
			return uint32(126 << 8), err
		}
		if word == "exit" {
			ws, _ := strconv.ParseUint(arg, 10, 32)
			return uint32(ws), nil
		}
	}
}

// Wait is WaitStatus as a shell reports it: the exit status, or 128+N
// for a death by signal N.
func (c *Command) Wait() (int, error) {
	raw, err := c.WaitStatus()
	ws := syscall.WaitStatus(raw)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), err
	}
	return ws.ExitStatus(), err
}

// Exec runs the program like [Start] with this process's standard input,
// passes on the signals this process receives, and ends this process the
// way the program ended. It returns only when the program could not be
// started.
func Exec(b platform.Backend, p *platform.Policy, stateDir, path string, argv, env []string) error {
	if b.Name() != platform.BackendBwrap && b.Name() != platform.BackendLandlock {
		return b.Exec(path, argv, env, "")
	}
	sigs := make(chan os.Signal, 16)
	platform.NotifyCaught(sigs, platform.ForwardedSignals()...)
	c, err := Start(b, p, stateDir, path, argv, env, os.Stdin)
	if err != nil {
		signal.Stop(sigs)
		return err
	}
	go func() {
		for s := range sigs {
			c.Forward(s)
		}
	}()
	ws, err := c.WaitStatus()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cordon: %v\n", err)
		os.Exit(126)
	}
	platform.ExitLike(ws)
	return nil
}

// Main is the guard process (see the package documentation): args are
// [Role, the descriptor of its socket to the shim].
func Main(args []string) int {
	if len(args) > 1 && args[1] == "limits" {
		return platform.LimitMain(args)
	}
	inherited := inheritedFDs()
	fd := -1
	if len(args) == 2 {
		fd, _ = strconv.Atoi(args[1])
	}
	if fd < 3 {
		fmt.Fprintln(os.Stderr, "cordon: the guard process is started by cordon itself, not by hand")
		return 126
	}
	unix.CloseOnExec(fd)
	conn := os.NewFile(uintptr(fd), "shim")
	r := bufio.NewReader(conn)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(conn, "error %s\n", strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", "\n  "))
		return 126
	}
	line, err := r.ReadBytes('\n')
	if err != nil {
		return 126 // the shim is gone: nothing was started
	}
	var s spec
	if err := wire.Decode(line, &s); err != nil || s.Policy == nil {
		return fail("the guard process got a bad request (%v)", err)
	}
	s.Policy.SetSecrets(s.Secrets)
	// Keyboard and hang-up signals are the program's; SIGTERM ends the
	// command as the shim's end does.
	sigs := make(chan os.Signal, 4)
	platform.NotifyCaught(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGTSTP, syscall.SIGPIPE, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail("the guard process cannot adopt what the command leaves behind: %v", err)
	}
	ws := s.Policy.Workspace
	guarded := ws != "" && (len(s.Policy.Guarded) > 0 || len(s.Policy.GitConfig) > 0)
	if guarded {
		g := guardedBy(s.Policy)
		lines, prev, err := begin(s.StateDir, ws, g)
		if err == nil {
			lines = append(lines, adoptAppeared(s.StateDir, s.Policy, prev)...)
		}
		// What was put back or moved aside since the last command, with
		// no terminal to say it then (the snapshot round's, a session's).
		say(append(takeLines(s.StateDir, ws), lines...))
		switch {
		case errors.Is(err, unix.EROFS):
			// Inside cordon's own sandbox (a nested shell it did not
			// recognise as confined enough): the state directory is
			// read-only there, and the outer guard puts the workspace
			// back when the outer command ends.
			guarded = false
		case err != nil:
			return fail("%v", err)
		}
	}
	platform.NetRefused = func(p *platform.Policy, r *netproxy.Refusal) {
		(&audit.Log{Dir: s.StateDir}).Append(audit.NetworkRefusal(p.Workspace, s.Backend, r))
	}
	b, err := platform.Sandbox(s.Backend, s.Policy, s.StateDir)
	if err != nil {
		finish(s.StateDir, ws, guarded)
		return fail("%v", err)
	}
	stopWatch := func() {}
	if guarded && len(s.Policy.GitConfig) > 0 {
		stopWatch = watchConfigs(s.StateDir, ws, watched(s.StateDir, ws, s.Policy.GitConfig), say)
	}
	started := time.Now() // (what changed below the root since is the command's)
	child, err := platform.StartIn(b, s.Group, s.Path, s.Argv, s.Env, os.Stdin)
	if err != nil {
		stopWatch()
		finish(s.StateDir, ws, guarded)
		return fail("cannot run the real shell: %v", err)
	}
	// The caller's descriptors are the program's now: holding them
	// would keep a pipe open after the program has ended. Not before
	// it has started for good: bwrap started again (a file went while
	// it set up the sandbox) takes them from this process again. On a
	// goroutine of its own: in a terminal the shim gives the command
	// the foreground once it has the pid below, and bwrap, stopped in
	// the background until then, would never get there (a synchronous
	// wait hung TestTerminalAttack).
	go func() {
		<-child.Settled()
		for _, f := range inherited {
			switch {
			case f == 0 || f == 1:
				if null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
					unix.Dup2(null, f)
					unix.Close(null)
				}
			case f > 2 && f != fd:
				unix.Close(f)
			}
		}
	}()
	fmt.Fprintf(conn, "pid %d\n", child.Pid())
	gone := make(chan struct{})
	go func() {
		r.WriteTo(discard{})
		close(gone)
	}()
	done := make(chan struct{})
	go func() {
		child.Wait()
		close(done)
	}()
	abandoned := false
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-gone:
			abandoned, waiting = true, false
		case sig := <-sigs:
			if sig == syscall.SIGTERM {
				abandoned, waiting = true, false
			}
		}
	}
	// The watch's git runs are this process's children too: they end
	// before killAll, which would take them for the command's.
	stopWatch()
	killAll(nil)
	if abandoned {
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	// What the command planted below the root goes before its status
	// does: the agent, or the person's editor, runs git there next.
	if guarded {
		say(CheckBelow(s.StateDir, s.Policy, started))
	}
	finish(s.StateDir, ws, guarded)
	if !abandoned {
		fmt.Fprintf(conn, "exit %d\n", child.WaitStatus())
	}
	return 0
}

// guardedBy is what policy p's command is guarded by: p.Guarded, and
// git's configuration files, read with the host's git found outside
// every directory the command can write (none found: a change to one is
// undone).
func guardedBy(p *platform.Policy) guarded {
	g := guarded{patterns: p.Guarded, configs: p.GitConfig, safe: p.GitConfigSafe, rootPatterns: p.RootGuarded, rootConfigs: p.RootGitConfig, skip: p.Regenerable, reach: slices.Concat(p.Scratch, p.Writable)}
	if len(g.configs)+len(g.rootConfigs) > 0 {
		g.git, _ = platform.FindProgram("git", platform.Getenv(p.Env, "PATH"), p.WritableRoots(), p.SinceAgent)
		g.own, g.writable = ownConfigs(p.Env), p.WritableRoots()
		if g.home = platform.Getenv(p.Env, "HOME"); !filepath.IsAbs(g.home) {
			g.home = platform.AccountHome()
		}
	}
	return g
}

// finish reconciles the workspace after the command.
func finish(stateDir, ws string, guarded bool) {
	if !guarded {
		return
	}
	lines, _, err := end(stateDir, ws)
	say(lines)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cordon: cannot update the guard's ledger in %s: %v\n", stateDir, err)
	}
}

func say(lines []string) {
	for _, l := range lines {
		os.Stderr.WriteString(l + "\n")
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// killAll kills every process below this one (it is their subreaper:
// double-forked and setsid'd ones included; SIGKILL ends stopped and
// traced ones too) and reaps them, until none is left; but those spare
// keeps (nil: none), which are left to run on.
func killAll(spare func(pid int) bool) {
	for i := 0; i < 100000; i++ {
		pids := descendants(os.Getpid())
		if spare != nil {
			pids = slices.DeleteFunc(pids, spare)
		}
		for _, p := range pids {
			unix.Kill(p, unix.SIGKILL)
		}
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if errors.Is(err, unix.ECHILD) && len(pids) == 0 {
				return
			}
			if pid <= 0 || err != nil {
				break
			}
		}
		if len(pids) == 0 {
			if spare != nil {
				return // (what is left is spared)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// descendants lists the processes below pid, children of any of its
// threads; those that have ended and wait to be reaped (zombies) are
// left out.
func descendants(pid int) []int {
	var out []int
	// (Through bare descriptors: read for every process of a sandbox at
	// each command's end.)
	tasks, _ := smallfile.ReadDirNames(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		data, err := smallfile.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(f); err == nil && !zombie(c) {
				out = append(out, c)
				out = append(out, descendants(c)...)
			}
		}
	}
	return out
}

// zombie reports whether process pid has ended (or is gone). A process
// whose first thread ended by itself (its own exit, not the group's)
// shows as a zombie while its other threads run on: it has ended only
// when none of them runs.
func zombie(pid int) bool {
	if !ended(fmt.Sprintf("/proc/%d/stat", pid)) {
		return false
	}
	tasks, _ := smallfile.ReadDirNames(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		if t != strconv.Itoa(pid) && !ended(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t)) {
			return false
		}
	}
	return true
}

// ended reports whether the stat file of a process or thread says it
// has ended (or is gone).
func ended(stat string) bool {
	data, err := smallfile.ReadFile(stat)
	if err != nil {
		return true
	}
	// The state follows the command's name, which is in parentheses
	// and may hold any byte.
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] == 'Z' || data[i+2] == 'X'
}

// inheritedFDs lists the descriptors open when the process started,
// read with raw system calls so that none of the runtime's own is among
// them.
func inheritedFDs() []int {
	dir, err := unix.Open("/proc/self/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(dir)
	var out []int
	buf := make([]byte, 8192)
	for {
		n, err := unix.ReadDirent(dir, buf)
		if err != nil || n <= 0 {
			break
		}
		var names []string
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
		for _, name := range names {
			if f, err := strconv.Atoi(name); err == nil && f != dir {
				out = append(out, f)
			}
		}
	}
	return out
}
