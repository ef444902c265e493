package platform

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sync"
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
	if !writesRefused(p) {
		return false
	}
	for _, ro := range p.ReadOnly {
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
	return true
}

// selfStatus is /proc/self/status, read once: the fields cordon looks at
// (no_new_privs, seccomp, capabilities) do not change before it execs.
var selfStatus = sync.OnceValues(func() ([]byte, error) { return os.ReadFile("/proc/self/status") })

func statusField(status []byte, name, want string) bool {
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(name+":")); ok {
			return string(bytes.TrimSpace(v)) == want
		}
	}
	return false
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

// writesRefused reports whether writing outside the policy's writable
// paths is seen to fail for a reason other than file permissions: a
// read-only mount (bwrap), or a refusal where the permissions allow it
// (Landlock). Every directory that can tell must say so (a weaker
// sandbox around this one may leave some writable), and at least one
// must be able to tell.
func writesRefused(p *Policy) bool {
	candidates := []string{"/", p.Home, filepath.Dir(p.Home)}
	if p.Home != "" {
		for _, d := range []string{".config", ".local", ".local/bin", ".ssh", "bin"} {
			candidates = append(candidates, filepath.Join(p.Home, d))
		}
	}
	if p.Workspace != "" {
		candidates = append(candidates, filepath.Dir(p.Workspace))
	}
	told := false
	for _, dir := range candidates {
		if dir == "" || slices.ContainsFunc(p.WritableRoots(), func(w string) bool { return Within(dir, w) }) {
			continue
		}
		switch err := unix.Access(dir, unix.W_OK); err {
		case unix.EROFS:
			told = true
		case nil:
			if writable(dir) {
				return false
			}
			told = true
		}
		// Otherwise the permissions refuse it anyway (or it is not
		// there): this directory cannot tell.
	}
	return told
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

// readable reports whether a hidden path shows anything: a file with
// data, or a directory with a file below it, other than the visible
// ones, that shows data. The names in a directory do not count: under
// Landlock they can be listed, not read.
func readable(path string, visible []string) bool { return readableDepth(path, visible, 3) }

func readableDepth(path string, visible []string, depth int) bool {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		// A socket cannot be opened, only connected to.
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return false
		}
		defer unix.Close(fd)
		return unix.Connect(fd, &unix.SockaddrUnix{Name: path}) == nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return fi.Size() > 0
	}
	if depth == 0 {
		return false
	}
	names, _ := f.Readdirnames(64)
	for _, n := range names {
		if p := filepath.Join(path, n); !slices.Contains(visible, p) && readableDepth(p, visible, depth-1) {
			return true
		}
	}
	return false
}
