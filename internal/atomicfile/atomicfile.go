// Package atomicfile replaces a file's content so that no reader ever
// sees it half written.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces file with data (mode 0600) through a temporary file in
// the same directory, renamed over it.
func Write(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
