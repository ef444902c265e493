package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The sandbox battery for Windows and the token backend: real processes
// try, through cordon run (confined, not judged), to write where the
// policy forbids. It builds here and runs only on Windows: wine's tokens
// and ACLs are emulations, and no Windows machine runs CI yet (see
// docs/windows.md).

// winBattery is a workspace (a git repository) and a cordon binary.
type winBattery struct {
	t               *testing.T
	cordon, ws, cmd string
}

func newWinBattery(t *testing.T) *winBattery {
	t.Helper()
	root := t.TempDir()
	b := &winBattery{t: t, cordon: filepath.Join(root, "cordon.exe"), ws: filepath.Join(root, "proj")}
	b.cmd = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	if out, err := exec.Command("go", "build", "-o", b.cordon, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, d := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(b.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(b.ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(b.ws, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644)
	return b
}

// run runs script with cmd.exe in the sandbox, in the workspace.
func (b *winBattery) run(script string, extra ...string) (string, int) {
	args := append([]string{"run", "--backend", "token", "--workspace", b.ws}, extra...)
	cmd := exec.Command(b.cordon, append(args, "--", b.cmd, "/d", "/c", script)...)
	cmd.Dir = b.ws
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		b.t.Fatalf("cordon run: %v", err)
	}
	return string(out), code
}

// mustNotWrite runs script and fails the test if path then exists or
// holds other bytes than before.
func (b *winBattery) mustNotWrite(what, script, path string) {
	b.t.Helper()
	before, errBefore := os.ReadFile(path)
	out, code := b.run(script)
	after, errAfter := os.ReadFile(path)
	if (errBefore == nil) != (errAfter == nil) || string(before) != string(after) {
		b.t.Errorf("%s: %s changed (exit %d):\n%s", what, path, code, out)
	}
}

func TestWindowsTokenWorkspaceWritable(t *testing.T) {
	b := newWinBattery(t)
	made := filepath.Join(b.ws, "src", "made.txt")
	out, code := b.run(`echo made> src\made.txt`)
	if data, err := os.ReadFile(made); err != nil || strings.TrimSpace(string(data)) != "made" || code != 0 {
		t.Fatalf("writing in the workspace: exit %d, %v:\n%s", code, err, out)
	}
}

func TestWindowsTokenOutsideReadOnly(t *testing.T) {
	b := newWinBattery(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(home, "cordon-battery-"+filepath.Base(filepath.Dir(b.ws))+".txt")
	t.Cleanup(func() { os.Remove(outside) })
	b.mustNotWrite("writing in the profile", `echo x> "`+outside+`"`, outside)
	b.mustNotWrite("writing a hook", `echo evil> .git\hooks\pre-commit`, filepath.Join(b.ws, ".git", "hooks", "pre-commit"))
	b.mustNotWrite("appending to .git\\config", `echo [core]>> .git\config`, filepath.Join(b.ws, ".git", "config"))
	b.mustNotWrite("replacing .git\\config", `del /f .git\config & echo [x]> .git\config`, filepath.Join(b.ws, ".git", "config"))
	b.mustNotWrite("renaming .git away", `ren .git old & mkdir .git & echo [x]> .git\config`, filepath.Join(b.ws, ".git", "config"))
}

func TestWindowsTokenNetworkOffRefused(t *testing.T) {
	b := newWinBattery(t)
	marker := filepath.Join(b.ws, "ran")
	out, code := b.run(`echo ran> ran`, "--network", "off")
	if _, err := os.Stat(marker); err == nil || code == 0 {
		t.Errorf("network off on Windows: exit %d, the command ran:\n%s", code, out)
	}
}
