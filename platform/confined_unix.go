//go:build linux || darwin

package platform

import (
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// writesRefused reports whether writing outside the policy's writable
// paths is seen to fail for a reason other than file permissions: a
// read-only mount (bwrap), or a refusal where the permissions allow it
// (Landlock, Seatbelt). Every directory that can tell must say so (a weaker
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
		switch err := unix.Access(dir, unix.W_OK); {
		case err == unix.EROFS || sandboxRefusal(err):
			told = true
		case err == nil:
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

// readable reports whether a hidden path shows anything: a file with
// data, or a directory with a file below it, other than the visible
// ones, that shows data. The names in a directory do not count: under
// Landlock they can be listed, not read.
// A socket inside a hidden directory does not count: which of the
// host's sockets a sandbox reaches is the business of the policy's host
// sockets (Landlock before ABI 9 cannot refuse a connection by path, and
// says so), and a session's own socket is one.
func readable(path string, visible []string) bool { return readableDepth(path, visible, 3) }

func readableDepth(path string, visible []string, depth int) bool {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		if depth < 3 {
			return false
		}
		// A socket cannot be opened, only connected to.
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return false
		}
		unix.CloseOnExec(fd)
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
