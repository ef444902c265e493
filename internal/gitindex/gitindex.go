// Package gitindex reads the one thing cordon needs from a git index
// file without running git: the paths of its gitlinks (entries of mode
// 160000, a nested repository committed as a submodule is), in index
// formats 2, 3 and 4.
package gitindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
)

// MaxSize is the largest index file Gitlinks reads.
const MaxSize = 16 << 20

// ErrTooLarge is returned for an index file larger than MaxSize.
var ErrTooLarge = errors.New("the index is too large to read")

// modeGitlink is a gitlink's mode in the index.
const modeGitlink = 0o160000

// Gitlinks returns the paths (relative to the top level, slash
// separated) of the gitlinks in the index file at path. The last answer
// is kept for as long as the file is the same one, unchanged (git
// replaces the index whole, with a new inode, when it writes it): a
// process that asks several times reads it once.
func Gitlinks(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	key := fileKey(fi)
	if key != "" {
		key = path + " " + key
	}
	last.Lock()
	if key != "" && last.key == key {
		links := slices.Clone(last.links)
		last.Unlock()
		return links, nil
	}
	last.Unlock()
	links, err := read(f)
	if err == nil {
		last.Lock()
		last.key, last.links = key, slices.Clone(links)
		last.Unlock()
	}
	return links, err
}

// last is Gitlinks' last answer, by the file's path and identity.
var last struct {
	sync.Mutex
	key   string
	links []string
}

// read reads the index file f and returns its gitlinks.
func read(f *os.File) ([]string, error) {
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, ErrTooLarge
	}
	return Parse(data)
}

// errBad is returned for data that is not an index git writes.
var errBad = errors.New("not a git index")

// Parse returns the gitlinks of an index file's content.
func Parse(data []byte) ([]string, error) {
	be := binary.BigEndian
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errBad
	}
	version, count := be.Uint32(data[4:]), be.Uint32(data[8:])
	if version < 2 || version > 4 {
		return nil, errBad
	}
	var out []string
	var prev []byte // version 4: the previous entry's path
	off := 12
	for range count {
		// ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each),
		// the object name (20, or 32 with SHA-256: told by where the
		// flags leave a valid path), flags (2).
		const fixed = 40
		if off+fixed > len(data) {
			return nil, errBad
		}
		mode := be.Uint32(data[off+24:])
		e, name, err := entryName(data, off+fixed, version, prev)
		if err != nil {
			return nil, err
		}
		if mode == modeGitlink {
			out = append(out, string(name))
		}
		prev, off = name, e
	}
	return out, nil
}

// entryName reads, from off (just after an entry's fixed part up to the
// object name), the object name, the flags and the path; it returns the
// offset of the next entry and the path. Only SHA-1 repositories'
// 20-byte names are read (a SHA-256 one's index is not parsed: errBad).
func entryName(data []byte, off int, version uint32, prev []byte) (int, []byte, error) {
	be := binary.BigEndian
	start := off - 40 // the entry's first byte
	off += 20         // the object name
	if off+2 > len(data) {
		return 0, nil, errBad
	}
	flags := be.Uint16(data[off:])
	off += 2
	if flags&0x4000 != 0 { // extended flags (version 3+)
		if version < 3 || off+2 > len(data) {
			return 0, nil, errBad
		}
		off += 2
	}
	if version == 4 {
		// A varint of the bytes to drop from the previous path, then
		// the rest, NUL terminated; no padding.
		strip, n := varint(data[off:])
		if n <= 0 || strip > uint64(len(prev)) {
			return 0, nil, errBad
		}
		off += n
		end := bytes.IndexByte(data[off:], 0)
		if end < 0 {
			return 0, nil, errBad
		}
		name := append(append([]byte{}, prev[:len(prev)-int(strip)]...), data[off:off+end]...)
		return off + end + 1, name, nil
	}
	end := bytes.IndexByte(data[off:], 0)
	if end < 0 {
		return 0, nil, errBad
	}
	name := data[off : off+end]
	// Padded with NULs to a multiple of 8 bytes from the entry's start,
	// at least one.
	size := off + end - start
	next := start + (size+8)&^7
	if next > len(data) {
		return 0, nil, errBad
	}
	return next, name, nil
}

// varint reads git's offset varint (each continuation adds one before
// shifting), as the index's version 4 uses; n is 0 for a bad one.
func varint(b []byte) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 0x7f)
	n = 1
	for c&0x80 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		c = b[n]
		n++
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, n
}
