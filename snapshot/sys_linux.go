package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
	// A path in a directory pinDir holds is opened below that directory.
	dirfd, rel := unix.AT_FDCWD, path
	if rest, ok := strings.CutPrefix(path, "/proc/self/fd/"); ok {
		if n, name, ok := strings.Cut(rest, "/"); ok {
			if fd, err := strconv.Atoi(n); err == nil {
				dirfd, rel = fd, name
			}
		}
	}
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
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

// pinDir makes dir and returns a path that leads to it as it is now,
// opened without following a symlink in any component (openat2
// RESOLVE_NO_SYMLINKS, the missing components made one by one below
// the last one opened): /proc/self/fd/N, which stays that directory
// whatever is renamed or swapped for a link afterwards. release closes
// it. Where openat2 or /proc is missing, dir itself, checked.
func pinDir(dir string) (string, func(), error) {
	dir = filepath.Clean(dir)
	var missing []string
	top := dir
	for {
		if _, err := os.Lstat(top); err == nil || top == filepath.Dir(top) {
			break
		}
		missing = append(missing, filepath.Base(top))
		top = filepath.Dir(top)
	}
	how := func() *unix.OpenHow {
		return &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, top, how())
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		if err := noLinks(dir); err != nil {
			return "", nil, err
		}
		return dir, func() {}, nil
	}
	for i := len(missing) - 1; err == nil && i >= 0; i-- {
		if e := unix.Mkdirat(fd, missing[i], 0o755); e != nil && !errors.Is(e, unix.EEXIST) {
			unix.Close(fd)
			return "", nil, &os.PathError{Op: "mkdir", Path: dir, Err: e}
		}
		var next int
		next, err = unix.Openat2(fd, missing[i], how())
		unix.Close(fd)
		fd = next
	}
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return "", nil, fmt.Errorf("%s now leads through a symlink; not restored there", dir)
	}
	if err != nil {
		return "", nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	pinned := "/proc/self/fd/" + strconv.Itoa(fd)
	if _, err := os.Stat(pinned); err != nil {
		unix.Close(fd)
		if err := noLinks(dir); err != nil {
			return "", nil, err
		}
		return dir, func() {}, nil
	}
	return pinned, func() { unix.Close(fd) }, nil
}
