//go:build !windows

package platform

import (
	"fmt"
	"os"
	"syscall"
)

// execDirect is execve(2) after an optional chdir.
func execDirect(path string, argv, env []string, dir string) error {
	if dir != "" {
		if err := os.Chdir(dir); err != nil {
			return err
		}
	}
	err := syscall.Exec(path, argv, env)
	return fmt.Errorf("exec %s: %w", path, err)
}
