package snapshot

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// cloneFile makes dst, which must not exist, share src's blocks
// (FICLONE), where the file system can (btrfs, XFS, bcachefs; not across
// file systems).
func cloneFile(src *os.File, dst string) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = unix.IoctlFileClone(int(f.Fd()), int(src.Fd()))
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

// openFile opens path for reading, following no symlink in any component
// (openat2 RESOLVE_NO_SYMLINKS; on kernels before 5.6, only the last).
func openFile(path string) (*os.File, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// waitPidfd waits for pid, started at start, to end through a pidfd
// (Linux 5.3+); false when it cannot.
func waitPidfd(pid int, start string) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) || errors.Is(err, unix.EINVAL) {
		return true // ended already (EINVAL: the pid is now another's thread)
	}
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if start != "" && platform.ProcessStart(pid) != start {
		return true // the pid is another process's now
	}
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		if err != unix.EINTR {
			return err == nil
		}
	}
}
