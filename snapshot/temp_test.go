package snapshot

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCleanTemp: a killed saver's partial copy, older than tempAge, goes;
// a copy in progress and the file clock stay.
func TestCleanTemp(t *testing.T) {
	s := Open(t.TempDir(), Budgets{})
	tmp := filepath.Join(s.Dir, "tmp")
	os.MkdirAll(tmp, 0o700)
	old, fresh, clock := filepath.Join(tmp, "o-old"), filepath.Join(tmp, "o-fresh"), filepath.Join(tmp, "clock")
	for _, f := range []string{old, fresh, clock} {
		os.WriteFile(f, []byte("x"), 0o400)
	}
	long := time.Now().Add(-2 * tempAge)
	os.Chtimes(old, long, long)
	os.Chtimes(clock, long, long)
	s.CleanTemp()
	for f, want := range map[string]bool{old: false, fresh: true, clock: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}
