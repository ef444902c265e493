package snapshot

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// cloneFile makes dst, which must not exist, a copy-on-write clone of
// src (clonefile(2) on APFS); elsewhere it fails and the content is
// copied.
func cloneFile(src *os.File, dst string) error {
	return unix.Fclonefileat(int(src.Fd()), unix.AT_FDCWD, dst, unix.CLONE_NOFOLLOW|unix.CLONE_NOOWNERCOPY)
}

// openFile opens path for reading, not following a symlink at its end.
func openFile(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, errors.New("not a regular file")
	}
	return f, nil
}

// waitPidfd is Linux's; here the process is polled.
func waitPidfd(pid int, start string) bool { return false }

// pinDir makes dir and returns it, refusing one that leads through a
// symlink (Linux's holds the directory itself; here the check and the
// writes that follow are apart).
func pinDir(dir string) (string, func(), error) {
	if err := noLinks(dir); err != nil {
		return "", nil, err
	}
	return dir, func() {}, nil
}
