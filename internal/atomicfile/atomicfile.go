// Package atomicfile replaces a file's content so that no reader ever
// sees it half written.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces file with data (mode 0600) through a temporary file in
// the same directory, put in its place ([Replace]). It is not written
// out to disk first: after a crash of the machine the file may hold the
// old content, or none; a reader must tell (cordon's state files are
// caches, made again when they do not parse, and the guard's ledger,
// which says so when it is damaged).
func Write(file string, data []byte) error {
	return write(file, data, 0o600, false)
}

// WriteMode is Write for a file a person owns (an agent's settings): its
// content is on disk before it takes the name (a crash leaves the old
// file or the new one, never an empty one), with permissions perm.
func WriteMode(file string, data []byte, perm fs.FileMode) error {
	return write(file, data, perm, true)
}

func write(file string, data []byte, perm fs.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && perm != 0o600 { // CreateTemp makes it 0600
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = Replace(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Replace puts the file at tmp in the place of file, in one step for
// every reader (the name holds the old file or the new one), as
// os.Rename does; tmp is gone after. Where file is a regular file and
// the system can, the two names are exchanged and the old file then
// removed: on
// Linux's ext4 a rename over an existing file first has the new file's
// content written out (its auto_da_alloc heuristic), about 70 µs on an
// idle disk and more when others write, which cordon's state files,
// rewritten at every command, do not need.
func Replace(tmp, file string) error {
	if fi, err := os.Lstat(file); err == nil && fi.Mode().IsRegular() && exchange(tmp, file) == nil {
		os.Remove(tmp) // (now the old file)
		return nil
	}
	return os.Rename(tmp, file)
}
