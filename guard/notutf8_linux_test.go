package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/platform"
)

// TestGuardNameNotUTF8: a workspace whose name is not UTF-8 cannot keep
// a ledger (JSON replaces such bytes, and the ledger read back was never
// the workspace's: each read found it damaged and trusted the disk as it
// was, so a command's change to .envrc stayed): its ticket is refused
// with the reason, and nothing is found damaged or trusted.
func TestGuardNameNotUTF8(t *testing.T) {
	state := t.TempDir()
	ws := filepath.Join(t.TempDir(), "caf\xe9")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Skip("the file system takes no such name:", err)
	}
	envrc := filepath.Join(ws, ".envrc")
	os.WriteFile(envrc, []byte("person\n"), 0o644)
	p := &platform.Policy{Workspace: ws, Guarded: []string{envrc}, RootGuarded: []string{".envrc"}}
	_, err := Hold(state, p)
	if err == nil || !strings.Contains(err.Error(), "not UTF-8") || !strings.Contains(err.Error(), `caf\xe9`) {
		t.Fatalf("Hold in a workspace named caf\\xe9: %v; want a refusal that says why", err)
	}
	if lines, err := Reconcile(state, ws); len(lines) > 0 || err != nil {
		t.Errorf("Reconcile: %q, %v", lines, err)
	}
	if m, _ := filepath.Glob(filepath.Join(state, "guard", "*")); len(m) > 0 {
		t.Errorf("the guard kept files for it: %q", m)
	}
}
