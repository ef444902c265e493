// Package filelock takes exclusive, advisory locks on files, so that
// cordon's processes (shims, guards, savers) change a shared record in
// the state directory one at a time: flock(2) on Unix, LockFileEx on
// Windows. A lock ends when its file is closed, also when the process
// dies.
package filelock

import (
	"os"
	"path/filepath"
)

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

// Dir is the directory of the state directory stateDir that holds the
// lock files of its shared records (the guard's ledgers, its log of held
// intervals, the audit log's rotation). flock(2) needs only a descriptor
// open for reading: a lock file a sandboxed command can open is one it
// can hold for as long as it runs, and the guard putting back what a
// command left would wait on it. The rules hide this directory from
// every sandbox; the records themselves may stay readable.
func Dir(stateDir string) string { return filepath.Join(stateDir, "locks") }

// InDir returns the path of the lock file name in [Dir] of stateDir,
// making that directory if it is missing.
func InDir(stateDir, name string) (string, error) {
	dir := Dir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}
