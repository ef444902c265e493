// Package gitindex reads the one thing cordon needs from a git index
// file without running git: the paths of its gitlinks (entries of mode
// 160000, a nested repository committed as a submodule is), in index
// formats 2, 3 and 4, split indexes included. Only the entries are read,
// as they come: the extensions after them (which a command can make as
// large as it likes) are not.
package gitindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// maxEntries bounds the entries read from one index (a repository of
// ten million files is beyond anything cordon guards).
const maxEntries = 10_000_000

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

// read reads the index file f and returns its gitlinks, with those of
// the shared index it is split from (.git/sharedindex.*: over-counted,
// never under, when the split index removes one).
func read(f *os.File) ([]string, error) {
	links, err := parse(bufio.NewReaderSize(f, readerSize))
	if err != nil {
		return nil, err
	}
	shared, _ := filepath.Glob(filepath.Join(filepath.Dir(f.Name()), "sharedindex.*"))
	for _, sh := range shared {
		sf, err := os.Open(sh)
		if err != nil {
			continue
		}
		more, err := parse(bufio.NewReaderSize(sf, readerSize))
		sf.Close()
		if err != nil {
			return nil, err
		}
		links = append(links, more...)
	}
	slices.Sort(links)
	return slices.Compact(links), nil
}

// errBad is returned for data that is not an index git writes.
var errBad = errors.New("not a git index")

// Parse returns the gitlinks of an index file's content.
func Parse(data []byte) ([]string, error) {
	return parse(bufio.NewReaderSize(bytes.NewReader(data), readerSize))
}

// readerSize is the buffer of the reader parse reads from: a path of the
// longest an entry may have (1<<16 bytes with its NUL) fits.
const readerSize = 64 << 10

// parse reads an index's header and entries from r, a reader of at
// least readerSize bytes.
func parse(r *bufio.Reader) ([]string, error) {
	be := binary.BigEndian
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil || string(hdr[:4]) != "DIRC" {
		return nil, errBad
	}
	version, count := be.Uint32(hdr[4:]), be.Uint32(hdr[8:])
	if version < 2 || version > 4 || count > maxEntries {
		return nil, errBad
	}
	var out []string
	var prev []byte // version 4: the previous entry's path
	// ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the
	// object name (20: SHA-1 repositories only), flags (2).
	var fixed [62]byte
	for range count {
		if _, err := io.ReadFull(r, fixed[:]); err != nil {
			return nil, errBad
		}
		mode := be.Uint32(fixed[24:])
		flags := be.Uint16(fixed[60:])
		size := len(fixed)
		if flags&0x4000 != 0 { // extended flags (version 3+)
			if version < 3 {
				return nil, errBad
			}
			if _, err := r.Discard(2); err != nil {
				return nil, errBad
			}
			size += 2
		}
		var name []byte
		if version == 4 {
			// A varint of the bytes to drop from the previous path,
			// then the rest, NUL terminated; no padding.
			strip, err := varint(r)
			if err != nil || strip > uint64(len(prev)) {
				return nil, errBad
			}
			rest, err := r.ReadSlice(0)
			if err != nil || len(rest) > 1<<16 {
				return nil, errBad
			}
			// Made in place: only a gitlink's path is kept, as a copy.
			name = append(prev[:len(prev)-int(strip)], rest[:len(rest)-1]...)
		} else {
			// The reader's own bytes, until its next read: none is kept.
			rest, err := r.ReadSlice(0)
			if err != nil || len(rest) > 1<<16 {
				return nil, errBad
			}
			name = rest[:len(rest)-1]
			// Padded with NULs to a multiple of 8 bytes from the
			// entry's start, at least one (read already).
			total := size + len(rest)
			if pad := (8 - total%8) % 8; pad > 0 {
				if _, err := r.Discard(pad); err != nil {
					return nil, errBad
				}
			}
		}
		if mode == modeGitlink {
			out = append(out, string(name))
		}
		if version == 4 {
			prev = name
		}
	}
	return out, nil
}

// varint reads git's offset varint (each continuation adds one before
// shifting), as the index's version 4 uses.
func varint(r *bufio.Reader) (uint64, error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, err
	}
	v := uint64(c & 0x7f)
	for n := 1; c&0x80 != 0; n++ {
		if n > 9 {
			return 0, errBad
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, err
		}
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, nil
}
