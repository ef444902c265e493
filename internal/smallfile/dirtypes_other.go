//go:build !linux

package smallfile

import (
	"io/fs"
	"os"
)

// ReadDirTypes calls fn with the name and type of each entry of
// directory name but . and .., and returns how many there are (on
// Linux, read in place; here, os.ReadDir's). opened is not called here.
func ReadDirTypes(name string, fn func(name []byte, typ Type), opened func(fd int)) (int, error) {
	entries, err := os.ReadDir(name)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		typ := Other
		switch t := e.Type(); {
		case t.IsDir():
			typ = Dir
		case t&fs.ModeSocket != 0:
			typ = Socket
		}
		fn([]byte(e.Name()), typ)
	}
	return len(entries), nil
}
