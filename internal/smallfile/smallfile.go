// Package smallfile reads small files whole through a bare descriptor.
//
// os.Open registers each file it opens with the runtime's poller: two
// fcntl calls set the descriptor non-blocking, epoll_ctl is refused for a
// regular file (or succeeds for some of /proc, which then costs an
// epoll_ctl more at Close), and two fcntl calls set it back. A command
// through the shim reads some twenty small files (state caches, session
// files, /proc entries), each read whole at once: [ReadFile] reads them
// with open, fstat, read and close alone.
package smallfile

import "errors"

// ErrTooLarge is the error of a file larger than the bound it was read
// with.
var ErrTooLarge = errors.New("file too large")

// errNotRegular is the error of [ReadRegular] for what is not a
// regular file.
var errNotRegular = errors.New("not a regular file")
