//go:build !unix

package smallfile

import (
	"io/fs"
	"os"
)

// ReadFile reads the file name whole: os.ReadFile, which adds no system
// call here.
func ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// ReadDirNames returns the names in directory name, unsorted.
func ReadDirNames(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// ReadRegular reads the regular file name (links followed), of max
// bytes at most.
func ReadRegular(name string, max int64) ([]byte, error) {
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	case fi.Size() > max:
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	return os.ReadFile(name)
}
