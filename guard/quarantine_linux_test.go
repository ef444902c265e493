package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestQuarantineBounded: the quarantine keeps the newest moves, none
// too old, and drops the rest when a new move is made.
func TestQuarantineBounded(t *testing.T) {
	state := t.TempDir()
	parent := filepath.Join(state, "quarantine")
	old := time.Now().Add(-2 * maxQuarantineAge).UTC().Format("20060102-150405.000000000")
	os.MkdirAll(filepath.Join(parent, old+"-1"), 0o700)
	for i := range maxQuarantined + 5 {
		os.MkdirAll(filepath.Join(parent, fmt.Sprintf("%s-%d", time.Now().Add(time.Duration(i-500)*time.Second).UTC().Format("20060102-150405.000000000"), i)), 0o700)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "planted"), []byte("x"), 0o600)
	fd, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	q := newQuarantine(state)
	q.move(fd, "planted", filepath.Join(ws, "planted"))
	des, _ := os.ReadDir(parent)
	if len(des) != maxQuarantined {
		t.Errorf("%d kept, want %d", len(des), maxQuarantined)
	}
	if _, err := os.Stat(filepath.Join(parent, old+"-1")); err == nil {
		t.Error("a move past the age bound was kept")
	}
	if _, err := os.Stat(filepath.Join(q.dir, ws, "planted")); err != nil {
		t.Errorf("the new move is gone: %v", err)
	}
}
