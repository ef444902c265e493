package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/platform"
)

// A settings entry that names nothing on this machine is reported: a typo
// there would leave something unprotected without a word.
func TestUnmatched(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "Makefile"), nil, 0o644)
	cfg := &config.Config{Sandbox: config.Sandbox{
		ReadOnly: []string{"Makefile", "Makefil"},
		Hidden:   []string{"/etc/passwd", "/no/such/cordon/path"},
	}}
	got := unmatched(cfg, &platform.Policy{Workspace: ws})
	if want := []string{"Makefil", "/no/such/cordon/path"}; !slices.Equal(got, want) {
		t.Errorf("unmatched = %q, want %q", got, want)
	}
}
