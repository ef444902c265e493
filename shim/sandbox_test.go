package shim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/config"
)

func TestWorkspace(t *testing.T) {
	home := "/home/dev"
	for dir, want := range map[string]string{
		"/home/dev/src/app":              "/home/dev/src/app",
		"/home/dev":                      "",
		"/home":                          "",
		"/":                              "",
		"/tmp":                           "",
		"/tmp/build":                     "/tmp/build",
		"/root":                          "",
		"/root/proj":                     "/root/proj",
		"/etc/cron.d":                    "",
		"/etc":                           "",
		"/usr/local/src":                 "",
		"/var/spool/cron":                "",
		"/var/www/site":                  "/var/www/site",
		"/home/dev/.ssh":                 "",
		"/home/dev/.config/systemd/user": "",
		"/home/dev/.local/share/x":       "",
		"/run/user/1000":                 "",
		"/opt":                           "",
		"/opt/proj":                      "/opt/proj",
		"/home/dev/go":                   "",
		"/home/dev/go/bin":               "",
		"/home/dev/go/pkg/mod/x":         "",
		"/home/dev/go/src/example.com/x": "/home/dev/go/src/example.com/x",
		"/home/dev/bin":                  "",
	} {
		if got := Workspace(dir, home); got != want {
			t.Errorf("Workspace(%s) = %q, want %q", dir, got, want)
		}
	}
}

// A directory inside the workspace's git repository has the repository's
// top level as its workspace.
func TestWorkspaceGitTop(t *testing.T) {
	top, _ := filepath.EvalSymlinks(t.TempDir())
	sub := filepath.Join(top, "a", "b")
	mkdirs(t, filepath.Join(top, ".git"), sub)
	if got := Workspace(sub, "/home/dev"); got != top {
		t.Errorf("Workspace = %q, want %q", got, top)
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
	if msg := unconfinedNotice(dir); msg == "" {
		t.Fatal("no notice the first time")
	}
	if msg := unconfinedNotice(dir); msg != "" {
		t.Errorf("notice again in the same session: %q", msg)
	}
	os.WriteFile(filepath.Join(dir, "unconfined-notice"), []byte("1 another session"), 0o600)
	if msg := unconfinedNotice(dir); msg == "" {
		t.Error("no notice in a new session")
	}
	if msg := unconfinedNotice(""); msg == "" {
		t.Error("no notice without a state directory")
	}
}

// The project's rule files (.cordon) are read-only inside the sandbox,
// like .git/hooks: an agent cannot edit the rules that judge it.
func TestSandboxSpecProtectsProjectRules(t *testing.T) {
	spec := SandboxSpec(builtinRules(), &config.Config{}, "/home/dev/proj")
	for _, p := range []string{".cordon", ".git/hooks"} {
		if !slices.Contains(spec.ReadOnly, p) {
			t.Errorf("%s is not read-only in the sandbox: %q", p, spec.ReadOnly)
		}
	}
}
