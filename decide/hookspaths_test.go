package decide

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

// hooksReadOnly is what the spec of a command in workspace ws, with
// environment env, keeps read-only inside ws.
func hooksReadOnly(t *testing.T, ws string, env []string) []string {
	t.Helper()
	ctx, err := NewContext(ws, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Workspace.Dir != ws {
		t.Skipf("workspace %q, want %q", ctx.Workspace.Dir, ws)
	}
	spec, err := ctx.Spec()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range spec.ReadOnly {
		if rel, err := filepath.Rel(ws, p); err == nil && filepath.IsLocal(rel) {
			out = append(out, rel)
		}
	}
	return out
}

// hooksWorld is a person's home and a repository in workspace ws below
// it, with the environment a command there has.
func hooksWorld(t *testing.T) (home, ws string, env []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home, _ = filepath.EvalSymlinks(t.TempDir())
	ws = filepath.Join(home, "proj")
	mkdirs(t, filepath.Join(ws, ".git"))
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(ws, ".git", "config"), "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/me/app.git\n")
	env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	return home, ws, env
}

func write(t *testing.T, path, data string) {
	t.Helper()
	mkdirs(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHooksPathEveryConfig: git takes core.hooksPath from every file of
// its configuration, not only the repository's .git/config: a hooks
// directory in the workspace that one of them names is kept read-only
// in the sandbox, or a command writes a hook there that the person's
// next git commit runs (found by an attacker: .githooks/pre-commit).
func TestHooksPathEveryConfig(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files func(home, ws string) map[string]string
		env   func(home string) []string
		want  string
	}{
		{"included", func(home, ws string) map[string]string {
			return map[string]string{
				ws + "/.git/config": "[core]\n\tbare = false\n[include]\n\tpath = ../.gitconfig\n",
				ws + "/.gitconfig":  "[core]\n\thooksPath = .githooks\n",
			}
		}, nil, ".githooks"},
		{"included twice, under a condition", func(home, ws string) map[string]string {
			return map[string]string{
				ws + "/.git/config":  "[includeIf \"onbranch:nowhere\"]\n\tpath = ../inc/a\n",
				ws + "/inc/a":        "[include]\n\tpath = b\n",
				ws + "/inc/b":        "[core]\n\thooksPath = hooks/deep\n",
				home + "/.gitconfig": "[user]\n\tname = Me\n",
			}
		}, nil, "hooks/deep"},
		{"config.worktree", func(home, ws string) map[string]string {
			return map[string]string{ws + "/.git/config.worktree": "[core]\n\thooksPath = .wt-hooks\n"}
		}, nil, ".wt-hooks"},
		{"global", func(home, ws string) map[string]string {
			return map[string]string{home + "/.gitconfig": "[core]\n\thooksPath = .githooks\n"}
		}, nil, ".githooks"},
		{"XDG global", func(home, ws string) map[string]string {
			return map[string]string{home + "/xdg/git/config": "[core]\n\thooksPath = .xdg-hooks\n"}
		}, func(home string) []string { return []string{"XDG_CONFIG_HOME=" + home + "/xdg"} }, ".xdg-hooks"},
		{"GIT_CONFIG_GLOBAL, included from home", func(home, ws string) map[string]string {
			return map[string]string{
				home + "/elsewhere/global": "[include]\n\tpath = ~/more\n",
				home + "/more":             "[core]\n\thooksPath = g-hooks\n",
			}
		}, func(home string) []string { return []string{"GIT_CONFIG_GLOBAL=" + home + "/elsewhere/global"} }, "g-hooks"},
		{"GIT_CONFIG_SYSTEM, NOSYSTEM set by the command", func(home, ws string) map[string]string {
			return map[string]string{home + "/sys": "[core]\n\thooksPath = s-hooks\n"}
		}, func(home string) []string {
			return []string{"GIT_CONFIG_SYSTEM=" + home + "/sys", "GIT_CONFIG_NOSYSTEM=1"}
		}, "s-hooks"},
		{"home expanded", func(home, ws string) map[string]string {
			return map[string]string{ws + "/.git/config": "[core]\n\thooksPath = ~/proj/h\n"}
		}, nil, "h"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home, ws, env := hooksWorld(t)
			for p, data := range tt.files(home, ws) {
				write(t, p, data)
			}
			if tt.env != nil {
				env = append(env, tt.env(home)...)
			}
			for _, run := range []string{"first", "cached"} {
				if got := hooksReadOnly(t, ws, env); !slices.Contains(got, tt.want) {
					t.Errorf("%s: read-only in the workspace %v, want %s among them", run, got, tt.want)
				}
			}
		})
	}
}

// TestHooksPathElsewhere: a hooks directory outside the workspace, or
// the home's one ("~/" is no directory of the workspace's), is not the
// sandbox's to keep.
func TestHooksPathElsewhere(t *testing.T) {
	home, ws, env := hooksWorld(t)
	write(t, home+"/.gitconfig", "[core]\n\thooksPath = ../shared-hooks\n")
	write(t, ws+"/.git/config.worktree", "[core]\n\thooksPath = "+home+"/abs-hooks\n[include]\n\tpath = /nonexistent/x\n")
	write(t, ws+"/.git/config", "[core]\n\thooksPath = ~/.githooks\n")
	before := hooksReadOnly(t, ws, env)
	for _, p := range before {
		if p == "~/.githooks" || p == ".githooks" || filepath.Base(p) == "shared-hooks" || filepath.Base(p) == "abs-hooks" {
			t.Errorf("read-only in the workspace: %s (of %v)", p, before)
		}
	}
}

// TestHooksPathChanged: the answer kept in the state directory is
// taken again only while every file read holds what it held: an
// included file that sets core.hooksPath after is read.
func TestHooksPathChanged(t *testing.T) {
	home, ws, env := hooksWorld(t)
	write(t, ws+"/.git/config", "[include]\n\tpath = ../.gitconfig\n")
	if got := hooksReadOnly(t, ws, env); slices.Contains(got, ".githooks") {
		t.Fatalf("read-only before any hooksPath: %v", got)
	}
	write(t, ws+"/.gitconfig", "[core]\n\thooksPath = .githooks\n")
	if got := hooksReadOnly(t, ws, env); !slices.Contains(got, ".githooks") {
		t.Errorf("an included file made after: read-only %v, want .githooks", got)
	}
	write(t, home+"/.gitconfig", "[include]\n\tpath = proj/.other\n")
	write(t, ws+"/.other", "[core]\n\thooksPath = other-hooks\n")
	if got := hooksReadOnly(t, ws, env); !slices.Contains(got, "other-hooks") {
		t.Errorf("the global file changed: read-only %v, want other-hooks", got)
	}
}

// TestHooksPathAccountHome: "~/" is the account's home too, where the
// person's own git takes it, whatever HOME the command has: a hooks
// directory there in the workspace is kept read-only.
func TestHooksPathAccountHome(t *testing.T) {
	acct := platform.AccountHome()
	if acct == "" {
		t.Skip("no account home")
	}
	ws, err := os.MkdirTemp(acct, ".cordon-hooks-")
	if err != nil {
		t.Skipf("no directory in the account's home: %v", err)
	}
	defer os.RemoveAll(ws)
	write(t, ws+"/.git/config", "[core]\n\thooksPath = ~/"+filepath.Base(ws)+"/.githooks\n")
	env := map[string]string{"HOME": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	git := func() (string, error) { return exec.LookPath("git") }
	if got := hooksDirs(ws, t.TempDir(), getenv, git, nil, nil); !slices.Contains(got, filepath.Join(ws, ".githooks")) {
		t.Errorf("hooks directories %v, want %s/.githooks among them", got, ws)
	}
}

// TestHooksPathEveryRepository: git runs the hooks of the repository a
// person commits in, and a repository nested in the workspace (its own
// .git), a submodule (its git directory in .git/modules) and a linked
// worktree each take core.hooksPath from their own configuration,
// relative to their own work tree: a hooks directory there is kept
// read-only too (found by an attacker: vendor/lib/.githooks/pre-commit
// written, run at the person's git commit in vendor/lib).
func TestHooksPathEveryRepository(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files func(home, ws string) map[string]string
		want  string
	}{
		{"nested", func(home, ws string) map[string]string {
			return map[string]string{
				ws + "/lib/.git/HEAD":   "ref: refs/heads/main\n",
				ws + "/lib/.git/config": "[core]\n\thooksPath = .githooks\n",
			}
		}, "lib/.githooks"},
		{"nested, global hooksPath", func(home, ws string) map[string]string {
			return map[string]string{
				ws + "/lib/.git/HEAD": "ref: refs/heads/main\n",
				home + "/.gitconfig":  "[core]\n\thooksPath = g-hooks\n",
			}
		}, "lib/g-hooks"},
		{"submodule", func(home, ws string) map[string]string {
			return map[string]string{
				ws + "/lib/.git":                "gitdir: ../.git/modules/lib\n",
				ws + "/.git/modules/lib/HEAD":   "ref: refs/heads/main\n",
				ws + "/.git/modules/lib/config": "[core]\n\tworktree = ../../../lib\n\thooksPath = .githooks\n",
			}
		}, "lib/.githooks"},
		{"submodule, named in two steps, no worktree", func(home, ws string) map[string]string {
			return map[string]string{
				ws + "/.git/modules/third/x/HEAD":   "ref: refs/heads/main\n",
				ws + "/.git/modules/third/x/config": "[core]\n\thooksPath = .githooks\n",
			}
		}, "third/x/.githooks"},
		{"linked worktree", func(home, ws string) map[string]string {
			return map[string]string{
				ws + "/wt/.git":                           "gitdir: " + ws + "/.git/worktrees/wt\n",
				ws + "/.git/worktrees/wt/HEAD":            "ref: refs/heads/x\n",
				ws + "/.git/worktrees/wt/commondir":       "../..\n",
				ws + "/.git/worktrees/wt/gitdir":          ws + "/wt/.git\n",
				ws + "/.git/worktrees/wt/config.worktree": "[core]\n\thooksPath = .wt-hooks\n",
			}
		}, "wt/.wt-hooks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home, ws, env := hooksWorld(t)
			for p, data := range tt.files(home, ws) {
				write(t, p, data)
			}
			for _, run := range []string{"first", "cached"} {
				if got := hooksReadOnly(t, ws, env); !slices.Contains(got, tt.want) {
					t.Errorf("%s: read-only in the workspace %v, want %s among them", run, got, tt.want)
				}
			}
		})
	}
}

// TestConfigPrograms: a key of git's configuration that names a program
// (git_config_programs), in the repository's file or the person's
// global one, that is a path in the workspace keeps that file read-only:
// git runs it at the person's plain git status or git diff (found by an
// attacker: core.fsmonitor = ./tools/fsmon, rewritten by a command).
func TestConfigPrograms(t *testing.T) {
	for _, key := range []struct{ section, value string }{
		{"[core]\n\tfsmonitor", "./tools/x"},
		{"[diff \"tc\"]\n\ttextconv", "tools/x --flag"},
		{"[alias]\n\tlint", "!./tools/x --all"},
		{"[alias]\n\tlint2", "!FOO=1 sh tools/x"},
		{"[filter \"f\"]\n\tclean", "'./tools/x' %f"},
		{"[credential]\n\thelper", "!f() { ./tools/x; }; f"},
	} {
		for _, where := range []string{"repo", "global"} {
			t.Run(where+" "+key.value, func(t *testing.T) {
				home, ws, env := hooksWorld(t)
				file := ws + "/.git/config"
				if where == "global" {
					file = home + "/.gitconfig"
				}
				write(t, file, key.section+" = "+key.value+"\n")
				for _, run := range []string{"first", "cached"} {
					if got := hooksReadOnly(t, ws, env); !slices.Contains(got, "tools/x") {
						t.Errorf("%s: read-only in the workspace %v, want tools/x among them", run, got)
					}
				}
			})
		}
	}
}

// TestConfigProgramsElsewhere: a program git finds on PATH (a bare
// name), or a path outside the workspace, is not the sandbox's to keep;
// a key that names no program keeps nothing.
func TestConfigProgramsElsewhere(t *testing.T) {
	home, ws, env := hooksWorld(t)
	write(t, home+"/.gitconfig", "[core]\n\tfsmonitor = git-fsmonitor\n\teditor = vim\n\tpager = ../outside/pager\n[alias]\n\tst = status --short\n")
	write(t, ws+"/.git/config", "[diff \"x\"]\n\ttextconv = "+home+"/bin/tc\n[user]\n\tname = tools/x\n")
	getenv := func(k string) string {
		for _, e := range env {
			if v, ok := strings.CutPrefix(e, k+"="); ok {
				return v
			}
		}
		return ""
	}
	git := func() (string, error) { return exec.LookPath("git") }
	if got := hooksDirs(ws, t.TempDir(), getenv, git, nil, rules.Builtin().GitConfigPrograms()); len(got) > 0 {
		t.Errorf("kept read-only: %v, want none", got)
	}
}

// TestProgramPaths: the words of a program key's value git runs as a
// program, when they are paths.
func TestProgramPaths(t *testing.T) {
	for v, want := range map[string][]string{
		"./tools/x":                   {"./tools/x"},
		"!./a/b --x; c/d | e":         {"./a/b", "c/d"},
		"git-lfs filter-process":      nil,
		"!FOO=bar bash 'sc ripts/x'":  {"sc ripts/x"},
		"\"/abs path/p\" arg/notthis": {"/abs path/p"},
		"!env A=1 -i ./t":             {"./t"},
	} {
		if got := programPaths(v); !slices.Equal(got, want) {
			t.Errorf("programPaths(%q) = %q, want %q", v, got, want)
		}
	}
}
