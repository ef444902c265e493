package snapshot

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestKeptChangedRacy: a file the last round kept while it was changing
// (its times within a tick of the round's read) is read again, not taken
// as changed for that alone: it is as kept while it holds the content,
// permissions and type kept; a change of any of them, or its removal,
// is a change, and so is one of the same size and times.
func TestKeptChangedRacy(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "out.txt")
	link := filepath.Join(ws, "link")
	keep := func() *Store {
		t.Helper()
		s := Open(t.TempDir(), Budgets{})
		os.WriteFile(file, []byte("one\n"), 0o644)
		os.Remove(link)
		os.Symlink("out.txt", link)
		if err := s.Refresh(ws, []string{file, link}, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		for _, e := range s.Index(ws).Entries {
			if e.Stat != "racy" {
				t.Fatalf("%s was not kept as changing (%q): the test needs it so", e.Path, e.Stat)
			}
		}
		return s
	}
	s := keep()
	for i := range 3 {
		if s.KeptChanged(ws) {
			t.Fatalf("check %d: files kept while changing and left alone count as changed", i)
		}
	}
	changes := []struct {
		what string
		do   func()
	}{
		{"written, same size", func() { os.WriteFile(file, []byte("two\n"), 0o644) }},
		{"written, another size", func() { os.WriteFile(file, []byte("three\n"), 0o644) }},
		{"made executable", func() { os.Chmod(file, 0o755) }},
		{"removed", func() { os.Remove(file) }},
		{"replaced by a link", func() {
			os.Remove(file)
			os.Symlink("elsewhere", file)
		}},
		{"a link pointed elsewhere", func() {
			os.Remove(link)
			os.Symlink("elsewhere", link)
		}},
	}
	for _, c := range changes {
		s := keep()
		if s.KeptChanged(ws) {
			t.Fatalf("%s: changed before the change", c.what)
		}
		c.do()
		if !s.KeptChanged(ws) {
			t.Errorf("%s: not seen", c.what)
		}
	}
}
