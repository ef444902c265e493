// Package atomicfile replaces a file's content so that no reader ever
// sees it half written.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces file with data (mode 0600) through a temporary file in
// the same directory, put in its place by an exchange of names
// ([exchanged]). It is not written out to disk first: after a crash of
// the machine the file may hold the old content, or none; a reader must
// tell (cordon's caches are made again when they do not parse). A file
// whose loss matters is written with [WriteOrdered].
func Write(file string, data []byte) error {
	return write(file, data, 0o600, false, exchanged)
}

// WriteOrdered is Write for a file a crash must not empty (the guard's
// ledger: an empty one is a damaged one, and the guarded places are then
// trusted as they are): the temporary file is renamed over the old one,
// which file systems that write data late (ext4's auto_da_alloc, btrfs)
// take as the sign to write the new content out before the rename is
// committed, so that a crash leaves the old content or the new one. It
// costs more than Write (about 80 µs on ext4) but does not wait for the
// disk as WriteMode does.
func WriteOrdered(file string, data []byte) error {
	return write(file, data, 0o600, false, os.Rename)
}

// WriteMode is Write for a file a person owns (an agent's settings): its
// content is on disk before it takes the name (a crash leaves the old
// file or the new one, never an empty one), with permissions perm.
func WriteMode(file string, data []byte, perm fs.FileMode) error {
	return write(file, data, perm, true, exchanged)
}

// write writes data to a temporary file beside file and puts it in its
// place with place.
func write(file string, data []byte, perm fs.FileMode, sync bool, place func(tmp, file string) error) error {
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
		err = place(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// exchanged puts the file at tmp in the place of file, in one step for
// every reader (the name holds the old file or the new one), as
// os.Rename does; tmp is gone after. Where file is a regular file and
// the system can, the two names are exchanged and the old file then
// removed: on Linux's ext4 a rename over an existing file first has the
// new file's content written out (its auto_da_alloc heuristic), about
// 70 µs on an idle disk and more when others write, which a cache does
// not need (see Write; WriteOrdered renames).
func exchanged(tmp, file string) error {
	if fi, err := os.Lstat(file); err == nil && fi.Mode().IsRegular() && exchange(tmp, file) == nil {
		os.Remove(tmp) // (now the old file)
		return nil
	}
	return os.Rename(tmp, file)
}
