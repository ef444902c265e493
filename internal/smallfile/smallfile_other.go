//go:build !unix

package smallfile

import "os"

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
