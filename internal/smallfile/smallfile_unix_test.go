//go:build unix

package smallfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// ReadFile answers as os.ReadFile does: the same bytes for files of any
// size (a /proc file, whose size is 0, too), the same kind of error.
func TestReadFileAsOS(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 100_000} {
		f := filepath.Join(dir, strings.Repeat("x", 1+n%7)+string(rune('a'+len(files))))
		if err := os.WriteFile(f, bytes.Repeat([]byte("ab\n"), n)[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if runtime.GOOS == "linux" {
		files = append(files, "/proc/self/cmdline", "/proc/stat")
	}
	for _, f := range files {
		got, err := ReadFile(f)
		want, werr := os.ReadFile(f)
		if err != nil || werr != nil || (!bytes.Equal(got, want) && !strings.HasPrefix(f, "/proc/")) || (len(want) > 0) != (len(got) > 0) {
			t.Errorf("%s: %d bytes, %v; os.ReadFile: %d bytes, %v", f, len(got), err, len(want), werr)
		}
	}
	missing := filepath.Join(dir, "missing")
	_, err := ReadFile(missing)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !os.IsNotExist(err) || !errors.As(err, &pe) || pe.Op != "open" || pe.Path != missing {
		t.Errorf("missing file: %#v", err)
	}
	if _, err := ReadFile(dir); err == nil {
		t.Error("a directory was read")
	}
}

// Read keeps to its flags, its check and its bound.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(link, 0, -1, nil); err != nil || string(got) != "0123456789" {
		t.Errorf("through a link: %q, %v", got, err)
	}
	if _, err := Read(link, unix.O_NOFOLLOW, -1, nil); !errors.Is(err, unix.ELOOP) {
		t.Errorf("O_NOFOLLOW on a link: %v", err)
	}
	for _, c := range []struct {
		max int64
		ok  bool
	}{{-1, true}, {10, true}, {11, true}, {1000, true}, {9, false}, {0, false}} {
		got, err := Read(file, 0, c.max, nil)
		if c.ok != (err == nil) || (c.ok && string(got) != "0123456789") || (!c.ok && !errors.Is(err, ErrTooLarge)) {
			t.Errorf("max %d: %q, %v", c.max, got, err)
		}
	}
	if runtime.GOOS == "linux" {
		// A /proc file has a size of 0: the bound holds as it is read.
		if _, err := Read("/proc/self/status", 0, 10, nil); !errors.Is(err, ErrTooLarge) {
			t.Errorf("/proc/self/status with a bound of 10: %v", err)
		}
	}
	refused := errors.New("refused")
	var seen int64
	_, err := Read(file, 0, -1, func(st *unix.Stat_t) error { seen = st.Size; return refused })
	if err != refused || seen != 10 {
		t.Errorf("check: %v after a size of %d", err, seen)
	}
}

// TestReadDirNames: the names os.ReadDir gives, a missing directory's
// error is fs.ErrNotExist's, and a file is no directory.
func TestReadDirNames(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 300 {
		name := fmt.Sprintf("entry-%03d-%s", i, strings.Repeat("x", i%40))
		want = append(want, name)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadDirNames(dir)
	slices.Sort(got)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ReadDirNames = %d names, %v; want %d", len(got), err, len(want))
	}
	if _, err := ReadDirNames(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v", err)
	}
	if _, err := ReadDirNames(filepath.Join(dir, want[0])); err == nil {
		t.Error("a file was listed as a directory")
	}
}

// BenchmarkReadFile reads a file of a ledger's size (1 kB) with ReadFile
// and with os.ReadFile.
func BenchmarkReadFile(b *testing.B) {
	file := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(file, bytes.Repeat([]byte("x"), 1024), 0o600); err != nil {
		b.Fatal(err)
	}
	for name, read := range map[string]func(string) ([]byte, error){"smallfile": ReadFile, "os": os.ReadFile} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := read(file); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReadRegular: a regular file is read; a FIFO in its place (one no
// process writes) is an error at once, not a wait, and so is one too
// large.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	f, fifo := filepath.Join(dir, "f"), filepath.Join(dir, "fifo")
	os.WriteFile(f, []byte("[core]\n"), 0o644)
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if data, err := ReadRegular(f, 100); err != nil || string(data) != "[core]\n" {
		t.Errorf("ReadRegular(file) = %q, %v", data, err)
	}
	if _, err := ReadRegular(f, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadRegular(file, 3): %v", err)
	}
	if _, err := ReadRegular(fifo, 100); err == nil {
		t.Error("ReadRegular(fifo) read it")
	}
}
