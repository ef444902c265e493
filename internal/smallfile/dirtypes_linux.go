package smallfile

import (
	"encoding/binary"
	"io/fs"

	"golang.org/x/sys/unix"
)

// ReadDirTypes calls fn with the name and type of each entry of
// directory name but . and .., in the order the file system gives them,
// and returns how many there are. It reads the entries' records in place
// (getdents64): no allocation, sort or lstat per entry, which is most of
// os.ReadDir's cost in a directory of hundreds of entries (a /tmp,
// a build cache), read at a session's start. name's bytes are valid
// during the call only. opened, when not nil, is called with the
// directory's descriptor before it is read: what it learns of the file
// (fstat) is of the directory whose entries follow, whatever the path
// names by then.
func ReadDirTypes(name string, fn func(name []byte, typ Type), opened func(fd int)) (int, error) {
	fd, err := open(name, unix.O_DIRECTORY)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	if opened != nil {
		opened(fd)
	}
	n := 0
	buf := make([]byte, 32<<10)
	for {
		got, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "getdents", Path: name, Err: err}
		}
		if got <= 0 {
			return n, nil
		}
		// struct linux_dirent64: inode (8), offset (8), record length
		// (2), type (1), the name ending in NUL.
		for rec := buf[:got]; len(rec) >= 19; {
			size := int(binary.NativeEndian.Uint16(rec[16:18]))
			if size < 19 || size > len(rec) {
				return n, &fs.PathError{Op: "getdents", Path: name, Err: unix.EIO}
			}
			entry := rec[19:size]
			for i, c := range entry {
				if c == 0 {
					entry = entry[:i]
					break
				}
			}
			typ := rec[18]
			rec = rec[size:]
			if string(entry) == "." || string(entry) == ".." {
				continue
			}
			n++
			fn(entry, entryType(fd, entry, typ))
		}
	}
}

// entryType is the Type of the entry called name in the directory open
// at fd, whose record says typ (DT_UNKNOWN on some file systems: then
// asked of the file, not following a link).
func entryType(fd int, name []byte, typ byte) Type {
	switch typ {
	case unix.DT_DIR:
		return Dir
	case unix.DT_SOCK:
		return Socket
	case unix.DT_UNKNOWN:
		var st unix.Stat_t
		if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFDIR:
				return Dir
			case unix.S_IFSOCK:
				return Socket
			}
		}
	}
	return Other
}
