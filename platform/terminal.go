package platform

// IsTerminal reports whether the file descriptor (a handle on Windows) is
// a terminal, the way isatty(3) does: a character device such as /dev/null
// is not. On platforms cordon does not know, it reports false.
func IsTerminal(fd uintptr) bool { return isTerminal(fd) }
