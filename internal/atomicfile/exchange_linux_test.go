package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExchange: the two files trade names (what Replace relies on), and
// a missing one is an error that changes nothing.
func TestExchange(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("A"), 0o600)
	os.WriteFile(b, []byte("B"), 0o600)
	if err := exchange(a, b); err != nil {
		t.Skipf("this file system cannot exchange: %v", err)
	}
	if x, _ := os.ReadFile(a); string(x) != "B" {
		t.Fatalf("a holds %q", x)
	}
	if x, _ := os.ReadFile(b); string(x) != "A" {
		t.Fatalf("b holds %q", x)
	}
	if err := exchange(a, filepath.Join(dir, "missing")); err == nil {
		t.Fatal("exchanged with a missing file")
	}
	if x, _ := os.ReadFile(a); string(x) != "B" {
		t.Fatalf("a holds %q after a failed exchange", x)
	}
}
