package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/platform"
)

// cordon sandbox --platform darwin prints, on any system, the profile and
// the parameters for this directory's policy: the paths as parameters,
// none in the profile's text, even a workspace whose name is SBPL.
func TestSandboxPlatformDarwin(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	ws := filepath.Join(base, `a") (allow default) ("`)
	for _, f := range []string{".ssh/id_ed25519", ".ssh/known_hosts", "proj/.keep"} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o755)
		os.WriteFile(filepath.Join(home, f), []byte("x"), 0o600)
	}
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Chdir(ws)
	code, out, errOut := runMain("sandbox", "--platform", "darwin")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	profile, params, ok := strings.Cut(out, ";; parameters")
	if !ok || !strings.HasPrefix(profile, "(version 1)\n") || !strings.Contains(profile, "\n(deny default)\n") {
		t.Fatalf("not a profile and its parameters:\n%s", out)
	}
	if strings.Contains(profile, ws) || strings.Contains(profile, home) {
		t.Errorf("a path is written into the profile:\n%s", profile)
	}
	real, _ := filepath.EvalSymlinks(ws)
	realHome, _ := filepath.EvalSymlinks(home)
	for _, want := range []string{"=" + strconv.Quote(platform.DarwinPath(real)), "=" + strconv.Quote(platform.DarwinPath(realHome+"/.ssh")), "=" + strconv.Quote(platform.DarwinPath(real+"/.git/hooks"))} {
		if !strings.Contains(params, want) {
			t.Errorf("no parameter %s in:\n%s", want, params)
		}
	}
	code, out, _ = runMain("sandbox", "--platform", "darwin", "--json", "--network", "off")
	var sp platform.SeatbeltProfile
	if err := json.Unmarshal([]byte(out), &sp); code != 0 || err != nil || len(sp.Params) == 0 || strings.Contains(sp.Text, "(allow network-outbound)") {
		t.Errorf("--json --network off: exit %d, %v, %d parameters", code, err, len(sp.Params))
	}
}

// --explain-denials needs a backend whose refusals the system log
// records (Seatbelt): with another, nothing runs.
func TestRunExplainDenialsElsewhere(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	marker := filepath.Join(dir, "ran")
	code, _, errOut := runMain("run", "--backend", "none", "--workspace", dir, "--explain-denials", "--", "sh", "-c", "touch "+marker)
	if code != 126 || !strings.Contains(errOut, "nothing was run") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the command ran")
	}
}
