package platform

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Confined reports whether this process already runs inside a sandbox
// that holds p, so that a shell started by a confined command (a script
// that runs bash -c) is judged again but not wrapped a second time. The
// answer comes from testing the confinement itself, never from anything
// the caller could set:
//
//   - no_new_privs is set, a seccomp filter is on that refuses what
//     cordon's refuses (TIOCSTI) and no capability is held (both backends
//     do this; an ordinary process has none of it, so most calls stop at
//     one read of /proc/self/status);
//   - a directory outside the writable ones that the file permissions let
//     this process write (the home directory, /, the workspace's parent)
//     is read-only all the same;
//   - the read-only paths cannot be written, the hidden ones cannot be
//     read (or are empty), and with the network off no IP socket can be
//     made.
func Confined(p *Policy) bool {
	status, err := selfStatus()
	if err != nil || !statusField(status, "NoNewPrivs", "1") || !statusField(status, "Seccomp", "2") ||
		!statusField(status, "CapEff", "0000000000000000") || !cordonFilter() {
		return false
	}
	// Inside a sandbox only: on the host the first test ends it.
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
	if p.Network == NetworkOff {
		if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err == nil {
			unix.Close(fd)
			return false
		}
	}
	// An explicit allowlist needs a network of the sandbox's own. The
	// default one does where bwrap runs; inside a sandbox it cannot (a
	// Landlock one, with the network on instead), and a new sandbox
	// would be no stricter.
	if p.Network == NetworkAllowlist && !p.NetworkDefault && !LoopbackOnly() {
		return false
	}
	return true
}

// LoopbackOnly reports whether this process's network namespace has no
// interface but loopback, as in a sandbox with the network allowlist.
func LoopbackOnly() bool {
	data, err := os.ReadFile("/proc/self/net/dev")
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 3 {
		return false
	}
	for _, l := range lines[2:] {
		if name, _, _ := strings.Cut(strings.TrimSpace(l), ":"); name != "lo" {
			return false
		}
	}
	return true
}

func statusField(status []byte, name, want string) bool {
	return StatusValue(status, name) == want
}

// StatusValue is the value of the field name in a /proc/PID/status, ""
// when it has none.
func StatusValue(status []byte, name string) string {
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(name+":")); ok {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

// cordonFilter reports whether the seccomp filter in force refuses what
// cordon's does: TIOCSTI on a descriptor that is no terminal is EPERM
// under it, ENOTTY without it.
func cordonFilter() bool {
	fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	c := byte('x')
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
	return errno == unix.EPERM
}

// writable reports whether a file can be made in dir (or, for a file,
// whether it opens for writing), leaving nothing behind.
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
	fd, err := unix.Open(path, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		// EROFS or EACCES: confined. A file system without O_TMPFILE
		// cannot tell, and counts as writable.
		return err != unix.EROFS && err != unix.EACCES && err != unix.EPERM
	}
	unix.Close(fd)
	return true
}

// sandboxRefusal reports whether err is a sandbox's refusal that file
// permissions never give: on Linux there is none besides EROFS.
func sandboxRefusal(err error) bool { return false }
