package platform

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUncovered: a hidden file whose cover cannot be made read-only is
// let go only when the host removed or replaced it since (a socket in
// /tmp whose test or server ended while the sandbox was made, which
// failed a command with "nothing was run"); a cover still in place, or
// a file that is not one that may vanish, is an error as before.
func TestUncovered(t *testing.T) {
	dir := t.TempDir()
	cover, other := filepath.Join(dir, "cover"), filepath.Join(dir, "other")
	for _, f := range []string{cover, other} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var st unix.Stat_t
	if err := unix.Lstat(cover, &st); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone")

	for _, c := range []struct {
		name, f string
		vanish  []string
		want    bool
	}{
		{"removed", gone, []string{gone}, true},
		{"replaced", other, []string{other}, true},
		{"still covered", cover, []string{cover}, false},
		{"not one that may vanish", other, nil, false},
		{"a path that cannot be looked at", "a\x00b", []string{"a\x00b"}, false},
	} {
		if got := uncovered(c.f, c.vanish, &st); got != c.want {
			t.Errorf("%s: uncovered = %v, want %v", c.name, got, c.want)
		}
	}
}
