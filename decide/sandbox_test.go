package decide

import (
	"github.com/cordonsh/cordon/internal/repotop"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
)

// A plain directory is a workspace only when it is in scratch space or
// named in the settings; the home directory, dot-directories and system
// directories never are, named or not.
func TestWorkspace(t *testing.T) {
	home := "/home/dev"
	named := []string{"~/src/*", "/opt/proj", "~", "~/.ssh", "/etc/*", "/"}
	for dir, want := range map[string]string{
		"/home/dev/src/app":              "/home/dev/src/app",
		"/home/dev/src/app/sub/dir":      "/home/dev/src/app",
		"/home/dev/src":                  "",
		"/home/dev/Documents":            "",
		"/home/dev":                      "",
		"/home":                          "",
		"/":                              "",
		"/tmp":                           "",
		"/tmp/build":                     "/tmp/build",
		"/var/tmp/x":                     "/var/tmp/x",
		"/root":                          "",
		"/root/proj":                     "",
		"/etc/cron.d":                    "",
		"/etc":                           "",
		"/usr/local/src":                 "",
		"/var/spool/cron":                "",
		"/var/www/site":                  "",
		"/home/dev/.ssh":                 "",
		"/home/dev/.config/systemd/user": "",
		"/home/dev/.local/share/x":       "",
		"/run/user/1000":                 "",
		"/opt":                           "",
		"/opt/proj":                      "/opt/proj",
		"/opt/proj/x":                    "/opt/proj",
		"/opt/other":                     "",
		"/home/dev/go":                   "",
		"/home/dev/go/bin":               "",
		"/home/dev/go/pkg/mod/x":         "",
		"/home/dev/bin":                  "",
	} {
		if got := chooseWorkspace(dir, home, named, "", "").Dir; got != want {
			t.Errorf("workspace of %s = %q, want %q", dir, got, want)
		}
	}
}

// With no workspace, the judge's message says how to make one, naming the
// directory and the settings file.
func TestWorkspaceHint(t *testing.T) {
	c := chooseWorkspace("/home/dev/Documents", "/home/dev", nil, "/home/dev/.config/cordon/config.yaml", "")
	h := c.Hint()
	for _, want := range []string{"git init", "workspaces: [/home/dev/Documents]", "/home/dev/.config/cordon/config.yaml"} {
		if !strings.Contains(h, want) {
			t.Errorf("hint %q does not say %q", h, want)
		}
	}
	if h := chooseWorkspace("/home/dev", "/home/dev", nil, "x", "").Hint(); h != "" {
		t.Errorf("the home directory can never be a workspace, yet the hint is %q", h)
	}
}

// A directory inside the workspace's git repository has the repository's
// top level as its workspace, anywhere; a named workspace inside the
// repository is the narrower choice.
func TestWorkspaceGitTop(t *testing.T) {
	top, _ := filepath.EvalSymlinks(t.TempDir())
	sub := filepath.Join(top, "a", "b")
	mkdirs(t, filepath.Join(top, ".git"), sub)
	if got := chooseWorkspace(sub, "/home/dev", nil, "", "").Dir; got != top {
		t.Errorf("workspace = %q, want %q", got, top)
	}
	if got := chooseWorkspace(sub, "/home/dev", []string{filepath.Join(top, "a")}, "", "").Dir; got != filepath.Join(top, "a") {
		t.Errorf("workspace = %q, want the named %q", got, filepath.Join(top, "a"))
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// Running unconfined on the user's request is said once per agent
// session (the parent process), not on every command.
func TestUnconfinedNoticeOnce(t *testing.T) {
	dir := t.TempDir()
	if msg := UnconfinedNotice(dir); msg == "" {
		t.Fatal("no notice the first time")
	}
	if msg := UnconfinedNotice(dir); msg != "" {
		t.Errorf("notice again in the same session: %q", msg)
	}
	os.WriteFile(filepath.Join(dir, "unconfined-notice"), []byte("1 another session"), 0o600)
	if msg := UnconfinedNotice(dir); msg == "" {
		t.Error("no notice in a new session")
	}
	if msg := UnconfinedNotice(""); msg == "" {
		t.Error("no notice without a state directory")
	}
}

// The project's rule files (.cordon) are read-only inside the sandbox,
// like .git/hooks: an agent cannot edit the rules that judge it.
func TestSandboxSpecProtectsProjectRules(t *testing.T) {
	spec := SandboxSpec(invocation.BuiltinRules(), &config.Config{}, "/home/dev/proj")
	for _, p := range []string{".cordon", ".git/hooks"} {
		if !slices.Contains(spec.ReadOnly, p) {
			t.Errorf("%s is not read-only in the sandbox: %q", p, spec.ReadOnly)
		}
	}
}

// A not_workspace entry in the user's rules is read, not only the
// built-in list: the git repository it names is no workspace.
func TestWorkspaceUserNotWorkspace(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, repo := filepath.Join(root, "home"), filepath.Join(root, "shared", "repo")
	mkdirs(t, filepath.Join(repo, ".git"), filepath.Join(repo, "src"), filepath.Join(home, ".config", "cordon", "rules"), filepath.Join(root, "system"))
	env := []string{"HOME=" + home, "CORDON_SYSTEM_DIR=" + filepath.Join(root, "system"), "PATH=" + os.Getenv("PATH")}
	ctx, err := NewContext(filepath.Join(repo, "src"), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Workspace.Dir != repo {
		t.Fatalf("without the user's entry the workspace is %q, want %q", ctx.Workspace.Dir, repo)
	}
	rule := "version: 1\npaths:\n  not_workspace: [" + filepath.Join(root, "shared") + "/**]\n"
	if err := os.WriteFile(filepath.Join(home, ".config", "cordon", "rules", "mine.yaml"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, err = NewContext(filepath.Join(repo, "src"), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Workspace.Dir != "" {
		t.Errorf("workspace = %q (%s), want none: the user's rules say %s/** is never one", ctx.Workspace.Dir, ctx.Workspace.Why, filepath.Join(root, "shared"))
	}
}

// TestNewProject: an empty directory directly in a projects place is a
// new project's workspace, and stays one, once filled, while it is the
// same directory; a directory made again there with something in it, one
// deeper, or the projects place itself is none.
func TestNewProject(t *testing.T) {
	// Not under /tmp (scratch space is a workspace anyway), nor in a git
	// repository (this one's checkout).
	home, err := os.MkdirTemp(os.Getenv("HOME"), ".cordon-newproject-")
	if err != nil {
		t.Skipf("no directory to make outside scratch space: %v", err)
	}
	if repotop.Find(home) != "" {
		os.RemoveAll(home)
		t.Skip("the home directory is in a git repository")
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if home, err = filepath.Abs(home); err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	state := t.TempDir()
	app := filepath.Join(home, "src", "app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	choose := func(dir string) string { return chooseWorkspace(dir, home, nil, "", state).Dir }
	if got := choose(app); got != app {
		t.Fatalf("empty %s: workspace %q", app, got)
	}
	os.WriteFile(filepath.Join(app, "package.json"), []byte("{}"), 0o644)
	os.MkdirAll(filepath.Join(app, "src"), 0o755)
	if got := choose(filepath.Join(app, "src")); got != app && runtime.GOOS == "linux" {
		t.Errorf("the filled new project from a subdirectory: workspace %q, want %s", got, app)
	}
	if got := choose(filepath.Join(home, "src")); got != "" {
		t.Errorf("the projects place itself: workspace %q", got)
	}
	// Made again with something in it: another directory.
	os.RemoveAll(app)
	os.MkdirAll(app, 0o755)
	os.WriteFile(filepath.Join(app, "notes.txt"), []byte("mine"), 0o644)
	if got := choose(app); got != "" {
		t.Errorf("a directory made again, not empty: workspace %q", got)
	}
	// Not directly in a projects place.
	deep := filepath.Join(home, "src", "group", "empty")
	os.MkdirAll(deep, 0o755)
	if got := choose(deep); got != "" {
		t.Errorf("%s: workspace %q", deep, got)
	}
	other := filepath.Join(home, "Documents", "empty")
	os.MkdirAll(other, 0o755)
	if got := choose(other); got != "" {
		t.Errorf("%s: workspace %q", other, got)
	}
}

// TestSandboxHidesMacCredentialStores makes a home with the files
// macOS keeps signed-in secrets in (a Firefox profile's passwords and
// cookies, Chrome's, VS Code's secret storage) and checks that the
// Seatbelt profile made from the built-in rules hides each one.
func TestSandboxHidesMacCredentialStores(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "src", "app")
	secrets := []string{
		"Library/Application Support/Firefox/Profiles/ab12.default-release/logins.json",
		"Library/Application Support/Firefox/Profiles/ab12.default-release/key4.db",
		"Library/Application Support/Google/Chrome/Default/Login Data",
		"Library/Application Support/Code/User/globalStorage/state.vscdb",
		"Library/Application Support/Cursor/User/globalStorage/state.vscdb.backup",
		"Library/Cookies/Cookies.binarycookies",
	}
	for _, f := range append(slices.Clone(secrets), "src/app/.git/HEAD", "Library/Application Support/Code/User/settings.json") {
		os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o755)
		os.WriteFile(filepath.Join(home, f), []byte("x"), 0o600)
	}
	p, err := platform.NewPolicy(SandboxSpec(invocation.BuiltinRules(), &config.Config{}, ws), []string{"HOME=" + home})
	if err != nil {
		t.Fatal(err)
	}
	var hidden []string
	for _, prm := range platform.NewSeatbeltProfile(p, "").Params {
		if strings.HasPrefix(prm.Name, "HIDDEN_") {
			hidden = append(hidden, prm.Value)
		}
	}
	covered := func(path string) bool {
		return slices.ContainsFunc(hidden, func(h string) bool { return platform.Within(platform.DarwinPath(path), h) })
	}
	for _, f := range secrets {
		if path := filepath.Join(home, f); !covered(path) {
			t.Errorf("%s is readable in the sandbox", f)
		}
	}
	if covered(filepath.Join(home, "Library/Application Support/Code/User/settings.json")) {
		t.Errorf("VS Code's settings are hidden; only its secret storage should be")
	}
}

// A judgement alone (cordon check: no Prepare) tells installed scripts
// from the agent's by the sandbox's writable roots without making the
// whole policy, and tells them apart as the shim does with it: the
// installed copy runs as a program, the workspace's is read and judged.
func TestInstalledWithoutPolicy(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("scripts are taken for installed software where a sandbox makes the rest read-only (Linux here)")
	}
	// The home outside scratch space (/tmp is writable in the sandbox:
	// nothing there is installed).
	user, _ := os.UserHomeDir()
	home, err := os.MkdirTemp(user, ".cordon-installed-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	ws := filepath.Join(t.TempDir(), "ws")
	bin := filepath.Join(home, ".local", "bin")
	for _, d := range []string{bin, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := []byte("#!/bin/bash\nrm -rf \"$HOME\"\n")
	for _, f := range []string{filepath.Join(bin, "tool"), filepath.Join(ws, "tool")} {
		if err := os.WriteFile(f, script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	// The agent started after the files were written (the user's), or
	// before (its own file tools may have written them).
	agentStart := time.Now().Add(time.Hour)
	verdict := func(argv []string, prepare bool) (string, bool) {
		t.Helper()
		inv, err := invocation.Decode(argv, false)
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := NewContext(ws, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		if prepare {
			ctx.Prepare = func() (*Confinement, error) { return nil, os.ErrInvalid }
		}
		ctx.AgentSince = func() time.Time { return agentStart }
		d := ctx.Decide(Request{Shell: "bash", Mode: inv.Mode.String(), Text: invocation.QuoteArgv(argv), Inv: inv, Query: true})
		if d.Error != "" {
			t.Fatalf("%q: %s", argv, d.Error)
		}
		return d.Judgement.Verdict.String(), ctx.policy != nil
	}
	for _, c := range []struct {
		argv      []string
		installed bool
	}{
		{[]string{"bash", "-c", "bash ~/.local/bin/tool"}, true},
		{[]string{"bash", "-c", "bash ./tool"}, false},
	} {
		alone, made := verdict(c.argv, false)
		if made {
			t.Errorf("%q judged alone made the whole sandbox policy", c.argv)
		}
		shim, _ := verdict(c.argv, true)
		if alone != shim {
			t.Errorf("%q: judged alone %s, as the shim judges it %s", c.argv, alone, shim)
		}
		if got := alone == "allow"; got != c.installed {
			t.Errorf("%q: %s; want allowed only for the installed copy (rm -rf \"$HOME\" inside)", c.argv, alone)
		}
	}
	// The same file outside, written after the agent started: its own
	// file tools may have put it there, so it is judged, and refused.
	agentStart = time.Now().Add(-time.Hour)
	for _, prepare := range []bool{false, true} {
		if v, _ := verdict([]string{"bash", "-c", "bash ~/.local/bin/tool"}, prepare); v == "allow" {
			t.Errorf("a script outside the writable roots written since the agent started (prepare %v): %s, want judged by its content", prepare, v)
		}
	}
}
