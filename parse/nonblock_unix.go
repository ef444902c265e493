//go:build unix

package parse

import "syscall"

// syscallNonblock keeps an open from blocking should a file turn into a
// FIFO between the check and the open.
const syscallNonblock = syscall.O_NONBLOCK
