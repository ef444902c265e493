package atomicfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWriteReplaces: an existing file gets the new content and mode
// 0600, a missing one is made, and nothing else is left in the
// directory.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	if err := Write(file, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(file, []byte("two, longer")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(file); string(got) != "two, longer" {
		t.Fatalf("content %q", got)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", fi, err)
	}
	if err := WriteMode(file, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode: %v %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left in the directory: %v", entries)
	}
}

// TestReplaceLeavesDirectory: a directory in the file's place stays,
// with what it holds, and the write fails (the exchange would have put
// the directory at the temporary name, and removed it).
func TestReplaceLeavesDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state")
	if err := os.Mkdir(file, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(file, []byte("x")); err == nil {
		t.Fatal("a directory was replaced")
	}
	if fi, err := os.Lstat(file); err != nil || !fi.IsDir() {
		t.Fatalf("the directory is gone: %v %v", fi, err)
	}
	// An empty directory too: removing it would succeed.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left in the directory: %v", entries)
	}
}

// TestReplaceLink: a symbolic link in the file's place is replaced, as a
// rename replaces it; the file it points to is left as it was.
func TestReplaceLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("theirs"), 0o600)
	file := filepath.Join(dir, "state")
	if err := os.Symlink(target, file); err != nil {
		t.Skip(err)
	}
	if err := Write(file, []byte("ours")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("not a regular file now: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "theirs" {
		t.Fatalf("the link's target was written: %q", got)
	}
}

// TestReadersSeeWholeFiles: while one file is replaced over and over, a
// reader opening it by name always finds it, holding one content or the
// other whole.
func TestReadersSeeWholeFiles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state")
	a, b := bytes.Repeat([]byte("a"), 100), bytes.Repeat([]byte("b"), 5000)
	if err := Write(file, a); err != nil {
		t.Fatal(err)
	}
	stop, seen := make(chan struct{}), make(chan string, 1)
	go func() {
		defer close(seen)
		for {
			select {
			case <-stop:
				return
			default:
			}
			got, err := os.ReadFile(file)
			switch {
			case err != nil:
				seen <- err.Error()
				return
			case !bytes.Equal(got, a) && !bytes.Equal(got, b):
				seen <- fmt.Sprintf("%d bytes", len(got))
				return
			}
			runtime.Gosched()
		}
	}()
	for i := 0; i < 2000; i++ {
		data := a
		if i%2 == 0 {
			data = b
		}
		if err := Write(file, data); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if what, ok := <-seen; ok {
		t.Fatalf("a reader saw %s", what)
	}
}

// BenchmarkWriteExisting is one state file rewritten: a cache (Write,
// an exchange of names) and the guard's ledger, twice per command
// (WriteOrdered, a rename over the old file).
func BenchmarkWriteExisting(b *testing.B) {
	for _, c := range []struct {
		name  string
		write func(string, []byte) error
	}{{"Write", Write}, {"WriteOrdered", WriteOrdered}} {
		b.Run(c.name, func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "state")
			data := bytes.Repeat([]byte("x"), 10000)
			if err := c.write(file, data); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := c.write(file, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
