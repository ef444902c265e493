package platform

import "golang.org/x/sys/unix"

// onFirstThread reports whether the calling thread is the process's
// first one (its thread ID is the process ID).
func onFirstThread() bool { return unix.Gettid() == unix.Getpid() }
