package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestQuarantineFallsBackToRename: when the quarantine cannot take a
// file (its directory cannot be made: a state directory on another
// file system that is full, a file where a directory should be), the
// file is renamed beside itself to a name no tool reads, not deleted: a
// person's file the guard took for a command's is never lost (found by
// an attacker reading the code).
func TestQuarantineFallsBackToRename(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(state, "quarantine"), nil, 0o600) // not a directory
	os.WriteFile(filepath.Join(dir, ".npmrc"), []byte("the person's\n"), 0o600)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	line := newQuarantine(state).move(fd, ".npmrc", filepath.Join(dir, ".npmrc"))
	if _, err := os.Lstat(filepath.Join(dir, ".npmrc")); err == nil {
		t.Fatalf("still in place: %s", line)
	}
	aside, _ := filepath.Glob(filepath.Join(dir, ".npmrc.cordon-aside-*"))
	if len(aside) != 1 || !strings.Contains(line, "renamed it") {
		t.Fatalf("not renamed beside it (%q): %s", aside, line)
	}
	if data, _ := os.ReadFile(aside[0]); string(data) != "the person's\n" {
		t.Errorf("content: %q", data)
	}
}
