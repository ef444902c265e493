//go:build !unix

package parse

// syscallNonblock is 0 where opening cannot block on a FIFO.
const syscallNonblock = 0
