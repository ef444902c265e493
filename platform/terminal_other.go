//go:build !aix && !linux && !solaris && !zos && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !windows

package platform

// isTerminal reports false: cordon does not know how to ask this platform.
func isTerminal(fd uintptr) bool { return false }
