//go:build unix

package snapshot

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lock takes the store's exclusive lock; unlock releases it.
func (s *Store) lock() (unlock func(), err error) {
	return flock(filepath.Join(s.Dir, "lock"), true)
}

// flock locks file (made if missing), waiting when wait is true; ok is
// false without wait when another process holds it.
func flock(file string, wait bool) (func(), error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the snapshot store: %v", err)
	}
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
