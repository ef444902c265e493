//go:build !unix

package smallfile

import "os"

// ReadFile reads the file name whole: os.ReadFile, which adds no system
// call here.
func ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }
