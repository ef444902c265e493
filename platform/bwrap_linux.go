package platform

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// A bwrapBackend runs programs under bubblewrap. cordon stays the parent
// of bwrap: it forwards the signals it receives to the confined shell
// (bwrap forwards none) and ends the way bwrap ends.
type bwrapBackend struct {
	probe  *BwrapProbe
	policy *Policy
	// empty is an empty file no one may read (mode 0000), laid over
	// hidden files; "" when there is none, and then bwrap makes one per
	// file from a descriptor (slower: a copy each).
	empty string
	// stateDir is cordon's state directory: the network allowlist's
	// proxy has its socket there (see network_linux.go).
	stateDir string
	// proxySock is the socket of the proxy serving this start, with the
	// network allowlist.
	proxySock string
	// tramp is the trampoline bwrap runs the command through, for one
	// start ([bwrapBackend.startArgs]), with trampFD, the descriptor it
	// makes the command's standard error; "" for none.
	tramp   string
	trampFD int
}

// emptyFile returns the path of an empty file of mode 0000 in dir, made
// when missing, or "" when it cannot be had. The directory is outside
// everything a sandboxed command can write.
func emptyFile(dir string) string {
	if dir == "" {
		return ""
	}
	p := filepath.Join(dir, "hidden")
	if fi, err := os.Lstat(p); err == nil {
		if fi.Mode().IsRegular() && fi.Mode().Perm() == 0 && fi.Size() == 0 {
			return p
		}
		return ""
	}
	if os.MkdirAll(dir, 0o700) != nil {
		return ""
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0)
	if err != nil {
		return ""
	}
	f.Close()
	return p
}

func (b *bwrapBackend) Name() string { return "bwrap" }

// procReadOnly are the parts of /proc that change the host's kernel.
var procReadOnly = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}

// A mount is one bwrap mount operation.
type mount struct {
	path string
	kind mountKind
	src  string // what is bound at path, when not path itself
}

// mountKind orders mounts at the same path.
type mountKind int

const (
	mountScratch  mountKind = iota // --bind, or a private --tmpfs
	mountWritable                  // --bind
	mountReadOnly                  // --ro-bind
	mountHidden                    // --tmpfs for a directory, --ro-bind-data for a file
	mountFiltered                  // --ro-bind-data of a filtered credential file (src: the entry)
	mountVisible                   // --ro-bind inside a hidden directory
)

// mounts lists the policy's mounts in the order bwrap must apply them:
// a mount shadows what an earlier one put at or below its path, so
// parents come before their children (a workspace under /tmp is bound
// after /tmp, a hidden directory after the writable one that holds it).
func (p *Policy) mounts() []mount {
	var ms []mount
	for _, s := range p.Scratch {
		ms = append(ms, mount{path: s, kind: mountScratch})
	}
	for _, w := range append(slices.Clone(p.Writable), p.Pins()...) {
		ms = append(ms, mount{path: w, kind: mountWritable})
	}
	for _, r := range p.ReadOnly {
		ms = append(ms, mount{path: r, kind: mountReadOnly})
	}
	for _, h := range slices.Concat(p.Hidden, p.HostSockets) {
		// A private /tmp holds nothing of other programs'.
		if !(p.PrivateTmp && Within(h, "/tmp")) {
			ms = append(ms, mount{path: h, kind: mountHidden})
		}
	}
	for _, f := range p.Filtered {
		path, _, _ := strings.Cut(f, " ")
		ms = append(ms, mount{path: path, kind: mountFiltered, src: f})
	}
	for _, v := range p.Visible {
		ms = append(ms, mount{path: v, kind: mountVisible})
	}
	// The caches stay read-only in bwrap's own namespace, which a
	// command reaches through /proc/1/root (bwrap is its pid 1): what the
	// policy hides below them is hidden there too, and nothing but its
	// own writable paths is bound writable there (no pins: LayerRole
	// makes them over the layers, in its namespace).
	ms = slices.DeleteFunc(ms, func(m mount) bool {
		return m.kind == mountWritable && slices.ContainsFunc(p.Caches, func(c string) bool { return Within(m.path, c) }) &&
			!slices.Contains(p.Writable, m.path)
	})
	if p.Layer != "" {
		// For LayerRole, inside the layers' hidden directory (an empty
		// tmpfs of mode 0000, read-only): there only its capabilities
		// reach them, the command's none, also through /proc/1/root.
		// The set of layers, and each cache as the host has it, without
		// what bwrap lays below it (an overlay cannot be made over a
		// directory with mounts below it from another namespace).
		if hidden := filepath.Dir(filepath.Dir(p.Layer)); !slices.Contains(p.Hidden, hidden) {
			ms = append(ms, mount{path: hidden, kind: mountHidden})
		}
		ms = append(ms, mount{path: p.Layer, kind: mountWritable})
		for _, c := range p.Caches {
			ms = append(ms, mount{path: lowerOf(p.Layer, c), kind: mountReadOnly, src: c})
		}
	}
	slices.SortStableFunc(ms, func(a, b mount) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return int(a.kind - b.kind)
	})
	return ms
}

// args returns bwrap's command line for running path with argv in dir
// ("" keeps the current directory). newFD returns a fresh descriptor to
// read data from: the seccomp filter, or nothing (an empty file laid over
// a hidden one).
//
// pathFD opens a path for bwrap to bind by its descriptor
// ([openUnfollowed]): a bind whose path lies inside a directory
// sandboxed commands can write (a pin, a read-only path in the
// workspace) is made from the directory found by a walk that follows no
// link, not by its name, which bwrap and mount(2) resolve through links:
// a process of another sandbox of the user's (another session's, one a
// replaced session left running) could swap such a directory for a link
// while this sandbox is made (.git -> ../../.ssh), and have the bind lay
// what the link leads to, writable, in this sandbox. The destination is
// still a name: swapped, it lays the intended directory elsewhere in the
// sandbox's view, which exposes nothing more. A path gone since the
// policy was made is no bind (as bwrap's -try binds); one that is a link
// now refuses the sandbox.
func (b *bwrapBackend) args(path string, argv []string, dir string, newSession bool, newFD func(data []byte) (int, error), pathFD func(path string) (int, error)) ([]string, error) {
	p, pr := b.policy, b.probe
	a := []string{pr.Path,
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--cap-drop", "ALL",
	}
	a = append(a, b.layerArgs()...)
	a = append(a, b.netArgs()...)
	if pr.Options["--disable-userns"] {
		a = append(a, "--disable-userns")
	}
	if newSession {
		a = append(a, "--new-session")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	// The agent's start for the shims inside, which cannot see it
	// (AgentSince).
	since, err := newFD([]byte(strconv.FormatInt(p.AgentSince, 10)))
	if err != nil {
		return nil, err
	}
	a = append(a, "--ro-bind-data", strconv.Itoa(since), SinceFile)
	// The kernel's settings under the new /proc are the host's: root,
	// mapped to itself, could write /proc/sys/kernel/core_pattern and
	// have the host run a program. Read-only, as in Flatpak.
	for _, k := range procReadOnly {
		if _, err := os.Stat(k); err == nil {
			a = append(a, "--ro-bind", k, k)
		}
	}
	var remount []string
	entered := map[string]bool{}
	// hideFile lays an empty file no one may read over the file at path.
	hideFile := func(path string) error {
		if b.empty != "" {
			a = append(a, "--ro-bind", b.empty, path)
			return nil
		}
		fd, err := newFD(nil)
		if err != nil {
			return err
		}
		a = append(a, "--perms", "0000", "--ro-bind-data", strconv.Itoa(fd), path)
		return nil
	}
	for _, m := range p.mounts() {
		switch m.kind {
		case mountScratch:
			if (p.PrivateTmp && m.path == "/tmp") || strings.HasPrefix(m.path, "/dev/") {
				a = append(a, "--tmpfs", m.path)
			} else {
				a = append(a, "--bind", m.path, m.path)
			}
		case mountWritable, mountReadOnly, mountVisible:
			src := m.path
			if m.src != "" {
				src = m.src
			}
			opt := "--ro-bind"
			if m.kind == mountWritable {
				opt = "--bind"
			}
			if src == m.path && pr.Options["--bind-fd"] && p.swappable(m.path) {
				fd, err := pathFD(m.path)
				switch {
				case errors.Is(err, unix.ENOENT):
					continue // gone since the policy was made
				case err != nil:
					return nil, fmt.Errorf("%s changed while the sandbox was being made (%v); nothing was run: run the command again", m.path, err)
				}
				a = append(a, opt+"-fd", strconv.Itoa(fd), m.path)
				continue
			}
			// -try: a path removed by another program since the policy
			// was made (a repository in /tmp) is nothing to bind, not a
			// reason to fail the command.
			a = append(a, opt+"-try", src, m.path)
		case mountFiltered:
			if _, data, ok := p.shownFile(m.src); ok {
				fd, err := newFD(data)
				if err != nil {
					return nil, err
				}
				a = append(a, "--perms", "0600", "--ro-bind-data", strconv.Itoa(fd), m.path)
				continue
			}
			// Unreadable, or too large to filter: hidden whole.
			if err := hideFile(m.path); err != nil {
				return nil, err
			}
		case mountHidden:
			fi, err := os.Lstat(m.path)
			if err != nil || !searchable(filepath.Dir(m.path), entered) {
				// Gone since the policy was made, or in a directory
				// no command of this user can enter (another user's
				// 0700 directory in /tmp, where bwrap, without
				// capabilities over that user's files, could not lay
				// anything either): nothing to hide.
				continue
			}
			// An empty directory or file that no one may read, not even
			// root without its capabilities. A directory that keeps
			// visible entries can still be passed through.
			if fi.IsDir() {
				perms := "0000"
				if slices.ContainsFunc(p.Visible, func(v string) bool { return Within(v, m.path) }) || Within(b.proxySock, m.path) {
					perms = "0111"
				}
				a = append(a, "--perms", perms, "--tmpfs", m.path)
				remount = append(remount, m.path)
				continue
			}
			if err := hideFile(m.path); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range agentRestores() {
		a = append(a, "--ro-bind", r.src, r.dst) // the real shell, as without cordon agent
	}
	a = append(a, b.proxyMount()...)
	for _, r := range remount {
		a = append(a, "--remount-ro", r)
	}
	filter, err := seccompFilter(p.Network)
	if err != nil {
		return nil, err
	}
	fd, err := newFD(seccompBytes(filter))
	if err != nil {
		return nil, err
	}
	a = append(a, "--seccomp", strconv.Itoa(fd))
	if dir != "" {
		a = append(a, "--chdir", dir)
	}
	var cmd []string
	switch {
	case p.Layer != "":
		if p.Network == NetworkAllowlist {
			cmd, err := netWrap(b.stateDir, b.socket(), b.policy, path, argv)
			if err != nil {
				return nil, err
			}
			path, argv = cmd[0], cmd
		}
		if cmd, err = b.layerCommand(path, argv, newFD); err != nil {
			return nil, err
		}
	case p.Network == NetworkAllowlist:
		if cmd, err = b.netCommand(path, argv); err != nil {
			return nil, err
		}
	case b.tramp != "":
		if len(argv) == 0 {
			argv = []string{path}
		}
		// argv[0] kept exactly by the trampoline: no --argv0 needed.
		return append(a, slices.Concat([]string{"--", b.tramp, strconv.Itoa(b.trampFD), path}, argv)...), nil
	default:
		cmd = b.command(path, argv)
	}
	if b.tramp != "" {
		// cordon inside the sandbox, which keeps argv itself, run by
		// the trampoline: cmd is "--", its path, its argv from 1 on.
		cmd = slices.Concat([]string{"--", b.tramp, strconv.Itoa(b.trampFD), cmd[1]}, cmd[1:])
	}
	return append(a, cmd...), nil
}

// hides reports whether path cannot be reached inside p's sandbox: it
// lies in a directory the sandbox covers (a hidden one, a private /tmp).
func (p *Policy) hides(path string) bool {
	return slices.ContainsFunc(p.mounts(), func(m mount) bool {
		switch m.kind {
		case mountHidden:
		case mountScratch:
			if !(p.PrivateTmp && m.path == "/tmp") && !strings.HasPrefix(m.path, "/dev/") {
				return false
			}
		default:
			return false
		}
		return Within(path, m.path)
	})
}

// command returns the end of bwrap's command line: the program and its
// arguments, with argv[0] kept. bwrap before 0.9 has no --argv0 and runs a
// program with its path as argv[0] ("/usr/bin/bash" where the caller said
// "bash", which $0 and the shell's messages show, and "-bash" asks for a
// login shell). The program's own ELF interpreter sets argv[0] instead
// (ld.so --argv0, glibc 2.33+ and musl): no extra process. A static
// program, or a loader without --argv0, gets its path as argv[0], and -l
// when argv[0] asked for a login shell.
func (b *bwrapBackend) command(path string, argv []string) []string {
	if len(argv) == 0 {
		return []string{"--", path}
	}
	if argv[0] == path {
		return append([]string{"--", path}, argv[1:]...)
	}
	if b.probe.Options["--argv0"] {
		return append([]string{"--argv0", argv[0], "--", path}, argv[1:]...)
	}
	if interp := elfInterp(path); interp != "" && interp == b.probe.Loader && b.probe.LoaderArgv0 {
		return append([]string{"--", interp, "--argv0", argv[0], path}, argv[1:]...)
	}
	if strings.HasPrefix(argv[0], "-") {
		return append([]string{"--", path, "-l"}, argv[1:]...)
	}
	return append([]string{"--", path}, argv[1:]...)
}

// elfInterp returns the ELF interpreter (PT_INTERP) of the program at
// path, or "" for a static program or one that is not a 64-bit
// little-endian ELF file. It reads the headers itself: debug/elf would
// cost every shim the start-up of the decompressors it links.
func elfInterp(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var hdr [64]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil || string(hdr[:4]) != "\x7fELF" || hdr[4] != 2 || hdr[5] != 1 {
		return ""
	}
	le := binary.LittleEndian
	phoff, phentsize, phnum := le.Uint64(hdr[32:]), int64(le.Uint16(hdr[54:])), int64(le.Uint16(hdr[56:]))
	if phentsize < 56 || phnum > 64 {
		return ""
	}
	ph := make([]byte, phentsize)
	for i := int64(0); i < phnum; i++ {
		if _, err := f.ReadAt(ph, int64(phoff)+i*phentsize); err != nil {
			return ""
		}
		const ptInterp = 3
		if le.Uint32(ph[0:]) != ptInterp {
			continue
		}
		off, size := le.Uint64(ph[8:]), le.Uint64(ph[32:])
		if size == 0 || size > 4096 {
			return ""
		}
		buf := make([]byte, size)
		if _, err := f.ReadAt(buf, int64(off)); err != nil {
			return ""
		}
		return strings.TrimRight(string(buf), "\x00")
	}
	return ""
}

// Exec runs the program under bwrap as a child of this process, forwards
// signals to it, and exits as bwrap exits. It returns only when bwrap
// could not be started.
func (b *bwrapBackend) Exec(path string, argv, env []string, dir string) error {
	ScreenInherited()
	b.policy.SearchSockets()
	// bwrap's --die-with-parent fires when the thread that started it
	// exits: keep this goroutine on its thread until the process ends.
	runtime.LockOSThread()
	terminal := IsTerminal(0) || IsTerminal(1) || IsTerminal(2)
	if dir == "" {
		// bwrap sets PWD to the physical directory; the shell must see
		// the caller's logical one (cd through a symbolic link).
		dir = logicalDir(envLookup(env)("PWD"))
	}
	var fds []int
	closeFDs := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	b, release, err := b.withLayers()
	if err != nil {
		return err
	}
	defer release()
	b, proxy, env, err := b.withProxy(env)
	if err != nil {
		return err
	}
	args, err := b.args(path, argv, dir, !terminal, func(data []byte) (int, error) {
		fd, err := dataFD(data)
		if err == nil {
			fds = append(fds, fd)
		}
		return fd, err
	}, func(path string) (int, error) {
		fd, err := openUnfollowed(path)
		if err == nil {
			fds = append(fds, fd)
		}
		return fd, err
	})
	if err != nil {
		closeFDs()
		proxy.stop()
		return err
	}
	scopeThread()
	sigs := make(chan os.Signal, 16)
	NotifyCaught(sigs, forwarded...)
	// Only the standard streams are named; every other descriptor the
	// caller left open (agents use 3, 4 and 10+) is inherited as it is,
	// at its own number, and so are the data descriptors above.
	pid, err := syscall.ForkExec(b.probe.Path, args, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
		// Without a terminal, bwrap gets a process group of its own: a
		// signal to the caller's group (agents stop commands that way)
		// reaches cordon, which passes it on to the shell, instead of
		// killing bwrap, which forwards nothing and would take the
		// sandbox down before the shell's traps ran. With a terminal,
		// the shell stays in the terminal's foreground group.
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: !terminal},
	})
	closeFDs()
	if err != nil {
		signal.Stop(sigs)
		proxy.stop()
		return fmt.Errorf("cannot start bwrap (%s): %w", b.probe.Path, err)
	}
	// The limits go on bwrap, not on cordon (a memory limit would starve
	// the Go runtime), at once: bwrap forks the sandbox only after its
	// setup, and everything in it inherits them.
	if err := limitProcess(pid, b.limits()); err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		signal.Stop(sigs)
		proxy.stop()
		return err
	}
	go forward(sigs, pid, terminal)
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	proxy.stop()
	exitLike(bwrapStatus(ws))
	return nil
}

// printable escapes control characters in s.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// bwrapStatus turns bwrap's exit status back into the confined program's
// end. bwrap reports a program killed by signal N as exit status 128+N;
// cordon then dies of N itself, so that the caller sees a signal, as it
// would from the real shell. (A shell that exits with 128+N on its own,
// after a child of its was killed, is seen as killed too.)
func bwrapStatus(ws syscall.WaitStatus) syscall.WaitStatus {
	if !ws.Exited() {
		return ws
	}
	code := ws.ExitStatus()
	if code <= 128 || code > 128+31 || !fatalSignal(syscall.Signal(code-128)) {
		return ws
	}
	// A wait status for "killed by signal N": N in the low 7 bits.
	return syscall.WaitStatus(code - 128)
}

// fatalSignal reports whether the default action of sig ends the
// process.
func fatalSignal(sig syscall.Signal) bool {
	switch sig {
	case syscall.SIGCHLD, syscall.SIGCONT, syscall.SIGURG, syscall.SIGWINCH,
		syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
		return false
	}
	return true
}

// logicalDir returns pwd when it names the current directory (through
// symbolic links, as a shell's PWD does), else "".
func logicalDir(pwd string) string {
	if !filepath.IsAbs(pwd) {
		return ""
	}
	var a, b unix.Stat_t
	if unix.Stat(pwd, &a) != nil || unix.Stat(".", &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		return ""
	}
	return pwd
}

// scopeThread confines this thread, and so bwrap and everything it
// starts, to a Landlock domain that only scopes: no connecting to the
// host's abstract Unix sockets (an X server's @/tmp/.X11-unix/X0, which
// hiding /tmp/.X11-unix does not reach) and no signals to processes
// outside. It handles no file system right, so bwrap can still mount. It
// needs Landlock ABI 6 (Linux 6.12); on older kernels it reports false
// and changes nothing.
//
// Each domain is nested in the one its thread was in: Landlock lets no
// process trace (ptrace, /proc/PID/mem) or signal one outside its own
// domain and those nested below it ([NestCommands]).
func scopeThread() bool {
	cfg := landlock.Config{Scoped: ll.ScopeAbstractUnixSocket | ll.ScopeSignal}
	if abi, err := ll.LandlockGetABIVersion(); err != nil || abi < 6 {
		return false
	}
	fd, flags, err := cfg.NewRulesetFD()
	if err != nil || fd < 0 {
		return false
	}
	defer unix.Close(fd)
	if unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != nil {
		return false
	}
	return ll.LandlockRestrictSelf(fd, flags) == nil
}

// NestCommands confines the calling thread, which a bwrap session's
// keeper starts its commands from, to a domain of its own nested below
// its sandbox's ([scopeThread]): no command can then trace, write the
// memory of, or signal a process of the sandbox at rest (bwrap's first
// process above all, which runs as the command's user and is not
// cordon's to make undumpable; the keeper; the network forwarder), which
// the session's manager never counts as left running by a command, and
// have it write the guarded places after the command's end. bwrap's
// sandbox handles no file system right with Landlock, and this domain
// handles none either: nothing else changes for a command. (Under
// Landlock's own sandbox, whose domain handles the file system, a layer
// more would refuse every move of a file to another directory unless it
// allowed it too; there the processes at rest are cordon's own, which
// are undumpable.) It reports false where the kernel cannot (Landlock
// ABI below 6): then a command can take bwrap's first process over
// where nothing else forbids tracing (Yama's ptrace_scope 0).
func NestCommands() bool { return scopeThread() }

// forwarded are the signals cordon passes on to the confined shell. With
// a terminal, the shell shares cordon's process group and receives the
// keyboard's signals itself; cordon only catches them so as not to die
// of them.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH}

// ForwardedSignals are the signals a process that runs a confined
// program passes on to it.
func ForwardedSignals() []os.Signal { return forwarded }

// forward passes each signal received to the shell inside the sandbox,
// the grandchild of bwrap (bwrap → the namespace's init → the shell).
func forward(sigs chan os.Signal, bwrap int, terminal bool) {
	for s := range sigs {
		sig := s.(syscall.Signal)
		if terminal && (sig == syscall.SIGINT || sig == syscall.SIGQUIT || sig == syscall.SIGWINCH) {
			continue
		}
		if shell := sandboxShell(bwrap); shell > 0 && !zombie(shell) {
			syscall.Kill(shell, sig)
		} else {
			// Not started yet, or gone: end the sandbox as a whole.
			syscall.Kill(bwrap, sig)
		}
	}
}

// sandboxShell returns the host pid of the first program in bwrap's pid
// namespace (pid 2 there, after bwrap's init), or 0.
func sandboxShell(bwrap int) int {
	for _, init := range children(bwrap) {
		for _, c := range children(init) {
			if nsPid(c) == 2 {
				return c
			}
		}
	}
	return 0
}

// zombie reports whether process pid has ended and waits to be reaped
// (its init may be stopped: a signal to it would change nothing).
func zombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(data), ')')
	return i < 0 || i+2 >= len(data) || data[i+2] == 'Z' || data[i+2] == 'X'
}

// children returns the children of process pid's main thread.
func children(pid int) []int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// nsPid returns the pid of process pid in its innermost pid namespace.
func nsPid(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[len(f)-1])
				return n
			}
		}
	}
	return 0
}

// ExitLike ends this process the way wait status ws says a program
// ended: with its exit status, or killed by the same signal.
func ExitLike(ws uint32) { exitLike(syscall.WaitStatus(ws)) }

// exitLike ends this process the way ws says the child ended: with its
// exit status, or killed by the same signal.
func exitLike(ws syscall.WaitStatus) {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		// The runtime keeps its own handler for the signals that mean a
		// crash (SIGSEGV, SIGABRT, SIGQUIT...) and would print a Go
		// trace: put the kernel's default back underneath it, with no
		// core file of cordon's own. Then the signal, to this thread,
		// so that it is delivered as the call returns.
		unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
		var dfl [4]uint64 // struct sigaction, all zero: SIG_DFL, no flags, empty mask
		unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		var set unix.Sigset_t
		set.Val[0] = 1 << (uint(sig) - 1)
		unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_UNBLOCK, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
		unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
		time.Sleep(100 * time.Millisecond)
		os.Exit(128 + int(sig))
	}
	os.Exit(ws.ExitStatus())
}

// dataFD returns a descriptor, inherited across exec, from which data can
// be read to its end: a pipe holding data.
func dataFD(data []byte) (int, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		return -1, fmt.Errorf("cannot make a pipe for bwrap: %w", err)
	}
	defer unix.Close(p[1])
	if len(data) > 0 {
		// Far below the pipe's capacity (a filter is a few hundred bytes).
		if _, err := unix.Write(p[1], data); err != nil {
			unix.Close(p[0])
			return -1, fmt.Errorf("cannot write to bwrap's pipe: %w", err)
		}
	}
	return p[0], nil
}

// setLimits applies the policy's resource limits to this process, to be
// inherited by what it execs.
func setLimits(l Limits) error { return limitProcess(0, l) }

// limitProcess applies the policy's resource limits to process pid (0:
// this one). A limit above the hard limit is lowered to it.
func limitProcess(pid int, l Limits) error {
	for _, lim := range []struct {
		res int
		val uint64
	}{{unix.RLIMIT_CPU, l.CPU}, {unix.RLIMIT_FSIZE, l.FileSize}, {unix.RLIMIT_NOFILE, l.Files}, {unix.RLIMIT_AS, l.Memory}} {
		if lim.val == 0 {
			continue
		}
		r := unix.Rlimit{Cur: lim.val, Max: lim.val}
		var old unix.Rlimit
		if unix.Prlimit(pid, lim.res, nil, &old) == nil && old.Max < lim.val {
			r = unix.Rlimit{Cur: old.Max, Max: old.Max}
		}
		if err := unix.Prlimit(pid, lim.res, &r, nil); err != nil {
			return fmt.Errorf("cannot set resource limit %d to %d: %w", lim.res, lim.val, err)
		}
	}
	return nil
}

// searchable reports whether this process, without any capability (as
// inside the sandbox), may enter dir: every directory on the way grants
// search to its user, its group or everyone else, whichever applies.
// known remembers the answers for directories.
func searchable(dir string, known map[string]bool) bool {
	if ok, seen := known[dir]; seen {
		return ok
	}
	ok := enterable(dir) && (dir == "/" || dir == "." || searchable(filepath.Dir(dir), known))
	known[dir] = ok
	return ok
}

// enterable reports whether dir itself grants search to this process's
// user, its group or everyone else, whichever applies.
func enterable(dir string) bool {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return false
	}
	var bit uint32 = 0o001
	switch uid := os.Geteuid(); {
	case int(st.Uid) == uid:
		bit = 0o100
	case int(st.Gid) == os.Getegid():
		bit = 0o010
	default:
		if groups, _ := os.Getgroups(); slices.Contains(groups, int(st.Gid)) {
			bit = 0o010
		}
	}
	return st.Mode&bit != 0
}

// swappable reports whether path lies strictly inside one of the
// directories sandboxed commands can write: a command of any sandbox of
// the user's could rename it, or put a link in its place.
func (p *Policy) swappable(path string) bool {
	return slices.ContainsFunc(p.WritableRoots(), func(r string) bool { return path != r && Within(path, r) })
}

// openUnfollowed opens path (absolute) as a descriptor bwrap inherits, to
// bind by it: every component a real directory or the file itself, no
// link on the way. ENOENT when it is gone.
func openUnfollowed(path string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	// Before Linux 5.6: the last component is not followed, and the
	// descriptor's path must be the one asked for (a link before it
	// would show its target).
	fd, err = unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if got, rerr := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); rerr != nil || got != path || unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		unix.Close(fd)
		return -1, unix.ELOOP
	}
	return fd, nil
}
