package platform

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mapIndex maps the index file at index (one entry, sub, a gitlink) for
// writing, shared, and returns a function that sets that entry's mode.
// The first write through the mapping sets the file's times; the next,
// on the page it dirtied, do not: its stamp stays as its content changes.
func mapIndex(t *testing.T, index string) func(mode uint32) {
	t.Helper()
	f, err := os.OpenFile(index, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	// The header (12 bytes), then the entry: its mode after ctime,
	// mtime, dev and ino.
	const mode = 12 + 24
	if binary.BigEndian.Uint32(m[mode:]) != 0o160000 || string(m[12+62:12+65]) != "sub" {
		t.Fatalf("not the index expected: % x", m[:80])
	}
	return func(v uint32) { binary.BigEndian.PutUint32(m[mode:], v) }
}

// TestGitlinksKeptMappedWrite checks that an index a process holds
// mapped for writing is not kept by its stamp: through the pages it
// dirtied already, that process changes the content (here a regular
// file's entry into a gitlink) without moving the stamp, and a kept
// answer would hide the gitlink for as long as the index is not
// written again.
func TestGitlinksKeptMappedWrite(t *testing.T) {
	_, index := gitlinksRepo(t)
	keep := filepath.Join(t.TempDir(), "state")
	setMode := mapIndex(t, index)
	setMode(0o100644) // sub is a file: no gitlink
	later := time.Now().Add(time.Minute)
	if got := gitlinksAt(index, keep, later); len(got) != 0 {
		t.Fatalf("gitlinks %q, want none", got)
	}
	before, _ := os.Stat(index)
	setMode(0o160000) // sub is a gitlink again
	after, _ := os.Stat(index)
	if !after.ModTime().Equal(before.ModTime()) {
		t.Skip("this file system moves the times at every write through a mapping")
	}
	if got := gitlinksAt(index, keep, later); !slices.Equal(got, []string{"sub"}) {
		t.Errorf("after the index was changed through a mapping, its stamp the same: gitlinks %q, want [sub]", got)
	}
}

// TestGitlinksKeptLinkSwapped checks that the answer kept for an index
// is the one of the file stamped: an index that is a symbolic link,
// pointed at another index while it is read and back, must not leave
// the other's gitlinks kept under the first one's stamp.
func TestGitlinksKeptLinkSwapped(t *testing.T) {
	ws, real := gitlinksRepo(t) // real: gitlink sub
	other := filepath.Join(t.TempDir(), "index")
	gitIndex(t, filepath.Dir(other), "", "init", "-q")
	gitIndex(t, filepath.Dir(other), "100644 "+"e69de29bb2d1d6434b8b29ae775ad8c2e48c591d"+"\tsub\n", "update-index", "--add", "--index-info")
	if err := os.Rename(filepath.Join(filepath.Dir(other), ".git", "index"), other); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(ws, ".git", "index.real")
	if err := os.Rename(real, moved); err != nil {
		t.Fatal(err)
	}
	index := real
	point := func(target string) {
		tmp := index + ".tmp"
		os.Remove(tmp)
		if err := os.Symlink(target, tmp); err != nil {
			t.Error(err)
			return
		}
		if err := os.Rename(tmp, index); err != nil {
			t.Error(err)
		}
	}
	point(moved)
	keep := filepath.Join(t.TempDir(), "state")
	kept := filepath.Join(keep, gitlinksDir, keptName(index))
	later := time.Now().Add(time.Minute)
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		os.Remove(kept)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if i%2 == 0 {
					point(other)
				} else {
					point(moved)
				}
			}
		}()
		gitlinksAt(index, keep, later)
		close(stop)
		wg.Wait()
		point(moved)
		if got := gitlinksAt(index, keep, later); !slices.Equal(got, []string{"sub"}) {
			t.Fatalf("the index with gitlink sub, once pointed elsewhere while read: gitlinks %q, want [sub]", got)
		}
	}
}

// TestNestedReposIndexFIFO checks that an index a command replaced with
// a named pipe (or a shared index beside it) does not stop the process
// that reads it: opening a pipe to read waits for a writer, and the shim
// or a session's manager would wait for good (its guard's look at the
// workspace with it).
func TestNestedReposIndexFIFO(t *testing.T) {
	ws, index := gitlinksRepo(t)
	keep := filepath.Join(t.TempDir(), "state")
	for _, fifo := range []string{filepath.Join(ws, ".git", "sharedindex."+strings.Repeat("0", 40)), index} {
		os.Remove(fifo)
		if err := unix.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"", keep} {
			done := make(chan struct{})
			go func() { NestedRepos(ws, k); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				// Let it go: a writer that closes at once.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatalf("keep %q: NestedRepos waits on the pipe %s", k, fifo)
			}
		}
	}
}
