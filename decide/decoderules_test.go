package decide

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/invocation"
)

// The shells are the rules' shell carriers: ash, rbash and busybox's sh
// are decoded like sh and bash; a name the rules do not list is a
// direct exec. A #! line naming one of them is followed too.
func TestDecodeRulesShells(t *testing.T) {
	for _, tt := range []struct{ argv0, shell string }{
		{"ash", "sh"}, {"/bin/ash", "sh"}, {"rbash", "bash"}, {"busybox-sh", "sh"}, {"mksh", "ksh"}, {"dash", "dash"}, {"-zsh", "zsh"},
	} {
		inv, err := invocation.Decode([]string{tt.argv0, "-c", "rm -rf /x"}, false)
		if err != nil || inv.Shell != tt.shell || inv.Mode != invocation.ModeCommand || inv.Script != "rm -rf /x" {
			t.Errorf("%s: shell %q mode %v script %q (%v), want %s -c", tt.argv0, inv.Shell, inv.Mode, inv.Script, err, tt.shell)
		}
	}
	if inv, _ := invocation.Decode([]string{"yash-not-listed", "-c", "x"}, false); inv.Shell != "" || inv.Mode != invocation.ModeExec {
		t.Errorf("an unlisted name is decoded as shell %q mode %v", inv.Shell, inv.Mode)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "run")
	if err := os.WriteFile(script, []byte("#!/bin/ash\nrm -rf notes\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	j, err := Check([]string{"bash", "-c", "./run"}, dir, []string{"HOME=" + dir, "PATH=/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range j.Commands {
		found = found || c.Line == "rm -rf notes"
	}
	if !found {
		t.Errorf("the #!/bin/ash script's rm was not followed: %+v", j.Commands)
	}
}
