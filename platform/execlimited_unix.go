//go:build linux || darwin

package platform

import (
	"fmt"
	"syscall"
	"unsafe"
)

// execLimited sets the resource limits l on this process and replaces it
// with the program at path. Everything execve needs is made before the
// limits are set: with a memory limit (RLIMIT_AS) below what the Go
// runtime has already reserved, any allocation after it can fail and the
// runtime dies ("out of memory") instead of running the program.
func execLimited(path string, argv, env []string, l Limits) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return fmt.Errorf("cannot run %s: %w", path, err)
	}
	av, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return fmt.Errorf("cannot run %s: %w", path, err)
	}
	ev, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return fmt.Errorf("cannot run %s: %w", path, err)
	}
	if err := setLimits(l); err != nil {
		return err
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(&av[0])), uintptr(unsafe.Pointer(&ev[0])))
	return fmt.Errorf("cannot run %s: %w", path, errno)
}
