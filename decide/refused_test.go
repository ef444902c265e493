package decide

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRefusedThroughHomeLink: a directory is refused as a workspace by
// the not_workspace entries whether the home directory is given as the
// link it is reached through or as its real path (the directory is
// always resolved).
func TestRefusedThroughHomeLink(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real-home")
	cache := filepath.Join(real, ".cache", "pre-commit", "repo1")
	os.MkdirAll(cache, 0o755)
	link := filepath.Join(base, "home")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	for _, home := range []string{link, real} {
		if !refusedBy([]string{"~/.*/**"}, cache, home) {
			t.Errorf("with HOME=%s, %s is not refused", home, cache)
		}
		if refusedBy([]string{"~/.*/**"}, filepath.Join(real, "src", "app"), home) {
			t.Errorf("with HOME=%s, a project is refused", home)
		}
	}
}
