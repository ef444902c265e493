package repotop

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFind: the nearest directory with a .git, from inside it or below,
// a nested repository's own top first, and "" with none up to the root
// (which ends the walk on every system: a drive's root on Windows is its
// own parent).
func TestFind(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "app")
	for _, d := range []string{"app/.git", "app/src/deep", "app/vendor/lib/src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A linked worktree's .git is a file.
	if err := os.WriteFile(filepath.Join(ws, "vendor/lib/.git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		ws:                                  ws,
		filepath.Join(ws, "src/deep"):       ws,
		filepath.Join(ws, "vendor/lib/src"): filepath.Join(ws, "vendor/lib"),
		filepath.Join(ws, "vendor/lib"):     filepath.Join(ws, "vendor/lib"),
	} {
		if got := Find(dir); got != want {
			t.Errorf("Find(%s) = %q, want %q", dir, got, want)
		}
	}
	done := make(chan string, 1)
	go func() { done <- Find(root) }()
	select {
	case got := <-done:
		if _, err := os.Lstat(filepath.Join(filepath.VolumeName(root)+string(filepath.Separator), ".git")); err != nil && got != "" {
			t.Errorf("Find(%s) = %q outside any repository, want \"\"", root, got)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Find(%s) did not return", root)
	}
}
