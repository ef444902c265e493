//go:build !windows

package platform

// systemDir is Windows' system directory; there is none here.
func systemDir() string { return "" }

// programFiles is Windows' Program Files folder; there is none here.
func programFiles() string { return "" }
