package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// machine is a fake home directory and an Env over it.
func machine(t *testing.T, goos string) (string, *Env) {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "USERPROFILE": home}
	if goos == "windows" {
		vars["APPDATA"] = filepath.Join(home, "AppData", "Roaming")
	}
	return home, &Env{
		Getenv:   func(k string) string { return vars[k] },
		GOOS:     goos,
		Cordon:   "/opt/cordon tools/bin/cordon",
		Shims:    "/opt/cordon/share/cordon/shims",
		LookPath: func(string) (string, error) { return "", fs.ErrNotExist },
		State:    filepath.Join(home, ".local", "state", "cordon"),
	}
}

func write(t *testing.T, path, text string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func agent(t *testing.T, name string) *Agent {
	t.Helper()
	as, err := Agents()
	if err != nil {
		t.Fatal(err)
	}
	for i := range as {
		if as[i].Name == name {
			return &as[i]
		}
	}
	t.Fatalf("no agent %s", name)
	return nil
}

// decode reads a settings file as JSON (comments, trailing commas and a
// byte order mark allowed), failing the test when it does not parse.
func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if _, err := parseJSONC(data); err != nil {
		t.Fatalf("the file does not parse: %v\n%s", err, data)
	}
	var v map[string]any
	if err := json.Unmarshal(plainJSON(data), &v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return v
}

func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// Realistic settings files as people have them: comments, trailing
// commas, tabs, three-space indents, CRLF, a byte order mark, no final
// newline, non-ASCII text, and keys of their own next to cordon's.
var fixtures = map[string]string{
	".claude/settings.json":             "{\n    \"$schema\": \"https://json.schemastore.org/claude-code-settings.json\",\n    \"model\": \"opus\",\n    \"env\": {\n        \"DISABLE_TELEMETRY\": \"1\"\n    },\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\"matcher\": \"Edit|Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"prettier --check\"}]}\n        ]\n    },\n    \"statusLine\": {\"type\": \"command\", \"command\": \"echo ✓ naïve — 日本\"}\n}",
	".config/Cursor/User/settings.json": "// Cursor settings\r\n{\r\n\t\"editor.fontSize\": 14, // größer\r\n\t\"terminal.integrated.profiles.linux\": {\r\n\t\t\"zsh\": {\"path\": \"/usr/bin/zsh\"},\r\n\t},\r\n\t\"terminal.integrated.defaultProfile.linux\": \"zsh\",\r\n\t/* block\r\n\t   comment */\r\n}\r\n",
	".cursor/hooks.json":                "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [{ \"command\": \"./fmt.sh\" }]\n  }\n}\n",
	".config/Code/User/settings.json":   "\xef\xbb\xbf{\n   \"workbench.colorTheme\": \"Default Dark Modern\",\n   \"terminal.integrated.automationProfile.linux\": null,\n   \"files.exclude\": {\"**/.git\": true,},\n   // the Copilot agent\n   \"chat.agent.enabled\": true\n}",
	".config/zed/settings.json":         "// Zed settings\n//\n// For information on how to configure Zed, see the Zed documentation.\n{\n  \"ui_font_size\": 16,\n  \"terminal\": {\n    \"shell\": \"system\",\n    \"font_size\": 13\n  }\n}\n",
}

// snapshot is every file under dir but cordon's state, by path.
func snapshot(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p == skip {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, _ := os.ReadFile(p)
			fi, _ := os.Lstat(p)
			out[p] = fi.Mode().String() + "\x00" + string(data)
		}
		return nil
	})
	return out
}

func same(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s is gone", p)
		} else if a != b {
			t.Errorf("%s is not byte for byte as before:\n got %q\nwant %q", p, a, b)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was left behind", p)
		}
	}
}

// install applies every change of agent a, failing on an error, and
// returns them.
func install(t *testing.T, e *Env, a *Agent) []*Change {
	t.Helper()
	cs := e.PlanInstall(a)
	for _, c := range cs {
		if err := e.Apply(c); err != nil {
			t.Fatalf("install %s: %v", a.Name, err)
		}
	}
	return cs
}

func uninstall(t *testing.T, e *Env, a *Agent) []*Change {
	t.Helper()
	cs, err := e.PlanUninstall(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if err := e.Apply(c); err != nil {
			t.Fatalf("uninstall %s: %v", a.Name, err)
		}
	}
	return cs
}

// pointsAtCordon checks the keys that make each agent use cordon.
func pointsAtCordon(t *testing.T, e *Env, home string) {
	t.Helper()
	read := func(rel string) map[string]any {
		data, err := os.ReadFile(filepath.Join(home, rel))
		if err != nil {
			t.Fatal(err)
		}
		return decode(t, data)
	}
	bash := e.Shims + "/bash"
	c := read(".claude/settings.json")
	if get(c, "env", "CLAUDE_CODE_SHELL") != bash || get(c, "env", "DISABLE_TELEMETRY") != "1" {
		t.Errorf("claude env: %v", get(c, "env"))
	}
	pre, _ := get(c, "hooks", "PreToolUse").([]any)
	hook := "'/opt/cordon tools/bin/cordon' hook claude-code"
	if len(pre) != 3 || get(pre[1], "matcher") != "Bash" || get(pre[1], "hooks").([]any)[0].(map[string]any)["command"] != hook ||
		get(pre[2], "matcher") != "Write|Edit|MultiEdit|NotebookEdit" || get(pre[2], "hooks").([]any)[0].(map[string]any)["command"] != hook {
		t.Errorf("claude hooks: %v", pre)
	}
	for _, rel := range []string{".config/Cursor/User/settings.json", ".config/Code/User/settings.json"} {
		v := read(rel)
		if get(v, "terminal.integrated.defaultProfile.linux") != "cordon" || get(v, "terminal.integrated.profiles.linux", "cordon", "path") != bash || get(v, "terminal.integrated.automationProfile.linux", "path") != bash {
			t.Errorf("%s: %v", rel, v)
		}
	}
	if v := read(".config/Code/User/settings.json"); get(v, "chat.tools.terminal.terminalProfile.linux", "path") != bash {
		t.Errorf("vscode copilot profile: %v", v)
	}
	if v := read(".config/Cursor/User/settings.json"); get(v, "terminal.integrated.profiles.linux", "zsh", "path") != "/usr/bin/zsh" {
		t.Errorf("cursor lost the zsh profile: %v", v)
	}
	if h := read(".cursor/hooks.json"); get(h, "version") != 1.0 || get(h, "hooks", "beforeShellExecution").([]any)[0].(map[string]any)["command"] != "'/opt/cordon tools/bin/cordon' hook cursor" {
		t.Errorf("cursor hooks: %v", h)
	} else if pre := get(h, "hooks", "preToolUse").([]any)[0].(map[string]any); pre["command"] != "'/opt/cordon tools/bin/cordon' hook cursor" || pre["matcher"] != "Write|Delete" {
		t.Errorf("cursor file hooks: %v", h)
	}
	if z := read(".config/zed/settings.json"); get(z, "terminal", "shell", "program") != bash || get(z, "terminal", "font_size") != 13.0 {
		t.Errorf("zed: %v", z)
	}
}

var withFiles = []string{"claude-code", "cursor", "vscode", "zed"}

// Install into realistic settings, check that they point at the shim,
// install again (nothing changes), uninstall: every byte is back, the
// permissions too, and no record is left.
func TestInstallUninstallByteForByte(t *testing.T) {
	home, e := machine(t, "linux")
	for rel, text := range fixtures {
		write(t, filepath.Join(home, rel), text, 0o600)
	}
	before := snapshot(t, home, e.State)
	for _, name := range withFiles {
		for _, c := range install(t, e, agent(t, name)) {
			if !c.Changed() {
				t.Errorf("%s: %s unchanged by install", name, c.Path)
			}
		}
	}
	pointsAtCordon(t, e, home)
	installed := snapshot(t, home, e.State)
	for p, v := range installed {
		if runtime.GOOS != "windows" && !strings.HasPrefix(v, "-rw-------") {
			t.Errorf("%s: mode changed: %q", p, v[:10])
		}
	}
	for _, name := range withFiles {
		for _, c := range install(t, e, agent(t, name)) {
			if c.Changed() {
				t.Errorf("%s: installing twice changes %s:\n%s", name, c.Path, Diff(c.Path, c.Before, c.After))
			}
		}
	}
	same(t, installed, snapshot(t, home, e.State))
	for _, name := range withFiles {
		for _, c := range uninstall(t, e, agent(t, name)) {
			if len(c.Notes) > 0 {
				t.Errorf("%s: notes on a clean uninstall: %v", c.Path, c.Notes)
			}
		}
	}
	same(t, before, snapshot(t, home, e.State))
	if recs, _ := e.records(""); len(recs) != 0 {
		t.Errorf("records left: %v", recs)
	}
}

// Files and directories cordon made are removed again; the agents' own
// directories stay.
func TestUninstallRemovesWhatItMade(t *testing.T) {
	home, e := machine(t, "linux")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	before := snapshot(t, home, e.State)
	for _, name := range withFiles {
		install(t, e, agent(t, name))
	}
	pointsAtCordonPartly := func() {
		data, err := os.ReadFile(filepath.Join(home, ".config/Code/User/settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		if v := decode(t, data); get(v, "terminal.integrated.defaultProfile.linux") != "cordon" {
			t.Errorf("%s", data)
		}
	}
	pointsAtCordonPartly()
	for _, name := range withFiles {
		uninstall(t, e, agent(t, name))
	}
	same(t, before, snapshot(t, home, e.State))
	for _, d := range []string{".config", ".cursor"} {
		if _, err := os.Stat(filepath.Join(home, d)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s made by install is left", d)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); err != nil {
		t.Errorf("the agent's own directory went: %v", err)
	}
}

// A file edited between install and uninstall keeps the edit: only
// cordon's keys go, a value cordon replaced comes back, and a key of
// cordon's that the person changed stays, with a note.
func TestUninstallKeepsUserEdits(t *testing.T) {
	home, e := machine(t, "linux")
	for rel, text := range fixtures {
		write(t, filepath.Join(home, rel), text, 0o644)
	}
	cursor := filepath.Join(home, ".config/Cursor/User/settings.json")
	claude := filepath.Join(home, ".claude/settings.json")
	install(t, e, agent(t, "cursor"))
	install(t, e, agent(t, "claude-code"))
	data, _ := os.ReadFile(cursor)
	edited := bytes.Replace(data, []byte("\"editor.fontSize\": 14"), []byte("\"editor.fontSize\": 15,\r\n\t\"window.zoomLevel\": 1"), 1)
	write(t, cursor, string(edited), 0o644)
	data, _ = os.ReadFile(claude)
	edited = bytes.Replace(data, []byte(e.Shims+"/bash"), []byte("/bin/zsh"), 1)
	edited = bytes.Replace(edited, []byte("\"model\": \"opus\""), []byte("\"model\": \"sonnet\""), 1)
	write(t, claude, string(edited), 0o644)

	cs := uninstall(t, e, agent(t, "cursor"))
	if len(cs) != 2 || !strings.Contains(strings.Join(cs[0].Notes, " ")+strings.Join(cs[1].Notes, " "), "edited since") {
		t.Errorf("no note that the file was edited: %+v", cs)
	}
	data, _ = os.ReadFile(cursor)
	v := decode(t, data)
	if get(v, "editor.fontSize") != 15.0 || get(v, "window.zoomLevel") != 1.0 {
		t.Errorf("the person's edit is lost:\n%s", data)
	}
	if get(v, "terminal.integrated.defaultProfile.linux") != "zsh" || get(v, "terminal.integrated.profiles.linux", "cordon") != nil || get(v, "terminal.integrated.automationProfile.linux") != nil {
		t.Errorf("cordon's keys are left, or the old default profile is not back:\n%s", data)
	}
	if !bytes.Contains(data, []byte("/* block\r\n\t   comment */")) || !bytes.Contains(data, []byte("// größer")) {
		t.Errorf("comments lost:\n%s", data)
	}
	cs = uninstall(t, e, agent(t, "claude-code"))
	if !strings.Contains(strings.Join(cs[0].Notes, " "), "CLAUDE_CODE_SHELL was changed since") {
		t.Errorf("notes: %v", cs[0].Notes)
	}
	data, _ = os.ReadFile(claude)
	v = decode(t, data)
	if get(v, "model") != "sonnet" || get(v, "env", "CLAUDE_CODE_SHELL") != "/bin/zsh" || len(get(v, "hooks", "PreToolUse").([]any)) != 1 {
		t.Errorf("after uninstall:\n%s", data)
	}
}

// A settings file that does not parse is refused and left as it is, and
// nothing is recorded.
func TestMalformedRefused(t *testing.T) {
	home, e := machine(t, "linux")
	p := filepath.Join(home, ".config/Code/User/settings.json")
	bad := "{\n  \"a\": 1,,\n  \"terminal.integrated.defaultProfile.linux\": \"bash\"\n}\n"
	write(t, p, bad, 0o644)
	cs := e.PlanInstall(agent(t, "vscode"))
	var pe *ParseError
	if len(cs) != 1 || !errors.As(cs[0].Err, &pe) || !strings.Contains(cs[0].Err.Error(), "line 2") {
		t.Fatalf("not refused: %+v", cs)
	}
	if err := e.Apply(cs[0]); err == nil {
		t.Error("Apply wrote a file that does not parse")
	}
	if data, _ := os.ReadFile(p); string(data) != bad {
		t.Errorf("the file changed: %q", data)
	}
	if _, err := os.Stat(e.State); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state written: %v", err)
	}
	// not an object either
	write(t, p, "[1, 2]", 0o644)
	if cs := e.PlanInstall(agent(t, "vscode")); cs[0].Err == nil {
		t.Error("an array document was not refused")
	}
	// installed, then broken by hand: uninstall refuses and keeps the record
	write(t, p, "{}", 0o644)
	install(t, e, agent(t, "vscode"))
	write(t, p, "{\"terminal.integrated.defaultProfile.linux\": \"cordon\" oops}", 0o644)
	cs, _ = e.PlanUninstall(agent(t, "vscode"))
	if len(cs) != 1 || cs[0].Err == nil || e.Apply(cs[0]) == nil {
		t.Fatalf("uninstall of a broken file not refused: %+v", cs)
	}
	if recs, _ := e.records("vscode"); len(recs) != 1 {
		t.Error("the record went with a refused uninstall")
	}
}

// A symbolic link (dotfiles) is edited at its target and stays a link.
func TestSymlinkedSettings(t *testing.T) {
	home, e := machine(t, "linux")
	real := filepath.Join(home, "dotfiles", "claude.json")
	write(t, real, fixtures[".claude/settings.json"], 0o644)
	link := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink("../dotfiles/claude.json", link); err != nil {
		t.Skip(err)
	}
	cs := install(t, e, agent(t, "claude-code"))
	if cs[0].Path != real {
		t.Errorf("edited %s, want the target %s", cs[0].Path, real)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	data, _ := os.ReadFile(link)
	if get(decode(t, data), "env", "CLAUDE_CODE_SHELL") != e.Shims+"/bash" {
		t.Errorf("%s", data)
	}
	uninstall(t, e, agent(t, "claude-code"))
	if data, _ := os.ReadFile(real); string(data) != fixtures[".claude/settings.json"] {
		t.Errorf("not restored: %q", data)
	}
	os.Remove(real)
	if cs := e.PlanInstall(agent(t, "claude-code")); cs[0].Err == nil {
		t.Error("a dangling link was not refused")
	}
}

// The paths and values are per system: %APPDATA% and PowerShell on
// Windows, ~/Library on macOS, no CLAUDE_CODE_SHELL where Claude Code
// uses Git Bash.
func TestPerOS(t *testing.T) {
	home, e := machine(t, "windows")
	e.Cordon, e.Shims = `C:\Users\a b\AppData\Local\cordon\bin\cordon.exe`, `C:\Users\a b\AppData\Local\cordon\shims`
	cs := e.PlanInstall(agent(t, "vscode"))
	if len(cs) != 1 || cs[0].Path != filepath.Join(home, "AppData", "Roaming", "Code", "User", "settings.json") {
		t.Fatalf("%+v", cs)
	}
	v := decode(t, cs[0].After)
	if get(v, "terminal.integrated.defaultProfile.windows") != "cordon" || get(v, "terminal.integrated.profiles.windows", "cordon", "args") != nil ||
		!strings.HasSuffix(get(v, "terminal.integrated.profiles.windows", "cordon", "path").(string), "powershell.exe") {
		t.Errorf("%s", cs[0].After)
	}
	c := decode(t, e.PlanInstall(agent(t, "claude-code"))[0].After)
	if get(c, "env") != nil {
		t.Errorf("CLAUDE_CODE_SHELL set on Windows: %v", c)
	}
	if cmd := get(c, "hooks", "PreToolUse").([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"]; cmd != `"C:/Users/a b/AppData/Local/cordon/bin/cordon.exe" hook claude-code` {
		t.Errorf("windows hook command %q", cmd)
	}
	home, e = machine(t, "darwin")
	if cs := e.PlanInstall(agent(t, "cursor")); cs[0].Path != filepath.Join(home, "Library", "Application Support", "Cursor", "User", "settings.json") {
		t.Errorf("darwin: %s", cs[0].Path)
	}
	if v := decode(t, e.PlanInstall(agent(t, "cursor"))[0].After); get(v, "terminal.integrated.defaultProfile.osx") != "cordon" {
		t.Errorf("darwin key: %v", v)
	}
}

// cordon doctor's check: ok after install, a problem with its fix once a
// person points the agent elsewhere or removes the file.
func TestCheck(t *testing.T) {
	home, e := machine(t, "linux")
	write(t, filepath.Join(home, ".config/zed/settings.json"), fixtures[".config/zed/settings.json"], 0o644)
	install(t, e, agent(t, "zed"))
	install(t, e, agent(t, "claude-code"))
	fs, err := e.Check()
	if err != nil || len(fs) != 2 || !fs[0].OK || !fs[1].OK {
		t.Fatalf("%v %+v", err, fs)
	}
	p := filepath.Join(home, ".config/zed/settings.json")
	data, _ := os.ReadFile(p)
	write(t, p, strings.Replace(string(data), e.Shims+"/bash", "/bin/bash", 1), 0o644)
	os.Remove(filepath.Join(home, ".claude/settings.json"))
	fs, _ = e.Check()
	for _, f := range fs {
		if f.OK || !strings.Contains(f.Fix, "cordon install "+f.Agent) {
			t.Errorf("%+v", f)
		}
	}
}

// Every agent in agents.yaml is usable: a title, a binary or directory to
// find it by, paths for every system, and either files or what to do
// instead.
func TestAgentsData(t *testing.T) {
	as, err := Agents()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range as {
		if seen[a.Name] || a.Title == "" || len(a.Binaries)+len(a.Dirs) == 0 || (len(a.Files) == 0 && a.Cannot == "") {
			t.Errorf("%s: incomplete or repeated", a.Name)
		}
		seen[a.Name] = true
		for _, f := range a.Files {
			for _, goos := range []string{"linux", "darwin", "windows"} {
				if f.Path[goos] == "" {
					t.Errorf("%s: no path for %s", a.Name, goos)
				}
			}
		}
	}
	for _, want := range []string{"claude-code", "codex", "gemini", "cursor", "vscode", "copilot", "aider", "zed", "opencode"} {
		if !seen[want] {
			t.Errorf("no %s", want)
		}
	}
}

func yamlUnmarshal(text string, v any) error { return yaml.Unmarshal([]byte(text), v) }

// A write that fails leaves no record behind: the file is as it was, and
// uninstall has nothing to undo.
func TestFailedWriteKeepsNoRecord(t *testing.T) {
	home, e := machine(t, "linux")
	p := filepath.Join(home, ".config/zed/settings.json")
	write(t, p, fixtures[".config/zed/settings.json"], 0o644)
	cs := e.PlanInstall(agent(t, "zed"))
	os.RemoveAll(filepath.Dir(p)) // gone between the plan and the write
	if err := e.Apply(cs[0]); err == nil {
		t.Fatal("the write did not fail")
	}
	if names, err := e.Installed(); err != nil || len(names) != 0 {
		t.Errorf("a record is left: %v %v", names, err)
	}
}

// A record of an agent agents.yaml no longer lists is still reported by
// Check, with the way out.
func TestRecordOfUnknownAgent(t *testing.T) {
	home, e := machine(t, "linux")
	write(t, filepath.Join(home, ".config/zed/settings.json"), "{}", 0o644)
	install(t, e, agent(t, "zed"))
	recs, _ := e.records("zed")
	recs[0].Agent = "zed-old"
	data, _ := json.Marshal(recs[0])
	write(t, e.recordPath(recs[0].Path), string(data), 0o600)
	if names, _ := e.Installed(); len(names) != 1 || names[0] != "zed-old" {
		t.Errorf("Installed = %v", names)
	}
	fs, _ := e.Check()
	if len(fs) != 1 || fs[0].OK || fs[0].Fix != "run `cordon uninstall zed-old`" {
		t.Errorf("%+v", fs)
	}
	uninstall(t, e, &Agent{Name: "zed-old"})
	if data, _ := os.ReadFile(filepath.Join(home, ".config/zed/settings.json")); string(data) != "{}" {
		t.Errorf("not restored: %q", data)
	}
}

// The records hold copies of settings files: only their owner reads them.
func TestRecordsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits")
	}
	home, e := machine(t, "linux")
	write(t, filepath.Join(home, ".claude/settings.json"), `{"env": {"ANTHROPIC_API_KEY": "sk-secret"}}`, 0o600)
	install(t, e, agent(t, "claude-code"))
	recs, _ := filepath.Glob(filepath.Join(e.recordDir(), "*"))
	for _, r := range append(recs, e.recordDir()) {
		if fi, err := os.Stat(r); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: %v %v", r, fi.Mode(), err)
		}
	}
	if len(recs) != 1 {
		t.Errorf("records: %v", recs)
	}
}

// A settings file changed between the plan and the write (the agent
// saving its own settings meanwhile) is not overwritten with a plan made
// from what it held before: Apply refuses, and the file keeps the other
// writer's change, for install and uninstall alike.
func TestChangedSincePlanned(t *testing.T) {
	home, e := machine(t, "linux")
	p := filepath.Join(home, ".claude", "settings.json")
	write(t, p, fixtures[".claude/settings.json"], 0o644)
	meanwhile := `{"permissions": {"allow": ["Bash(npm test)"]}}`
	try := func(what string, cs []*Change) {
		t.Helper()
		write(t, p, meanwhile, 0o644)
		if err := e.Apply(cs[0]); err == nil || !strings.Contains(err.Error(), "changed") {
			t.Errorf("%s over a file changed since planned: %v, want refused", what, err)
		}
		if data, _ := os.ReadFile(p); string(data) != meanwhile {
			t.Errorf("%s: the file lost the change made meanwhile: %q", what, data)
		}
	}
	try("install", e.PlanInstall(agent(t, "claude-code")))
	if recs, _ := e.records(""); len(recs) != 0 {
		t.Errorf("a refused install left %d records", len(recs))
	}
	write(t, p, fixtures[".claude/settings.json"], 0o644)
	install(t, e, agent(t, "claude-code"))
	cs, err := e.PlanUninstall(agent(t, "claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	try("uninstall", cs)
}

// TestFileToolMatchers: the hook's matcher that cordon install writes
// names exactly the file tools cordon hook judges, for each agent.
func TestFileToolMatchers(t *testing.T) {
	agents, err := Agents()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		var tools []string
		for _, ft := range a.FileTools {
			tools = append(tools, ft.Tools...)
		}
		var matchers []string
		for _, f := range a.Files {
			for _, e := range f.Edits {
				if e.Append.Kind == 0 {
					continue
				}
				var v map[string]any
				if e.Append.Decode(&v) == nil && v["matcher"] != nil && v["matcher"] != "Bash" {
					matchers = append(matchers, v["matcher"].(string))
				}
			}
		}
		if len(tools) == 0 && len(matchers) == 0 {
			continue
		}
		if len(matchers) != 1 || matchers[0] != strings.Join(tools, "|") {
			t.Errorf("%s: file hook matchers %q, file tools %q", a.Name, matchers, tools)
		}
	}
}

// TestStrictJSON: Claude Code ignores a settings file that is not strict
// JSON, so cordon refuses to edit one with a comment or a trailing comma,
// names the place, and leaves it as it is; doctor's check fails on it. A
// JSONC file (VS Code's) keeps its comments.
func TestStrictJSON(t *testing.T) {
	home, e := machine(t, "linux")
	p := filepath.Join(home, ".claude/settings.json")
	for name, tt := range map[string]struct{ text, where string }{
		"line comment":   {"{\n  // my settings\n  \"model\": \"sonnet\"\n}\n", "line 2 column 3: a comment"},
		"block comment":  {"{\"model\": \"sonnet\" /* x */}", "line 1 column 20: a comment"},
		"trailing comma": {"{\n  \"env\": {\"A\": \"1\",},\n  \"model\": \"sonnet\"\n}\n", "line 2 column 19: a comma after the last member"},
		"array comma":    {"{\"permissions\": {\"allow\": [\"Bash(ls)\",]}}", "a comma after the last element"},
	} {
		write(t, p, tt.text, 0o644)
		cs := e.PlanInstall(agent(t, "claude-code"))
		var pe *ParseError
		if len(cs) != 1 || !errors.As(cs[0].Err, &pe) || !strings.Contains(cs[0].Err.Error(), tt.where) || !strings.Contains(cs[0].Err.Error(), "Claude Code ignores the whole of such a file") {
			t.Errorf("%s: %+v, want a refusal at %q", name, cs, tt.where)
			continue
		}
		if e.Apply(cs[0]) == nil {
			t.Errorf("%s: written", name)
		}
		if data, _ := os.ReadFile(p); string(data) != tt.text {
			t.Errorf("%s: the file changed", name)
		}
	}
	// Installed into strict JSON, then a comment added by hand: the check
	// fails and says why.
	write(t, p, "{\"model\": \"sonnet\"}\n", 0o644)
	install(t, e, agent(t, "claude-code"))
	data, _ := os.ReadFile(p)
	write(t, p, strings.Replace(string(data), "{", "{ // mine\n", 1), 0o644)
	fs, err := e.Check()
	if err != nil || len(fs) != 1 || fs[0].OK || !strings.Contains(fs[0].Problem, "not strict JSON") {
		t.Errorf("check of a commented Claude Code file: %v %+v", err, fs)
	}
	// VS Code reads JSON with comments: edited, comments kept.
	vs := filepath.Join(home, ".config/Code/User/settings.json")
	write(t, vs, "{\n  // mine\n  \"editor.fontSize\": 13,\n}\n", 0o644)
	if cs := install(t, e, agent(t, "vscode")); len(cs) != 1 || cs[0].Err != nil {
		t.Fatalf("vscode: %+v", cs)
	}
	if data, _ := os.ReadFile(vs); !strings.Contains(string(data), "// mine") {
		t.Errorf("vscode lost its comment:\n%s", data)
	}
}

// TestHooksOff: cordon doctor's check says when the file holds cordon's
// hooks but a key of the agent's turns every hook off.
func TestHooksOff(t *testing.T) {
	home, e := machine(t, "linux")
	p := filepath.Join(home, ".claude/settings.json")
	write(t, p, "{\"disableAllHooks\": false}\n", 0o644)
	install(t, e, agent(t, "claude-code"))
	if fs, _ := e.Check(); len(fs) != 1 || !fs[0].OK {
		t.Fatalf("%+v", fs)
	}
	data, _ := os.ReadFile(p)
	write(t, p, strings.Replace(string(data), "false", "true", 1), 0o644)
	fs, _ := e.Check()
	if len(fs) != 1 || fs[0].OK || !strings.Contains(fs[0].Problem, "disableAllHooks") || !strings.Contains(fs[0].Fix, "disableAllHooks") {
		t.Errorf("hooks off: %+v", fs)
	}
}

// TestTerminalKeepsShell: an IDE's terminal keeps the person's shell, as
// cordon's shim of that name: the file's default profile, else $SHELL;
// bash, said, when cordon has no shim for it. Installing again changes
// nothing.
func TestTerminalKeepsShell(t *testing.T) {
	home, e := machine(t, "linux")
	e.Shims = filepath.Join(home, "shims")
	for _, name := range []string{"bash", "sh", "zsh", "dash"} {
		write(t, filepath.Join(e.Shims, name), "", 0o755)
	}
	vars := map[string]string{"HOME": home, "SHELL": "/usr/bin/fish"}
	e.Getenv = func(k string) string { return vars[k] }
	vs := filepath.Join(home, ".config/Code/User/settings.json")
	write(t, vs, "{\n  \"terminal.integrated.defaultProfile.linux\": \"zsh\"\n}\n", 0o644)
	cs := install(t, e, agent(t, "vscode"))
	if len(cs) != 1 || !slicesContain(cs[0].Notes, "its terminals now start "+e.Shims+"/zsh, your shell (zsh), through cordon") {
		t.Fatalf("vscode: %+v", cs)
	}
	data, _ := os.ReadFile(vs)
	v := decode(t, data)
	if get(v, "terminal.integrated.profiles.linux", "cordon", "path") != e.Shims+"/zsh" || get(v, "terminal.integrated.automationProfile.linux", "path") != e.Shims+"/zsh" {
		t.Errorf("vscode:\n%s", data)
	}
	if cs := e.PlanInstall(agent(t, "vscode")); cs[0].Changed() {
		t.Errorf("installing again changes:\n%s", Diff(vs, cs[0].Before, cs[0].After))
	}
	// No default profile: the login shell, fish, which has no shim.
	zed := filepath.Join(home, ".config/zed/settings.json")
	write(t, zed, "{}\n", 0o644)
	cs = install(t, e, agent(t, "zed"))
	if len(cs) != 1 || !slicesContain(cs[0].Notes, "cordon has no shim for your shell fish") {
		t.Fatalf("zed: %+v", cs)
	}
	if data, _ := os.ReadFile(zed); get(decode(t, data), "terminal", "shell", "program") != e.Shims+"/bash" {
		t.Errorf("zed:\n%s", data)
	}
	vars["SHELL"] = "/bin/zsh"
	uninstall(t, e, agent(t, "zed"))
	cs = install(t, e, agent(t, "zed"))
	if data, _ := os.ReadFile(zed); get(decode(t, data), "terminal", "shell", "program") != e.Shims+"/zsh" {
		t.Errorf("zed with SHELL=/bin/zsh:\n%s", data)
	}
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s || strings.Contains(x, s) {
			return true
		}
	}
	return false
}
