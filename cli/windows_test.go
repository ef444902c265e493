package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/platform"
)

// The Windows plan for a fixed policy, as people read it, against
// testdata/windows-plan.golden (CORDON_UPDATE_GOLDEN=1 rewrites it).
func TestWindowsPlanGolden(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "proj")
	for _, d := range []string{"proj/.git/hooks", "tmp"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644)
	p := &platform.Policy{
		Workspace: ws, Writable: []string{ws}, Scratch: []string{filepath.Join(root, "tmp")},
		ReadOnly:  []string{filepath.Join(ws, ".git", "hooks")},
		GitConfig: []string{filepath.Join(ws, ".git", "config")},
		Hidden:    []string{filepath.Join(root, ".ssh")}, Limits: platform.Limits{Memory: 4 << 30},
	}
	plan := platform.PlanWindows(p)
	got := strings.ReplaceAll(windowsPlanText(plan, platform.NetworkOn), root, "ROOT")
	got = filepath.ToSlash(strings.ReplaceAll(got, plan.SID, "SID"))
	golden := filepath.Join("testdata", "windows-plan.golden")
	if os.Getenv("CORDON_UPDATE_GOLDEN") == "1" {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil || got != string(want) {
		t.Errorf("the plan (%v):\n%s\nwant (%s):\n%s", err, got, golden, want)
	}
}

// cordon sandbox --platform windows prints, on any system, the plan for
// this directory's policy: the workspace's own SID granted write on it.
func TestSandboxPlatformWindows(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	ws := filepath.Join(base, "proj")
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.MkdirAll(home, 0o755)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Chdir(ws)
	real, _ := filepath.EvalSymlinks(ws)
	code, out, errOut := runMain("sandbox", "--platform", "windows")
	sid := platform.WorkspaceSID(real)
	if code != 0 || errOut != "" || !strings.Contains(out, "(A;OICI;0x1301bf;;;"+sid+")  "+real+"  (writable)") || !strings.Contains(out, "not enforced:\n") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errOut, out)
	}
	code, out, _ = runMain("sandbox", "--platform", "windows", "--json", "--network", "off")
	var plan platform.WindowsPlan
	if err := json.Unmarshal([]byte(out), &plan); code != 0 || err != nil || plan.SID != sid {
		t.Errorf("--json: exit %d, %v, SID %q", code, err, plan.SID)
	}
}
