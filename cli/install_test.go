package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/installer"
)

// fakeMachine points installEnv at a fake home holding every agent's
// directory and a settings file for each agent cordon can wire, with
// comments, CRLF, tabs and no final newline; codex and gemini are "on
// PATH".
func fakeMachine(t *testing.T) (home string, env *installer.Env) {
	home = t.TempDir()
	vars := map[string]string{"HOME": home}
	env = &installer.Env{
		Getenv: func(k string) string { return vars[k] },
		GOOS:   "linux",
		Cordon: "/usr/local/bin/cordon",
		Shims:  "/usr/local/share/cordon/shims",
		LookPath: func(name string) (string, error) {
			if name == "codex" || name == "gemini" {
				return "/usr/bin/" + name, nil
			}
			return "", fs.ErrNotExist
		},
		State: filepath.Join(home, ".local", "state", "cordon"),
	}
	files := map[string]string{
		".claude/settings.json":             "{\n  \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n  \"env\": {}\n}",
		".config/Cursor/User/settings.json": "{\r\n\t// font\r\n\t\"editor.fontSize\": 13,\r\n}\r\n",
		".config/Code/User/settings.json":   "{\n    \"terminal.integrated.defaultProfile.linux\": \"zsh\", // mine\n}\n",
		".config/zed/settings.json":         "// Zed\n{\n  \"theme\": \"One Dark\"\n}\n",
		".codex/config.toml":                "model = \"o3\"\n",
		".gemini/settings.json":             "{}\n",
	}
	for rel, text := range files {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)
	saved, savedBox := installEnv, sandboxed
	installEnv = func() (*installer.Env, error) { return env, nil }
	sandboxed = func() (string, bool) { return "", false }
	t.Cleanup(func() { installEnv, sandboxed = saved, savedBox })
	return home, env
}

// tree is every file under dir but state, with its bytes.
func tree(t *testing.T, dir, state string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if p == state {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			out[p] = string(data)
		}
		return nil
	})
	return out
}

func sameTree(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d files, want %d", what, len(b), len(a))
	}
	for p, v := range a {
		if b[p] != v {
			t.Errorf("%s: %s differs:\n got %q\nwant %q", what, p, b[p], v)
		}
	}
}

// The whole cycle through the command line: listing and --dry-run write
// nothing, install --all wires every agent found, doctor agrees, a second
// install changes nothing, and uninstall --all leaves every file as it
// was, byte for byte.
func TestInstallAllUninstallAll(t *testing.T) {
	home, env := fakeMachine(t)
	before := tree(t, home, env.State)

	code, out, errOut := runMain("install")
	if code != 0 || errOut != "" || !strings.Contains(out, "would change") || !strings.Contains(out, "Nothing was changed") || !strings.Contains(out, "Codex CLI (codex): found at /usr/bin/codex") {
		t.Fatalf("install (list) = %d %q\n%s", code, errOut, out)
	}
	if strings.Contains(out, "Aider") || strings.Contains(out, "OpenCode") {
		t.Errorf("lists agents that are not here:\n%s", out)
	}
	code, out, _ = runMain("install", "--all", "--dry-run")
	if code != 0 || !strings.Contains(out, "+++ "+filepath.Join(home, ".claude/settings.json")) || !strings.Contains(out, `+    "CLAUDE_CODE_SHELL": "/usr/local/share/cordon/shims/bash"`) {
		t.Fatalf("--dry-run = %d\n%s", code, out)
	}
	sameTree(t, "after the listing and --dry-run", before, tree(t, home, env.State))
	if _, err := os.Stat(env.State); err == nil {
		t.Error("--dry-run wrote state")
	}

	code, out, errOut = runMain("install", "--all")
	if code != 0 || errOut != "" || strings.Count(out, ": changed") != 4 || strings.Count(out, ": created") != 1 || !strings.Contains(out, "not covered: Codex has no setting") {
		t.Fatalf("install --all = %d %q\n%s", code, errOut, out)
	}
	// Doctor: a line for each file cordon install wrote, and one for each
	// agent found that no setting can point at cordon.
	if d := agentsDoctor(); d.failed() || len(d.checks) != 7 || !strings.Contains(d.text(), "claude-code: "+filepath.Join(home, ".claude/settings.json")+" points at cordon") ||
		!strings.Contains(d.text(), "warn  agent       codex: found at /usr/bin/codex, and no setting of its own can point it at cordon") ||
		!strings.Contains(d.text(), "cordon agent -- codex --sandbox danger-full-access") || !strings.Contains(d.text(), "warn  agent       gemini: found at /usr/bin/gemini") {
		t.Errorf("doctor after install:\n%s", d.text())
	}
	installed := tree(t, home, env.State)
	if code, out, _ = runMain("install", "--all"); code != 0 || strings.Contains(out, "changed") || strings.Count(out, "already points at cordon") != 5 {
		t.Errorf("second install = %d\n%s", code, out)
	}
	sameTree(t, "after a second install", installed, tree(t, home, env.State))

	if code, out, _ = runMain("uninstall"); code != 0 || strings.Count(out, ": installed") != 5 {
		t.Errorf("uninstall (list) = %d\n%s", code, out)
	}
	sameTree(t, "after listing what is installed", installed, tree(t, home, env.State))
	code, out, errOut = runMain("uninstall", "--all")
	if code != 0 || errOut != "" || strings.Count(out, "put back") != 4 || !strings.Contains(out, "removed (cordon made it)") {
		t.Fatalf("uninstall --all = %d %q\n%s", code, errOut, out)
	}
	sameTree(t, "after uninstall --all", before, tree(t, home, env.State))
	if d := agentsDoctor(); d.failed() || len(d.checks) != 6 || strings.Count(d.text(), ", not set up: its commands do not go through cordon") != 4 {
		t.Errorf("doctor after uninstall:\n%s", d.text())
	}
}

// A settings file that does not parse: install refuses it (exit 1, the
// file and the line named), touches nothing, and still wires the others.
func TestInstallRefusesMalformed(t *testing.T) {
	home, env := fakeMachine(t)
	bad := filepath.Join(home, ".config/Code/User/settings.json")
	os.WriteFile(bad, []byte("{\n  \"a\": 1\n  \"b\": 2\n}\n"), 0o644)
	code, out, _ := runMain("install", "vscode", "zed", "--json")
	if code != 1 || !strings.Contains(out, `"status": "refused"`) || !strings.Contains(out, "line 3") || !strings.Contains(out, `"status": "changed"`) {
		t.Fatalf("= %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(bad); string(data) != "{\n  \"a\": 1\n  \"b\": 2\n}\n" {
		t.Errorf("the malformed file changed: %q", data)
	}
	if d := agentsDoctor(); !d.failed() || !strings.Contains(d.checks[0].Summary, "zed: ") || !strings.Contains(d.text(), "FAIL  agent       vscode: "+bad+" does not parse (line 3") {
		t.Errorf("%s", d.text())
	}
	// a person points Zed elsewhere: doctor says so, with the fix
	zed := filepath.Join(home, ".config/zed/settings.json")
	os.WriteFile(zed, []byte("{\"terminal\": {\"shell\": \"system\"}}"), 0o644)
	if d := agentsDoctor(); !d.failed() || !strings.Contains(d.text(), "fix: run `cordon install zed`") {
		t.Errorf("doctor:\n%s", d.text())
	}
	_ = env
}

// Inside a sandbox (an agent's command) nothing is changed; --dry-run
// still shows what would be.
func TestInstallRefusedInSandbox(t *testing.T) {
	home, env := fakeMachine(t)
	before := tree(t, home, env.State)
	sandboxed = func() (string, bool) { return "Seccomp is 2", true }
	for _, args := range [][]string{{"install", "--all"}, {"uninstall", "--all"}, {"install", "zed"}} {
		if code, _, errOut := runMain(args...); code != exitError || !strings.Contains(errOut, "refused: it runs inside a sandbox (Seccomp is 2)") {
			t.Errorf("%v = %d %q", args, code, errOut)
		}
	}
	if code, out, _ := runMain("install", "--all", "--dry-run"); code != 0 || !strings.Contains(out, "+++") {
		t.Errorf("--dry-run in a sandbox = %d\n%s", code, out)
	}
	sameTree(t, "after refusals", before, tree(t, home, env.State))
}

func TestInstallUsage(t *testing.T) {
	fakeMachine(t)
	for _, args := range [][]string{{"install", "emacs"}, {"install", "--all", "zed"}, {"uninstall", "--bogus"}} {
		if code, _, errOut := runMain(args...); code != exitUsage || errOut == "" {
			t.Errorf("%v = %d %q", args, code, errOut)
		}
	}
}

// shimsBeside finds install.sh's layout: PREFIX/bin/cordon and
// PREFIX/share/cordon/shims/bash linked to it.
func TestShimsBeside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	prefix := t.TempDir()
	bin := filepath.Join(prefix, "bin", "cordon")
	shims := filepath.Join(prefix, "share", "cordon", "shims")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.MkdirAll(shims, 0o755)
	os.WriteFile(bin, []byte("x"), 0o755)
	if got := shimsBeside(bin); got != "" {
		t.Errorf("found %q with no shims", got)
	}
	os.WriteFile(filepath.Join(shims, "bash"), []byte("x"), 0o755) // a copy is not cordon
	if got := shimsBeside(bin); got != "" {
		t.Errorf("found %q with a bash that is not cordon", got)
	}
	os.Remove(filepath.Join(shims, "bash"))
	os.Symlink(bin, filepath.Join(shims, "bash"))
	if got := shimsBeside(bin); got != shims {
		t.Errorf("got %q, want %q", got, shims)
	}
}

// An agent a later cordon no longer knows can still be uninstalled by
// name, and --all includes it.
func TestUninstallUnknownAgent(t *testing.T) {
	home, env := fakeMachine(t)
	zed := filepath.Join(home, ".config/zed/settings.json")
	before, _ := os.ReadFile(zed)
	if code, out, _ := runMain("install", "zed"); code != 0 {
		t.Fatal(out)
	}
	recs, _ := filepath.Glob(filepath.Join(env.State, "install", "*.json"))
	for _, r := range recs {
		data, _ := os.ReadFile(r)
		os.WriteFile(r, []byte(strings.Replace(string(data), `"agent": "zed"`, `"agent": "zed-old"`, 1)), 0o600)
	}
	if code, out, errOut := runMain("uninstall", "--all"); code != 0 || !strings.Contains(out, "zed-old (zed-old)") {
		t.Fatalf("= %d %q\n%s", code, errOut, out)
	}
	if after, _ := os.ReadFile(zed); string(after) != string(before) {
		t.Errorf("not restored: %q", after)
	}
}

// agentsDoctor is cordon doctor with only its checks of the agents.
func agentsDoctor() *doctor {
	d := &doctor{}
	d.agentChecks()
	return d
}

// TestDoctorAgentsNotRead: Claude Code drops a settings file that is not
// strict JSON, and runs no hook with disableAllHooks: install refuses the
// first with its line and column, and doctor fails on both, installed or
// not.
func TestDoctorAgentsNotRead(t *testing.T) {
	home, _ := fakeMachine(t)
	claude := filepath.Join(home, ".claude/settings.json")
	commented := "{ // my settings\n  \"model\": \"sonnet\"\n}\n"
	os.WriteFile(claude, []byte(commented), 0o644)
	code, out, _ := runMain("install", "claude-code")
	if code != 1 || !strings.Contains(out, "line 1 column 3: a comment") || !strings.Contains(out, "Claude Code ignores the whole of such a file") {
		t.Fatalf("install of a commented file = %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(claude); string(data) != commented {
		t.Errorf("the file changed: %q", data)
	}
	if d := agentsDoctor(); !d.failed() || !strings.Contains(d.text(), "FAIL  agent       claude-code: "+claude+" is not strict JSON (line 1 column 3") {
		t.Errorf("doctor with a commented file:\n%s", d.text())
	}
	os.WriteFile(claude, []byte("{\"model\": \"sonnet\"}\n"), 0o644)
	if code, out, _ := runMain("install", "claude-code"); code != 0 {
		t.Fatalf("install = %d\n%s", code, out)
	}
	if d := agentsDoctor(); d.failed() {
		t.Errorf("doctor after install:\n%s", d.text())
	}
	data, _ := os.ReadFile(claude)
	os.WriteFile(claude, []byte(strings.Replace(string(data), "{", "{\"disableAllHooks\": true,", 1)), 0o644)
	if d := agentsDoctor(); !d.failed() || !strings.Contains(d.text(), "disableAllHooks is true in it: Claude Code runs none of its hooks, cordon's included") {
		t.Errorf("doctor with disableAllHooks:\n%s", d.text())
	}
}
