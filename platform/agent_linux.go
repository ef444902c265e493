package platform

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/wire"
)

// cordon agent (docs/agent.md) runs a program in a mount namespace of its
// own where the shells in /bin and /usr/bin are cordon, so that a shell
// the program starts by its absolute path is judged and confined like
// one found on PATH. The program itself runs as it would without cordon.
//
// Set-up: this process forks cordon again as [AgentRole] in a new mount
// namespace (and, for an ordinary user, a new user namespace mapping the
// user to themselves, as bwrap does). That step mounts a small read-only
// tmpfs, named [agentShellsSource], on a directory in cordon's state
// directory and binds the real shells into it by name; binds this binary
// over every real shell file; drops the capabilities it held in the user
// namespace; and execs the program. This process waits, passes signals
// on and ends the way the program ends.
//
// The shim finds the real shells in that tmpfs ([agentShellsDir], read
// from /proc/self/mountinfo: no variable the program could clear or
// change), and every sandbox the shim makes binds the real shells back
// over cordon ([agentRestores]): inside the sandbox /bin/sh is the real
// shell again, as it is without cordon agent.

// AgentRole is the argv[0] of this binary re-executed to set up the
// namespace of cordon agent.
const AgentRole = "cordon-agent"

// agentShellsSource is the source name of the tmpfs holding the real
// shells: the mark by which the shim finds it in the mount table.
const agentShellsSource = "cordon-agent-shells"

// agentSelf is the name, in that tmpfs, of a symbolic link to this
// binary's path outside the namespace (see [selfPath]).
const agentSelf = "cordon"

func init() {
	if len(os.Args) == 2 && os.Args[0] == AgentRole {
		os.Exit(agentMain(os.Args[1]))
	}
}

// agentSpec is what the set-up step is sent.
type agentSpec struct {
	Path   string            `json:"path"`
	Argv   []string          `json:"argv"`
	Dir    string            `json:"dir"`    // where the real shells are mounted
	Self   string            `json:"self"`   // this binary, outside the namespace
	Shells map[string]string `json:"shells"` // name → the real shell's file
	Cover  []string          `json:"cover"`  // the files cordon is bound over
	// ReadOnly and Pins: see [AgentSetup].
	ReadOnly []string `json:"read_only,omitempty"`
	Pins     []string `json:"pins,omitempty"`
}

// agentPlan returns, for the shells called names in dirs (/bin and
// /usr/bin, [fallbackDirs]: with a merged /usr both hold the same files), the
// real file of each name and the files to cover with cordon. A name whose
// file is not called by a shell's name (/bin/sh a link to busybox, a
// program of many names) is left alone and reported in skipped: covering
// it would make all its other names cordon.
func agentPlan(names, dirs []string, self string) (shells map[string]string, cover, skipped []string) {
	shells = map[string]string{}
	me, err := os.Stat(self)
	if err != nil {
		return shells, nil, nil
	}
	for _, name := range names {
		for _, dir := range dirs {
			p := filepath.Join(dir, name)
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				continue
			}
			fi, err := os.Stat(real)
			if err != nil || !isExecutable(fi) || os.SameFile(fi, me) {
				continue
			}
			if !slices.Contains(names, filepath.Base(real)) {
				if !slices.Contains(skipped, p) {
					skipped = append(skipped, p+" ("+real+")")
				}
				continue
			}
			if _, ok := shells[name]; !ok {
				shells[name] = real
			}
			if !slices.Contains(cover, real) {
				cover = append(cover, real)
			}
		}
	}
	return shells, cover, skipped
}

// RunAgent runs the program argv (looked up on PATH) as setup says: the
// shells cordon stands in for covered by cordon, the real ones mounted on
// setup.Dir, and the workspace's auto-run places read-only. It returns
// only when the program could not be started, with the exit status (127:
// not found) and why; otherwise this process ends as the program ended.
// notes gets what the program should know (a shell left alone).
func RunAgent(argv []string, setup *AgentSetup, notes io.Writer) (int, error) {
	names, dir := setup.Shells, setup.Dir
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 127, fmt.Errorf("%s: command not found", argv[0])
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return 126, fmt.Errorf("cannot find cordon's own binary: %w", err)
	}
	if agentShellsDir() != "" {
		// Inside cordon agent's namespace already: the shells are cordon.
		err := unix.Exec(path, argv, os.Environ())
		return 126, fmt.Errorf("cannot run %s: %w", path, err)
	}
	shells, cover, skipped := agentPlan(names, fallbackDirs, self)
	if len(cover) == 0 {
		return 126, fmt.Errorf("no shell (%s) found in %s to stand in for", strings.Join(names, ", "), strings.Join(fallbackDirs, " or "))
	}
	for _, s := range skipped {
		fmt.Fprintf(notes, "cordon agent: %s is not a shell's own file, left as it is: what runs it by that path is not judged\n", s)
	}
	sys, err := agentAttr(os.Geteuid(), usernsUnavailable)
	if err != nil {
		return 126, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 126, fmt.Errorf("cannot make the directory for the real shells: %w", err)
	}
	data, err := wire.Encode(&agentSpec{Path: path, Argv: argv, Dir: dir, Self: self, Shells: shells, Cover: cover, ReadOnly: setup.ReadOnly, Pins: setup.Pins})
	if err != nil {
		return 126, err
	}
	s := &spawn{path: "/proc/self/exe", env: os.Environ(), stdin: os.Stdin, sys: sys}
	setupSocket(s, AgentRole, data)
	sigs := make(chan os.Signal, 16)
	NotifyCaught(sigs, forwarded...)
	c, err := s.start()
	if err != nil {
		signal.Stop(sigs)
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSPC) {
			err = agentNoNamespace(os.Geteuid(), err)
		}
		return 126, err
	}
	go func() {
		for sig := range sigs {
			c.Forward(sig)
		}
	}()
	ws := c.WaitStatus()
	if _, err := c.Wait(); err != nil {
		return 126, err
	}
	exitLike(syscall.WaitStatus(ws))
	return 126, nil // not reached
}

// agentAttr returns how the set-up step is started for a user with
// effective uid euid: in a new mount namespace, and for any user but
// root in a new user namespace too, which unavailable says why it cannot
// have (nil when it can).
func agentAttr(euid int, unavailable func() error) (*syscall.SysProcAttr, error) {
	sys := &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	if euid == 0 {
		return sys, nil
	}
	if err := unavailable(); err != nil {
		return nil, agentNoNamespace(euid, err)
	}
	return usernsAttr(sys), nil
}

// agentNoNamespace says that cordon agent cannot make its mount
// namespace (err) for a user with effective uid euid, and what to do.
func agentNoNamespace(euid int, err error) error {
	what := "allow unprivileged user namespaces as said (bwrap needs them too) or run it as root"
	if euid == 0 {
		what = "run it where root may make mount namespaces (not inside a sandbox or a container without CAP_SYS_ADMIN)"
	}
	return fmt.Errorf("cannot make a mount namespace: %v. To use cordon agent, %s; without it, put cordon's shims first on the agent's PATH "+
		"and point its shell setting at the bash shim (shells it runs by absolute path are then not judged)", err, what)
}

// setupConn is a set-up step's end of the socket setupSocket made, from
// its descriptor argument; nil, said on stderr, when the step was not
// started so (who says what starts it).
func setupConn(fdArg, who string) *os.File {
	fd, _ := strconv.Atoi(fdArg)
	if fd < 3 {
		fmt.Fprintf(os.Stderr, "cordon: %s, not by hand\n", who)
		return nil
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "cordon")
}

// setupSocket makes s pass data to the set-up step it starts (this
// binary as role, given the descriptor of its end of a socket) and wait
// for the exec that closes it: what the step writes back is its error.
func setupSocket(s *spawn, role string, data []byte) {
	fds := [2]int{-1, -1}
	s.prepare = func() error {
		p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("cannot make a socket for the set-up: %w", err)
		}
		if _, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETFD, 0); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return fmt.Errorf("cannot pass a socket to the set-up: %w", err)
		}
		fds = p
		s.argv = []string{role, strconv.Itoa(p[1])}
		return nil
	}
	s.forked = func() { unix.Close(fds[1]) }
	s.started = func(int) error {
		conn := os.NewFile(uintptr(fds[0]), "set-up")
		defer conn.Close()
		if _, err := conn.Write(append(data, '\n')); err != nil {
			return fmt.Errorf("cannot pass the set-up its request: %w", err)
		}
		unix.Shutdown(fds[0], unix.SHUT_WR)
		msg, err := io.ReadAll(conn)
		switch {
		case len(msg) > 0:
			return errors.New(string(msg))
		case err != nil:
			return fmt.Errorf("cannot hear from the set-up: %w", err)
		}
		return nil // closed by the exec
	}
}

// agentMain is the set-up step in the new mount namespace; fdArg is its
// socket's descriptor. It returns only on failure.
func agentMain(fdArg string) int {
	conn := setupConn(fdArg, "the agent's set-up is started by cordon agent")
	if conn == nil {
		return 126
	}
	fail := func(err error) int {
		conn.Write([]byte(err.Error()))
		return 126
	}
	var s agentSpec
	if err := decodeLine(conn, &s); err != nil || s.Dir == "" {
		return fail(fmt.Errorf("the agent's set-up got a bad request (%v)", err))
	}
	if err := agentMounts(&s); err != nil {
		return fail(err)
	}
	// Root keeps what it had; an ordinary user's program holds no
	// capability, not even in its user namespace: none ambient, and none
	// inheritable either (what the ambient set needed), which executing
	// a file with inheritable file capabilities would turn back into
	// permitted ones.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("cannot drop the set-up's capabilities: %w", err))
	}
	if os.Geteuid() != 0 {
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var none capSets
		if err := unix.Capset(&hdr, &none[0]); err != nil {
			return fail(fmt.Errorf("cannot drop the set-up's capabilities: %w", err))
		}
	}
	err := unix.Exec(s.Path, s.Argv, os.Environ())
	return fail(fmt.Errorf("cannot run %s: %w", s.Path, err))
}

// agentMounts lays out s in this mount namespace: the real shells on
// s.Dir, read-only, and cordon over each of s.Cover.
func agentMounts(s *agentSpec) error {
	// Nothing mounted here may reach the host's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("cannot make the mounts private: %w", err)
	}
	if err := unix.Mount(agentShellsSource, s.Dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=755,size=16k"); err != nil {
		return fmt.Errorf("cannot mount a tmpfs on %s for the real shells: %w", s.Dir, err)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Shells)) {
		p := filepath.Join(s.Dir, name)
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			return fmt.Errorf("cannot keep the real %s: %w", name, err)
		}
		if err := unix.Mount(s.Shells[name], p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("cannot keep the real %s: %w", name, err)
		}
		if err := remountReadOnly(p); err != nil {
			return err
		}
	}
	if err := os.Symlink(s.Self, filepath.Join(s.Dir, agentSelf)); err != nil {
		return fmt.Errorf("cannot note cordon's path: %w", err)
	}
	if err := remountReadOnly(s.Dir); err != nil {
		return err
	}
	for _, f := range s.Cover {
		if err := unix.Mount(s.Self, f, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("cannot stand in for %s: %w", f, err)
		}
		if err := remountReadOnly(f); err != nil {
			return err
		}
	}
	return agentReadOnly(s.ReadOnly, s.Pins)
}

// agentReadOnly binds each of readOnly onto itself read-only, and each
// of pins onto itself, parents first (a bind laid later over a parent
// would hide the read-only one under it). A path gone since the policy
// was made is skipped: there is nothing there to write through.
func agentReadOnly(readOnly, pins []string) error {
	binds := map[string]bool{}
	for _, d := range pins {
		binds[d] = false
	}
	for _, ro := range readOnly {
		binds[ro] = true
	}
	return reentered(func() error {
		for _, path := range slices.Sorted(maps.Keys(binds)) {
			if err := bindSelf(path, binds[path]); err != nil && !errors.Is(err, unix.ENOENT) {
				return err
			}
		}
		return nil
	})
}

// agentShellsDir is where cordon agent mounted the real shells in this
// process's mount namespace, or "" outside one: the read-only tmpfs
// named [agentShellsSource] in /proc/self/mountinfo. Read once.
var agentShellsDir = sync.OnceValue(readAgentShellsDir)

func readAgentShellsDir() string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil || !bytes.Contains(data, []byte(agentShellsSource)) {
		return ""
	}
	return mountinfoDir(data, agentShellsSource)
}

// mountinfoDir returns the mount point of the last read-only tmpfs
// mounted from source in the mount table data (/proc/PID/mountinfo's
// format), or "".
func mountinfoDir(data []byte, source string) string {
	dir := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER
		f := strings.Fields(sc.Text())
		sep := slices.Index(f, "-")
		if sep < 6 || len(f) < sep+3 || f[sep+1] != "tmpfs" || f[sep+2] != source {
			continue
		}
		if slices.Contains(strings.Split(f[5], ","), "ro") {
			dir = unescapeMountinfo(f[4])
		}
	}
	return dir
}

// unescapeMountinfo undoes the octal escapes (\040) of a mountinfo path.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// An agentRestore is a real shell (src, in the agent's tmpfs) to bind
// back over the file cordon covers (dst) in a sandbox.
type agentRestore struct{ src, dst string }

// agentRestores are the real shells a sandbox made inside cordon agent's
// namespace binds back over cordon, so that in the sandbox /bin/sh is
// the real shell, as without cordon agent. None outside one: there no
// shell in /bin or /usr/bin is this binary (about ten stat calls; the
// mount table, slower to read, is read only inside).
func agentRestores() []agentRestore {
	me, err := os.Stat("/proc/self/exe")
	if err != nil {
		return nil
	}
	var out []agentRestore
	for _, name := range ShellNames {
		for _, d := range fallbackDirs {
			fi, err := os.Stat(filepath.Join(d, name))
			if err != nil || !os.SameFile(fi, me) {
				continue
			}
			dir := agentShellsDir()
			if dir == "" {
				return nil
			}
			src := filepath.Join(dir, name)
			dst, err := filepath.EvalSymlinks(filepath.Join(d, name))
			if err != nil || slices.ContainsFunc(out, func(r agentRestore) bool { return r.dst == dst }) {
				continue
			}
			if _, err := os.Stat(src); err == nil {
				out = append(out, agentRestore{src, dst})
			}
		}
	}
	return out
}

// restoreAgentShells binds the real shells back over cordon in this
// thread's mount namespace (the Landlock backend's), before anything
// covers cordon's state directory, where they are.
func restoreAgentShells() error {
	for _, r := range agentRestores() {
		if err := unix.Mount(r.src, r.dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("cannot put the real shell back on %s: %w", r.dst, err)
		}
	}
	return nil
}

// selfPath is this binary's path, symbolic links resolved: inside cordon
// agent's namespace, where the kernel names it by the shell it covers
// (/usr/bin/bash), its path outside, which a sandbox can run it by.
func selfPath() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil || !isShellName(filepath.Base(self)) {
		return self, err
	}
	if dir := agentShellsDir(); dir != "" {
		if t, err := os.Readlink(filepath.Join(dir, agentSelf)); err == nil && sameFile(t, self) {
			return t, nil
		}
	}
	return self, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// decodeLine reads the one line [setupSocket] sends on conn (package
// wire: byte for byte) into v. The sender waits for the answer after it,
// so nothing that follows can be taken by the buffer.
func decodeLine(conn *os.File, v any) error {
	line, err := bufio.NewReader(io.LimitReader(conn, 64<<20)).ReadBytes('\n')
	if err != nil && (err != io.EOF || len(line) == 0) {
		return err
	}
	return wire.Decode(line, v)
}
