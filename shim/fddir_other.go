//go:build unix && !linux

package shim

// fdDir lists this process's open descriptors.
const fdDir = "/dev/fd"
