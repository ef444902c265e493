package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Sandbox returns the backend that confines programs by p: Seatbelt, for
// auto and seatbelt; none runs them unconfined. The error, a
// [*SandboxError], explains what is missing and how to fix it.
func Sandbox(name string, p *Policy, stateDir string) (Backend, error) {
	if err := CheckBackend(name); err != nil {
		return nil, err
	}
	switch name {
	case BackendNone:
		return Direct, nil
	case BackendBwrap, BackendLandlock:
		return nil, &SandboxError{Backend: name, Reasons: []string{name + " is a Linux sandbox; on macOS use auto or seatbelt"}}
	}
	if err := allowlistFallback(p, BackendSeatbelt, "the bwrap or Landlock backend on Linux (a network namespace of its own)"); err != nil {
		return nil, &SandboxError{Backend: name, Reasons: []string{err.Error()}}
	}
	b, err := newSeatbelt(p)
	if err != nil {
		return nil, &SandboxError{Backend: name, Reasons: []string{err.Error()}}
	}
	return b, nil
}

// seatbeltBackend runs programs under sandbox-exec with the policy's
// profile. sandbox-exec applies the profile and execs cordon itself as
// [SeatbeltRole], which sets the resource limits and execs the program
// with its own argv[0] (sandbox-exec would pass the path instead): one
// process from the shim to the shell, so its pid, terminal and exit
// status are the shell's.
type seatbeltBackend struct {
	policy  *Policy
	profile *SeatbeltProfile
	self    string // the cordon binary, run inside the sandbox
	tag     string // marks the profile's denials in the system log ("" for none)
}

func newSeatbelt(p *Policy) (*seatbeltBackend, error) {
	if fi, err := os.Stat(SeatbeltExec); err != nil || fi.Mode()&0o111 == 0 {
		return nil, errors.New(SeatbeltExec + " is missing: it comes with macOS; cordon cannot confine commands without it")
	}
	if sandboxed() {
		msg := "this process already runs inside a Seatbelt sandbox that is not cordon's (the agent's own?) or is cordon's with a weaker policy (the network on where this command wants it off), and macOS cannot start a sandbox inside another: " +
			"turn the agent's sandbox off so that cordon's replaces it (Codex: --sandbox danger-full-access; Claude Code: sandbox.enabled false), or, to run commands only in the agent's sandbox, set 'backend: none' in ~/.config/cordon/config.yaml"
		if v := os.Getenv("CODEX_SANDBOX"); v != "" {
			msg += " (CODEX_SANDBOX=" + v + " says Codex started it)"
		}
		return nil, errors.New(msg)
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot locate the cordon binary, which starts the program inside the sandbox: %v", err)
	}
	if isShellName(filepath.Base(self)) {
		return nil, fmt.Errorf("the cordon binary %s is named like a shell; install it as cordon with the shells as links to it (./install.sh)", self)
	}
	// (On macOS every command makes its sandbox: no session to spare the
	// search for.)
	p.SearchSockets()
	return &seatbeltBackend{policy: p, profile: NewSeatbeltProfile(p, ""), self: self}, nil
}

func (b *seatbeltBackend) Name() string { return BackendSeatbelt }

// args is sandbox-exec's command line for the program at path.
func (b *seatbeltBackend) args(path string, argv []string) []string {
	l := b.policy.Limits
	inner := []string{b.self, SeatbeltRole, strconv.FormatUint(l.CPU, 10), strconv.FormatUint(l.FileSize, 10),
		strconv.FormatUint(l.Files, 10), strconv.FormatUint(l.Memory, 10), path}
	return b.profile.Args(append(inner, argv...))
}

func (b *seatbeltBackend) Exec(path string, argv, env []string, dir string) error {
	return execDirect(SeatbeltExec, b.args(path, argv), SeatbeltEnv(env), dir)
}

func (b *seatbeltBackend) Start(path string, argv, env []string, stdin *os.File) (*Child, error) {
	s := &spawn{path: SeatbeltExec, argv: b.args(path, argv), env: SeatbeltEnv(env), stdin: stdin, sys: groupAttr(&syscall.SysProcAttr{}, 0)}
	return s.start()
}

func (b *seatbeltBackend) withTag(tag string) Backend {
	c := *b
	c.tag, c.profile = tag, NewSeatbeltProfile(b.policy, tag)
	return &c
}

// SeatbeltMain is cordon run by sandbox-exec inside the sandbox: args
// are [SeatbeltRole, cpu, file size, open files, memory, path, argv...].
// It sets the limits and execs the program; it returns only on failure.
func SeatbeltMain(args []string) int {
	if len(args) < 7 || args[0] != SeatbeltRole {
		fmt.Fprintln(os.Stderr, "cordon: the sandbox's starter is run by cordon itself, not by hand")
		return 126
	}
	var v [4]uint64
	for i := range v {
		v[i], _ = strconv.ParseUint(args[1+i], 10, 64)
	}
	err := execLimited(args[5], args[6:], os.Environ(), Limits{CPU: v[0], FileSize: v[1], Files: v[2], Memory: v[3]})
	fmt.Fprintf(os.Stderr, "cordon: %v\n", err)
	if errors.Is(err, syscall.ENOENT) {
		return 127
	}
	return 126
}

// setLimits sets the resource limits of this process; a limit above the
// hard limit is lowered to it.
func setLimits(l Limits) error {
	for _, lim := range []struct {
		res int
		val uint64
	}{{unix.RLIMIT_CPU, l.CPU}, {unix.RLIMIT_FSIZE, l.FileSize}, {unix.RLIMIT_NOFILE, l.Files}, {unix.RLIMIT_AS, l.Memory}} {
		if lim.val == 0 {
			continue
		}
		r := unix.Rlimit{Cur: lim.val, Max: lim.val}
		var old unix.Rlimit
		if unix.Getrlimit(lim.res, &old) == nil && old.Max < lim.val {
			r = unix.Rlimit{Cur: old.Max, Max: old.Max}
		}
		if err := unix.Setrlimit(lim.res, &r); err != nil {
			return fmt.Errorf("cannot set resource limit %d to %d: %w", lim.res, lim.val, err)
		}
	}
	return nil
}

// SeatbeltApplied reports whether a Seatbelt profile confines this
// process, cordon's or another's (see [Confined] for which).
func SeatbeltApplied() bool { return sandboxed() }

// sandboxed reports whether this process runs under a Seatbelt profile:
// kern.uuid, which every process may read, is one no sandbox profile
// lets through (cordon's leaves it out on purpose). One sysctl: a
// process outside every sandbox, the common case, pays nothing more.
func sandboxed() bool {
	_, err := unix.SysctlRaw("kern.uuid")
	return err != nil && err != unix.ENOENT
}

// Confined reports whether this process already runs inside a sandbox
// that holds p (a shell started by a confined command), so that it is
// judged again but not wrapped a second time: Seatbelt cannot nest. It
// tests the confinement itself, never anything the caller could set:
// this process is sandboxed, directories outside the writable ones that
// the permissions let it write refuse it all the same, the read-only
// paths cannot be written, the hidden ones cannot be read, and with the
// network off no connection can be made.
func Confined(p *Policy) bool {
	if !sandboxed() {
		return false
	}
	p.FindScratchRepositories()
	if !writesRefused(p) {
		return false
	}
	for _, ro := range p.ReadOnly {
		// A repository in scratch space made after this sandbox
		// started has no read-only hooks in it, and a new sandbox could
		// not be made here: as in a session's sandbox, its
		// configuration is the guard's (docs/session.md). The rest
		// must hold.
		if slices.Contains(p.scratchReadOnly, ro) {
			continue
		}
		if unix.Access(ro, unix.W_OK) == nil && writable(ro) {
			return false
		}
	}
	for _, h := range p.Hidden {
		if readable(h, p.Visible) {
			return false
		}
	}
	return p.Network != NetworkOff || !connects()
}

// sandboxRefusal reports whether err is a refusal file permissions never
// give: Seatbelt's EPERM.
func sandboxRefusal(err error) bool { return err == unix.EPERM }

// writable reports whether a file can be made in dir (or, for a file,
// whether it opens for writing), leaving nothing behind. Only called
// inside a sandbox (see [Confined]).
func writable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return false
		}
		unix.Close(fd)
		return true
	}
	probe := filepath.Join(path, fmt.Sprintf(".cordon-probe-%d", os.Getpid()))
	fd, err := unix.Open(probe, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err != unix.EPERM && err != unix.EACCES && err != unix.EROFS
	}
	unix.Close(fd)
	unix.Unlink(probe)
	return true
}

// connects reports whether a TCP connection to the loopback can be
// tried: refused by the port (nothing listens on the discard port) but
// not by a sandbox (EPERM).
func connects() bool {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	err = unix.Connect(fd, &unix.SockaddrInet4{Port: 9, Addr: [4]byte{127, 0, 0, 1}})
	return err != unix.EPERM && err != unix.EACCES
}

// Describe reports how b confines a program: its name, sandbox-exec's
// path, what it cannot enforce here, and its command line for path and
// argv (the profile shown by cordon sandbox --platform darwin).
func Describe(b Backend, path string, argv []string) *Report {
	r := &Report{Backend: b.Name()}
	switch b := b.(type) {
	case *seatbeltBackend:
		r.Detail = SeatbeltExec
		r.Degraded = SeatbeltDegradations(b.policy)
		r.CommandLine = b.args(path, argv)
		r.CommandLine[2] = "<profile: cordon sandbox --platform darwin>"
	case direct:
		r.Degraded = []string{"nothing is confined: the settings ask for no sandbox (backend: none)"}
	}
	return r
}

// Filtered reports whether this process already runs inside a sandbox
// (Seatbelt's, cordon's or another's): a test suite run through cordon
// skips what cannot work nested.
func Filtered() bool { return sandboxed() }
