package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// A directory swapped for a symlink after it was pinned still receives
// what is written through the pinned path; one that is a symlink when
// pinned is refused.
func TestPinDir(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(base, "d")
	pinned, release, err := pinDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pinned, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := openFile(filepath.Join(pinned, "f")); err != nil {
		t.Errorf("a file in the pinned directory cannot be opened: %v", err)
	} else {
		f.Close()
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Fatal("the write followed the symlink swapped in")
	}
	if _, err := os.Stat(filepath.Join(dir+".moved", "f")); err != nil {
		t.Fatalf("the write did not land in the directory pinned: %v", err)
	}
	if _, _, err := pinDir(filepath.Join(dir, "sub")); err == nil {
		t.Fatal("a directory behind a symlink was pinned")
	}
	if _, err := os.Lstat(filepath.Join(outside, "sub")); err == nil {
		t.Fatal("a directory was made through the symlink")
	}
	// Missing components are made.
	p, release2, err := pinDir(filepath.Join(base, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	release2()
	if fi, err := os.Stat(filepath.Join(base, "a", "b", "c")); err != nil || !fi.IsDir() || p == "" {
		t.Fatalf("not made: %v", err)
	}
}
