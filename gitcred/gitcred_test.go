package gitcred

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// helper returns a Helper whose home is a temporary directory with
// gitconfig as its .gitconfig.
func helper(t *testing.T, gitconfig string) *Helper {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return &Helper{Git: git, Home: home, Path: []string{filepath.Dir(git), "/usr/bin", "/bin"}}
}

// TestFill: the person's helper answers for the host it is asked about,
// and for that host alone.
func TestFill(t *testing.T) {
	h := helper(t, `[credential]
	helper = "!f() { test \"$1\" = get || exit 0; while read -r l && [ -n \"$l\" ]; do case $l in host=*) h=${l#host=};; esac; done; echo username=u-$h; echo password=p-$h; }; f"
`)
	user, pass, err := h.Fill(context.Background(), "git.example:8443")
	if err != nil || user != "u-git.example:8443" || pass != "p-git.example:8443" {
		t.Fatalf("Fill: %q %q %v", user, pass, err)
	}
	for _, bad := range []string{"", "a\nprotocol=http", "a b", "a/b", "x\x00"} {
		if _, _, err := h.Fill(context.Background(), bad); err == nil {
			t.Errorf("Fill(%q): no error", bad)
		}
	}
}

// TestFillNone: with no helper configured, git is not let to prompt:
// the error says there is none, and how to configure one.
func TestFillNone(t *testing.T) {
	h := helper(t, "[user]\n\tname = x\n")
	_, _, err := h.Fill(context.Background(), "git.example")
	if !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), "credential.helper") {
		t.Fatalf("Fill with no helper: %v", err)
	}
}

// TestFillNoRepository: a helper the repository around the process's
// directory configures (and one that GIT_DIR or the configuration
// variables of the environment name) is never run: only the person's
// own configuration counts.
func TestFillNoRepository(t *testing.T) {
	h := helper(t, "[credential]\n\thelper = \"!f() { echo username=person; echo password=real; }; f\"\n")
	repo := t.TempDir()
	marker := filepath.Join(repo, "ran")
	if out, err := exec.Command(h.Git, "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	evil := "!f() { touch " + marker + "; echo username=evil; echo password=evil; }; f"
	if out, err := exec.Command(h.Git, "-C", repo, "config", "credential.helper", evil).CombinedOutput(); err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	t.Chdir(repo)
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "credential.helper")
	t.Setenv("GIT_CONFIG_VALUE_0", evil)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(repo, ".git", "config"))
	h.Env = os.Environ()
	user, pass, err := h.Fill(context.Background(), "git.example")
	if err != nil || user != "person" || pass != "real" {
		t.Fatalf("Fill: %q %q %v", user, pass, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's credential helper ran")
	}
}

// TestFillBounded: a helper that hangs, or answers without end, is cut
// off.
func TestFillBounded(t *testing.T) {
	h := helper(t, "[credential]\n\thelper = \"!f() { sleep 30; }; f\"\n")
	h.Timeout = 300 * time.Millisecond
	start := time.Now()
	if _, _, err := h.Fill(context.Background(), "git.example"); !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("hanging helper: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hanging helper took %s", d)
	}
	h = helper(t, "[credential]\n\thelper = \"!f() { echo username=u; printf password=; head -c 200000 /dev/zero | tr '\\\\0' a; echo; }; f\"\n")
	if _, _, err := h.Fill(context.Background(), "git.example"); err == nil {
		t.Errorf("an answer without end was taken: %v", err)
	}
}

// TestFillWritableConfig: the person's configuration is refused, and no
// helper runs, when a file of it, a file an include names (there or not
// yet), or a helper named by path is where sandboxed commands write (a
// ~/.gitconfig that includes the dotfiles repository the agent works
// in); an include out of their reach is read.
func TestFillWritableConfig(t *testing.T) {
	answer := "!f() { echo username=person; echo password=real; }; f"
	for name, c := range map[string]struct{ gitconfig, planted string }{
		"include":         {"[include]\n\tpath = ws/gitconfig\n", "ws/gitconfig"},
		"include-home":    {"[include]\n\tpath = ~/ws/gitconfig\n", "ws/gitconfig"},
		"include-missing": {"[include]\n\tpath = ws/later\n", ""},
		"include-if":      {"[includeIf \"gitdir:/nowhere/\"]\n\tpath = ws/gitconfig\n", "ws/gitconfig"},
		"nested":          {"[include]\n\tpath = safe/gitconfig\n", "safe/gitconfig"},
		"helper-path":     {"[credential]\n\thelper = ~/ws/helper\n", ""},
		"helper-shell":    {"[credential \"https://git.example\"]\n\thelper = \"!f() { sh '~/ws/helper'; }; f\"\n", ""},
		// A store file or cache socket where sandboxed commands write: the
		// host would fill from what the command put there.
		"store-file":        {"[credential]\n\thelper = store --file=~/ws/creds\n", ""},
		"store-file-apart":  {"[credential]\n\thelper = store --file ~/ws/creds\n", ""},
		"cache-socket":      {"[credential]\n\thelper = cache --socket=~/ws/sock\n", ""},
		"helper-home-var":   {"[credential]\n\thelper = \"!$HOME/ws/helper\"\n", ""},
		"helper-home-brace": {"[credential]\n\thelper = \"!f() { \\\"${HOME}/ws/helper\\\"; }; f\"\n", ""},
	} {
		t.Run(name, func(t *testing.T) {
			h := helper(t, c.gitconfig)
			ws := filepath.Join(h.Home, "ws")
			marker := filepath.Join(h.Home, "ran")
			os.MkdirAll(filepath.Join(h.Home, "safe"), 0o755)
			os.MkdirAll(ws, 0o755)
			// safe/gitconfig includes the writable one.
			os.WriteFile(filepath.Join(h.Home, "safe", "gitconfig"), []byte("[include]\n\tpath = ../ws/gitconfig\n"), 0o600)
			evil := "[credential]\n\thelper = \"!f() { touch " + marker + "; echo username=evil; echo password=evil; }; f\"\n"
			if c.planted == "ws/gitconfig" || c.planted == "safe/gitconfig" {
				os.WriteFile(filepath.Join(ws, "gitconfig"), []byte(evil), 0o600)
			}
			os.WriteFile(filepath.Join(ws, "helper"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
			os.WriteFile(filepath.Join(ws, "creds"), []byte("https://evil:evil@git.example\n"), 0o600)
			h.Writable = func(p string) bool { return p == ws || strings.HasPrefix(p, ws+"/") }
			_, _, err := h.Fill(context.Background(), "git.example")
			if !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), "sandboxed commands can write") {
				t.Errorf("Fill: %v, want a refusal naming the writable place", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("a helper the sandbox could write ran")
			}
		})
	}
	// Out of the sandbox's reach: read, and its helper answers.
	h := helper(t, "[include]\n\tpath = safe/gitconfig\n")
	os.MkdirAll(filepath.Join(h.Home, "safe"), 0o755)
	os.WriteFile(filepath.Join(h.Home, "safe", "gitconfig"), []byte("[credential]\n\thelper = \""+answer+"\"\n"), 0o600)
	h.Writable = func(p string) bool { return strings.HasPrefix(p, filepath.Join(h.Home, "ws")) }
	if user, pass, err := h.Fill(context.Background(), "git.example"); err != nil || user != "person" || pass != "real" {
		t.Errorf("an include out of reach: %q %q %v", user, pass, err)
	}
}

// TestFillPrefix: an include at "%(prefix)/" is judged where git's
// installation is, as git reads it.
func TestFillPrefix(t *testing.T) {
	h := helper(t, "[include]\n\tpath = %(prefix)/cordon-test-nowhere/gitconfig\n")
	git, err := filepath.EvalSymlinks(h.Git)
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(filepath.Dir(filepath.Dir(git)), "cordon-test-nowhere")
	h.Writable = func(p string) bool { return p == ws || strings.HasPrefix(p, ws+"/") }
	if _, _, err := h.Fill(context.Background(), "git.example"); err == nil || !strings.Contains(err.Error(), "runs "+ws+"/gitconfig") {
		t.Errorf("Fill: %v, want a refusal naming %s", err, ws)
	}
}

// TestFillOtherHome: a path in another user's home (~USER/) is judged
// there, as git reads it; a user who is not known is refused.
func TestFillOtherHome(t *testing.T) {
	me, err := user.Current()
	if err != nil || me.HomeDir == "" {
		t.Skip("no current user")
	}
	ws := filepath.Join(me.HomeDir, "cordon-test-nowhere")
	for name, gitconfig := range map[string]string{
		"include": "[include]\n\tpath = ~" + me.Username + "/cordon-test-nowhere/gitconfig\n",
		"helper":  "[credential]\n\thelper = \"!~" + me.Username + "/cordon-test-nowhere/helper\"\n",
		"unknown": "[credential]\n\thelper = \"!~no-such-user-cordon/cordon-test-nowhere/helper\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			h := helper(t, gitconfig)
			h.Writable = func(p string) bool { return p == ws || strings.HasPrefix(p, ws+"/") }
			_, _, err := h.Fill(context.Background(), "git.example")
			want := "runs " + ws + "/"
			if name == "unknown" {
				want = "is not known"
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Fill: %v, want a refusal", err)
			}
		})
	}
}

// TestFillConfigHome: git reads $XDG_CONFIG_HOME/git/config as part of
// the person's configuration when that variable is set (not
// ~/.config/git/config then): a helper configured there answers; and a
// configuration there that sandboxed commands can write is refused as
// ~/.gitconfig would be.
func TestFillConfigHome(t *testing.T) {
	h := helper(t, "[user]\n\tname = x\n")
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "git"), 0o700); err != nil {
		t.Fatal(err)
	}
	config := `[credential]
	helper = "!f() { test \"$1\" = get || exit 0; echo username=xdg; echo password=from-xdg; }; f"
`
	if err := os.WriteFile(filepath.Join(xdg, "git", "config"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Env = []string{"XDG_CONFIG_HOME=" + xdg}
	user, pass, err := h.Fill(context.Background(), "git.example")
	if err != nil || user != "xdg" || pass != "from-xdg" {
		t.Fatalf("Fill with the helper in $XDG_CONFIG_HOME/git/config: %q %q %v", user, pass, err)
	}
	h.Writable = func(p string) bool { return p == xdg || strings.HasPrefix(p, xdg+"/") }
	if _, _, err := h.Fill(context.Background(), "git.example"); err == nil {
		t.Fatal("Fill with a configuration sandboxed commands can write: no error")
	}
}

// TestFillChangedHelper: a helper program the agent's file tools may
// have rewritten (Changed holds it) is not run, whether the
// configuration names it by path, runs it from a "!" helper, or git
// finds it by name on Path; the same helpers run when unchanged.
func TestFillChangedHelper(t *testing.T) {
	for name, c := range map[string]struct{ file, gitconfig string }{
		"by-path":     {"bin/helper", "[credential]\n\thelper = \"!$HOME/bin/helper\"\n"},
		"shell-arg":   {"bin/helper", "[credential]\n\thelper = \"!sh ~/bin/helper\"\n"},
		"shell-name":  {"bin/helper", "[credential]\n\thelper = \"!helper get\"\n"},
		"git-name":    {"bin/git-credential-mine", "[credential]\n\thelper = mine\n"},
		"scoped-name": {"bin/git-credential-mine", "[credential \"https://git.example\"]\n\thelper = mine --verbose\n"},
	} {
		t.Run(name, func(t *testing.T) {
			h := helper(t, c.gitconfig)
			bin := filepath.Join(h.Home, "bin")
			os.MkdirAll(bin, 0o755)
			marker := filepath.Join(h.Home, "ran")
			prog := filepath.Join(h.Home, c.file)
			script := "#!/bin/sh\ncase \" $* \" in *\" get \"*) ;; *) exit 0;; esac\ntouch " + marker + "\necho username=person\necho password=real\n"
			if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			h.Path = append([]string{bin}, h.Path...)
			h.Changed = func(p string) bool { return p == prog }
			_, _, err := h.Fill(context.Background(), "git.example")
			if !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), "changed since the agent started") || !strings.Contains(err.Error(), prog) {
				t.Errorf("Fill: %v, want a refusal naming %s", err, prog)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("a helper changed since the agent started ran")
			}
			h.Changed = func(string) bool { return false }
			if user, pass, err := h.Fill(context.Background(), "git.example"); err != nil || user != "person" || pass != "real" {
				t.Errorf("unchanged: %q %q %v", user, pass, err)
			}
		})
	}
	// A store's data file is not a program: it changes as git stores.
	h := helper(t, "[credential]\n\thelper = store --file ~/creds\n")
	os.WriteFile(filepath.Join(h.Home, "creds"), []byte("https://person:real@git.example\n"), 0o600)
	h.Changed = func(p string) bool { return strings.HasPrefix(p, h.Home) }
	if user, pass, err := h.Fill(context.Background(), "git.example"); err != nil || user != "person" || pass != "real" {
		t.Errorf("a store file: %q %q %v", user, pass, err)
	}
}
