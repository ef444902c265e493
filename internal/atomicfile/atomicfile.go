// Package atomicfile replaces a file's content so that no reader ever
// sees it half written.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces file with data (mode 0600) through a temporary file in
// the same directory, renamed over it.
func Write(file string, data []byte) error {
	return write(file, data, 0o600, false)
}

// WriteMode is Write for a file a person owns (an agent's settings): its
// content is on disk before the rename (a crash leaves the old file or
// the new one, never an empty one), with permissions perm.
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
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
