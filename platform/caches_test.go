package platform

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCleanLayers: a workspace's layers unused for layerIdle go, with
// their read-only trees (a module cache's 0555 directories); recent ones
// stay.
func TestCleanLayers(t *testing.T) {
	state := t.TempDir()
	old := filepath.Join(LayersDir(state), "aaaa")
	recent := filepath.Join(LayersDir(state), "bbbb")
	for _, root := range []string{old, recent} {
		mod := filepath.Join(root, "0", "cafe", "upper", "mod@v1")
		os.MkdirAll(mod, 0o755)
		os.WriteFile(filepath.Join(mod, "m.go"), []byte("package m"), 0o444)
		os.Chmod(mod, 0o555)
	}
	long := time.Now().Add(-2 * layerIdle)
	os.Chtimes(old, long, long)
	CleanLayers(state)
	if _, err := os.Stat(old); err == nil {
		t.Error("layers unused for long were kept")
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("recent layers were removed: %v", err)
	}
	RemoveTree(recent)
}
