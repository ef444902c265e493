// Package filelock takes exclusive, advisory locks on files, so that
// cordon's processes (shims, guards, savers) change a shared record in
// the state directory one at a time: flock(2) on Unix, LockFileEx on
// Windows. A lock ends when its file is closed, also when the process
// dies.
package filelock

import "os"

// Make opens the file name, making it if missing, and locks it,
// waiting for another holder. unlock releases the lock.
func Make(name string) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := Lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
