//go:build unix

package smallfile

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// ReadFile reads the file name whole, as os.ReadFile does, with the same
// errors (an *fs.PathError for which errors.Is(err, fs.ErrNotExist)
// holds when name does not exist).
func ReadFile(name string) ([]byte, error) { return Read(name, 0, -1, nil) }

// Read reads the file name, opened read-only with flags added (such as
// unix.O_NOFOLLOW). check, when not nil, is given the open file's status
// before anything is read; an error it returns is Read's. With max of 0
// or more, a file of more than max bytes is an [ErrTooLarge] error, and
// no more than max+1 bytes are read.
func Read(name string, flags int, max int64, check func(*unix.Stat_t) error) ([]byte, error) {
	fd, err := open(name, flags)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	size := int64(0)
	if err := unix.Fstat(fd, &st); err == nil {
		if st.Mode&unix.S_IFMT == unix.S_IFREG {
			size = st.Size
		}
	} else if check != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if check != nil {
		if err := check(&st); err != nil {
			return nil, err
		}
	}
	if max >= 0 && size > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	// Room for the size it has and a byte more, so that a file that did
	// not grow is read in one call and its end seen in a second; files
	// of /proc have a size of 0 and are read 512 bytes at a time or more.
	room := size + 1
	if room < 512 {
		room = 512
	}
	if max >= 0 && room > max+1 {
		room = max + 1
	}
	data := make([]byte, 0, room)
	for {
		if len(data) == cap(data) {
			if max >= 0 && int64(len(data)) > max {
				return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
			}
			grow := append(data[:cap(data)], 0)[:len(data)]
			if max >= 0 && int64(cap(grow)) > max+1 {
				grow = grow[: len(data) : max+1]
			}
			data = grow
		}
		n, err := unix.Read(fd, data[len(data):cap(data)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n <= 0 {
			return data, nil
		}
		data = data[:len(data)+n]
	}
}

// ReadDirNames returns the names in directory name, unsorted, read
// through a bare descriptor as [ReadFile] reads a file (os.ReadDir's
// would be registered with the poller): a /proc directory of a process's
// threads, read at every command's end.
func ReadDirNames(name string) ([]string, error) {
	fd, err := open(name, unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var names []string
	buf := make([]byte, 8192)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return names, &fs.PathError{Op: "readdirent", Path: name, Err: err}
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// open opens name read-only with flags added, retrying when a signal
// interrupts it, its error an *fs.PathError as os.Open's.
func open(name string, flags int) (int, error) {
	for {
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|flags, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return fd, nil
	}
}

// ReadRegular reads the regular file name (links followed), of max
// bytes at most: opened without blocking, so that a FIFO or device put
// in its place (by a sandboxed command, in the workspace) is an error,
// not a wait.
func ReadRegular(name string, max int64) ([]byte, error) {
	return Read(name, unix.O_NONBLOCK, max, func(st *unix.Stat_t) error {
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
		}
		return nil
	})
}
