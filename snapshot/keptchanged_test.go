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
		os.Remove(file) // (a link the case before made)
		os.WriteFile(file, []byte("one\n"), 0o644)
		// Its times ahead of the clock: kept as changing however late
		// the round reads it (a loaded machine's, CI's, may read it more
		// than a tick after the write, and the file was then kept by its
		// stat).
		ahead := time.Now().Add(time.Hour)
		if err := os.Chtimes(file, ahead, ahead); err != nil {
			t.Fatal(err)
		}
		os.Remove(link)
		os.Symlink("out.txt", link)
		if err := s.Refresh(ws, []string{file, link}, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		for _, e := range s.Index(ws).Entries {
			if e.Path == file && e.Stat != "racy" {
				t.Fatalf("%s was not kept as changing (%q): the test needs it so", e.Path, e.Stat)
			}
		}
		return s
	}
	s := keep()
	for i := range 3 {
		if s.KeptChanged(ws, nil) {
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
		if s.KeptChanged(ws, nil) {
			t.Fatalf("%s: changed before the change", c.what)
		}
		c.do()
		if !s.KeptChanged(ws, nil) {
			t.Errorf("%s: not seen", c.what)
		}
	}
}

// TestKeptChangedRemembered: a file kept while changing and read again
// is remembered by its stat only once its times are older than a tick
// (not while they could still hide a change); remembered, a change of it
// is still seen (its times move on), and so is a new round's content.
func TestKeptChangedRemembered(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "out.txt")
	s := Open(t.TempDir(), Budgets{})
	os.WriteFile(file, []byte("one\n"), 0o644)
	// Its times a little ahead of the clock: changing for the round and
	// the first check however late a loaded machine (CI's) runs them,
	// until they are passed.
	ahead := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(file, ahead, ahead); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh(ws, []string{file}, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if e := s.Index(ws).Entries; len(e) != 1 || e[0].Stat != "racy" {
		t.Fatalf("the file was not kept as changing: %+v", e)
	}
	seen := Rechecked{}
	if s.KeptChanged(ws, seen) {
		t.Fatal("a file kept while changing and left alone counts as changed")
	}
	if time.Now().Before(ahead) && len(seen) != 0 {
		t.Fatalf("remembered while its times could still hide a change: %v", seen)
	}
	time.Sleep(time.Until(ahead) + 3*tick)
	for range 2 {
		if s.KeptChanged(ws, seen) {
			t.Fatal("a file kept while changing and left alone counts as changed")
		}
	}
	if len(seen) != 1 {
		t.Fatalf("not remembered once its times were old enough: %v", seen)
	}
	os.WriteFile(file, []byte("two\n"), 0o644)
	if !s.KeptChanged(ws, seen) {
		t.Error("a remembered file written since (same size) is not seen")
	}
}
