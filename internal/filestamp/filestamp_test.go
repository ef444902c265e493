//go:build unix

package filestamp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOfFile: a file just written has no stamp; seen a while later it
// has one, the same while it is left alone, another once it is written
// again (even with the same size), or replaced by a rename.
func TestOfFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(name, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp := func(at time.Time) string {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return OfFile(f, at)
	}
	if s := stamp(time.Now()); s != "" {
		t.Errorf("a file written just now has the stamp %q", s)
	}
	later := time.Now().Add(time.Minute)
	first := stamp(later)
	if first == "" || stamp(later) != first {
		t.Fatalf("stamps of a file left alone: %q, %q", first, stamp(later))
	}
	time.Sleep(20 * time.Millisecond) // past a tick of the kernel's file clock
	os.WriteFile(name, []byte("two"), 0o644)
	second := stamp(later)
	if second == "" || second == first {
		t.Errorf("written again with the same size: stamp %q, before %q", second, first)
	}
	os.WriteFile(name+".new", []byte("two"), 0o644)
	os.Rename(name+".new", name)
	if third := stamp(later); third == "" || third == second {
		t.Errorf("replaced by a rename: stamp %q, before %q", third, second)
	}
}
