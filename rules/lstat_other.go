//go:build !unix

package rules

import (
	"io/fs"
	"os"
)

// lstatType is the type of p by [os.Lstat], or its error (see the Unix
// version).
func lstatType(p string) (fs.FileMode, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}
