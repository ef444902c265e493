//go:build !windows && !linux

package platform

// unmappedRoot: there are no user namespaces here.
func unmappedRoot() (uint32, bool) { return 0, false }
