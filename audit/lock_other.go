//go:build !unix

package audit

import "os"

// lock makes the lock file; without flock, rotation relies on the
// rename being seen by the next writer's size check.
func lock(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
