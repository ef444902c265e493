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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cordonsh/cordon/internal/filestamp"
)

// maxEntries bounds the entries read from one index (a repository of
// ten million files is beyond anything cordon guards).
const maxEntries = 10_000_000

// modeGitlink is a gitlink's mode in the index.
const modeGitlink = 0o160000

// Gitlinks returns the paths (relative to the top level, slash
// separated) of the gitlinks in the index file at path. The last answer
// is kept for as long as the file and the shared indexes beside it are
// the same ones, unchanged (git replaces an index whole, with a new
// inode, when it writes it): a process that asks several times reads it
// once. It is kept only when their stamps vouch for their content
// ([filestamp.OfFile]: not changed just now, and nothing holds them open
// for writing, [filestamp.Unwritten]).
func Gitlinks(path string) ([]string, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	shared := OpenShared(filepath.Dir(path))
	defer CloseAll(shared)
	links, _, err := From(path, f, shared, time.Now())
	return links, err
}

// From is [Gitlinks] of the index file at path, open as f and not yet
// read, with the shared indexes beside it (open, [OpenShared]), stamped
// at now: what is read is what those files hold, whatever happens to the
// names meanwhile. key is their [Key] when their stamps vouch for the
// answer (the same before and after the read, and nothing held the
// files open for writing, [filestamp.Unwritten]), else "".
func From(path string, f *os.File, shared []*os.File, now time.Time) (links []string, key string, err error) {
	key = Key(path, f, shared, now)
	last.Lock()
	if key != "" && last.key == key {
		links := slices.Clone(last.links)
		last.Unlock()
		return links, key, nil
	}
	last.Unlock()
	vouched := key != "" && filestamp.Unwritten(f) && !slices.ContainsFunc(shared, func(s *os.File) bool { return !filestamp.Unwritten(s) })
	links, err = Read(f, shared)
	if err != nil || !vouched || Key(path, f, shared, now) != key {
		return links, "", err
	}
	last.Lock()
	last.key, last.links = key, slices.Clone(links)
	last.Unlock()
	return links, key, nil
}

// Key names the index file f at path and the shared indexes beside it
// (open) by their stamps at now, on one line; "" when one has none
// ([filestamp.OfFile]: changed too recently).
func Key(path string, f *os.File, shared []*os.File, now time.Time) string {
	var b strings.Builder
	b.WriteString(strconv.Quote(path))
	for _, g := range append([]*os.File{f}, shared...) {
		s := filestamp.OfFile(g, now)
		if s == "" {
			return ""
		}
		b.WriteString(" " + strconv.Quote(filepath.Base(g.Name())) + " " + s)
	}
	return b.String()
}

// last is Gitlinks' last answer, by the files' path and stamps.
var last struct {
	sync.Mutex
	key   string
	links []string
}

// Open opens the index file at path to read: a regular file, never
// waited for (a command can leave a named pipe in its place, which an
// open to read would wait on for good).
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, errBad
	}
	return f, nil
}

// OpenShared opens the shared indexes in the git directory dir
// (sharedindex.*), those that can be opened.
func OpenShared(dir string) []*os.File {
	names, _ := filepath.Glob(filepath.Join(dir, "sharedindex.*"))
	var out []*os.File
	for _, n := range names {
		if f, err := Open(n); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// CloseAll closes files ([OpenShared]'s).
func CloseAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// Read reads the index file f, open and not yet read, and returns its
// gitlinks with those of the shared indexes (open, not yet read) it may
// be split from (over-counted, never under, when the split index removes
// one). A shared index that is none is left out: git reads only the one
// the index names, and fails on a bad one; a command could put any file
// there, and would otherwise hide every gitlink.
func Read(f *os.File, shared []*os.File) ([]string, error) {
	links, err := parse(bufio.NewReaderSize(f, readerSize))
	if err != nil {
		return nil, err
	}
	for _, sf := range shared {
		if more, err := parse(bufio.NewReaderSize(sf, readerSize)); err == nil {
			links = append(links, more...)
		}
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
