//go:build unix

package rules

import (
	"io/fs"
	"syscall"
)

// lstatType is what [os.Lstat] says of p as far as the judgement reads
// it: whether it is a directory or a symlink (any other type is 0), or
// the error, the system's own (errors.Is tells fs.ErrNotExist). It makes
// the system call itself: os.Lstat allocates a FileInfo of some 200 bytes
// each time, and a long script names thousands of files.
func lstatType(p string) (fs.FileMode, error) {
	var st syscall.Stat_t
	err := syscall.Lstat(p, &st)
	for err == syscall.EINTR {
		err = syscall.Lstat(p, &st)
	}
	if err != nil {
		return 0, err
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir, nil
	case syscall.S_IFLNK:
		return fs.ModeSymlink, nil
	}
	return 0, nil
}
