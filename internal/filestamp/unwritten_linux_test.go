package filestamp

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnwritten: a file no one holds open for writing is unwritten; one
// open for writing, or mapped for writing after its descriptor was
// closed, is not.
func TestUnwritten(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(name, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	unwritten := func() bool {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return Unwritten(f)
	}
	if !unwritten() {
		t.Skip("no read lease here (leases off, or a file system without them)")
	}
	w, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if unwritten() {
		t.Errorf("a file open for writing is unwritten")
	}
	m, err := unix.Mmap(int(w.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if unwritten() {
		t.Errorf("a file mapped for writing, its descriptor closed, is unwritten")
	}
	unix.Munmap(m)
	if !unwritten() {
		t.Errorf("a file no longer mapped is not unwritten")
	}
}
