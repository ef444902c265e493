//go:build !linux && !darwin

package snapshot

import (
	"errors"
	"os"
)

// cloneFile is FICLONE's and clonefile's counterpart: here the content
// is copied.
func cloneFile(src *os.File, dst string) error { return errors.ErrUnsupported }

// openFile opens path for reading, not following a final symlink where
// the system says so.
func openFile(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.Open(path)
}

// waitPidfd is Linux's; elsewhere the process is polled.
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
