package platform

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGitCredentialsHelper: git, with the configuration the sandbox gets
// appended after the agent's own pairs, answers git credential fill
// with the placeholder for the workspace's host, nothing for another,
// and the agent's pairs still count.
func TestGitCredentialsHelper(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	p := &Policy{GitRemotes: []string{"git.example/me/app.git", "127.0.0.1:8443/x.git", "git.example/me/other", "bad host/x.git"}, Network: NetworkAllowlist}
	creds, config := GitCredentials(p, []byte("0123456789abcdef0123456789abcdef"), true)
	if len(creds) != 2 || creds[0].Hosts[0] != "git.example" || creds[1].Hosts[0] != "127.0.0.1:8443" || creds[0].Lookup == nil || creds[0].Value != "" {
		t.Fatalf("credentials: %+v", creds)
	}
	// The broker takes each path as a prefix: git's endpoints of the
	// remotes' repositories, with or without .git, and nothing of
	// another repository whose path starts with one of theirs (a server
	// whose repositories nest: /me/app/drop.git; found by an attacker).
	takes := func(paths []string, p string) bool {
		return slices.ContainsFunc(paths, func(w string) bool {
			w = strings.TrimRight(w, "/")
			return p == w || strings.HasPrefix(p, w+"/")
		})
	}
	for _, p := range []string{"/me/app.git/info/refs", "/me/app/git-receive-pack", "/me/other.git/git-upload-pack", "/me/app.git/info/lfs/objects/batch", "/me/app/objects/ab/cdef"} {
		if !takes(creds[0].Paths, p) {
			t.Errorf("%s is not taken: %q", p, creds[0].Paths)
		}
	}
	for _, p := range []string{"/me/app/drop.git/info/refs", "/me/app.git/../drop.git/info/refs", "/me/app", "/me/app.git/config", "/me/apple.git/info/refs", "/x.git/info/refs"} {
		if takes(creds[0].Paths, p) {
			t.Errorf("%s is taken: %q", p, creds[0].Paths)
		}
	}
	if !takes(creds[1].Paths, "/x.git/info/refs") || takes(creds[1].Paths, "/x/y.git/info/refs") {
		t.Errorf("paths of the second host: %q", creds[1].Paths)
	}
	// A refusal names the repositories, not each of their endpoints.
	if want := "git's endpoints of the repositories me/app, me/other, with or without .git"; creds[0].PathsSaid != want {
		t.Errorf("named in a refusal: %q, want %q", creds[0].PathsSaid, want)
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=agent"}
	env = WithGitConfig(env, config)
	if got := Getenv(env, "GIT_CONFIG_COUNT"); got != "5" {
		t.Fatalf("GIT_CONFIG_COUNT=%s", got)
	}
	fill := func(host string) string {
		cmd := exec.Command(git, "credential", "fill")
		cmd.Env, cmd.Dir = env, home
		cmd.Stdin = strings.NewReader("protocol=https\nhost=" + host + "\n\n")
		out, _ := cmd.Output()
		return string(out)
	}
	if out := fill("git.example"); !strings.Contains(out, "password="+creds[0].Placeholder+"\n") {
		t.Errorf("git.example: %q", out)
	}
	if out := fill("127.0.0.1:8443"); !strings.Contains(out, "password="+creds[1].Placeholder+"\n") {
		t.Errorf("127.0.0.1:8443: %q", out)
	}
	if out := fill("other.example"); strings.Contains(out, "cordon_") {
		t.Errorf("other.example got a placeholder: %q", out)
	}
	cmd := exec.Command(git, "config", "user.name")
	cmd.Env, cmd.Dir = env, home
	if out, _ := cmd.Output(); strings.TrimSpace(string(out)) != "agent" {
		t.Errorf("the agent's pair: %q", out)
	}
	// Without a broker, the helper says why and git does not prompt.
	_, config = GitCredentials(&Policy{GitRemotes: []string{"git.example/x.git"}, Network: NetworkOn}, nil, false)
	cmd = exec.Command(git, "credential", "fill")
	cmd.Env, cmd.Dir = WithGitConfig(env[:3], config), home
	cmd.Stdin = strings.NewReader("protocol=https\nhost=git.example\n\n")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "network allowlist") {
		t.Errorf("no broker: %v %q", err, out)
	}
}

// TestGitCredentialsRefused: a remote that is not the person's gets no
// credential; git asking for one there is told why, and does not prompt.
// A host with a remote of the person's too keeps its (path-scoped) one.
func TestGitCredentialsRefused(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	p := &Policy{GitRemotes: []string{"git.example/me/app.git"}, GitRefused: []string{"drop.example/x.git", "git.example/evil/x.git"}, GitRefusal: "the repository was made by a sandboxed command", Network: NetworkAllowlist}
	creds, config := GitCredentials(p, []byte("0123456789abcdef0123456789abcdef"), true)
	if len(creds) != 1 || creds[0].Hosts[0] != "git.example" {
		t.Fatalf("credentials: %+v", creds)
	}
	home := t.TempDir()
	env := WithGitConfig([]string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1"}, config)
	fill := func(host string) (string, error) {
		cmd := exec.Command(git, "credential", "fill")
		cmd.Env, cmd.Dir = env, home
		cmd.Stdin = strings.NewReader("protocol=https\nhost=" + host + "\n\n")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := fill("drop.example"); err == nil || strings.Contains(out, "password=") || !strings.Contains(out, "no credential for drop.example here: the repository was made by a sandboxed command") || !strings.Contains(out, "run git yourself") {
		t.Errorf("drop.example: %v %q", err, out)
	}
	if out, _ := fill("git.example"); !strings.Contains(out, "password="+creds[0].Placeholder+"\n") {
		t.Errorf("git.example: %q", out)
	}
	// No remote of the person's at all: the refusal still says why.
	_, config = GitCredentials(&Policy{GitRefused: p.GitRefused[:1], GitRefusal: "why", Network: NetworkAllowlist}, nil, true)
	if len(config) != 2 {
		t.Errorf("config without a remote of the person's: %q", config)
	}
}

// TestHostGitHome: the person's git configuration is read from HOME
// only when sandboxed commands cannot write it.
func TestHostGitHome(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	if h := hostGit(&Policy{Env: []string{"HOME=" + home}, Writable: []string{ws}}); h.Home != home {
		t.Errorf("a home out of reach: %q", h.Home)
	}
	if h := hostGit(&Policy{Env: []string{"HOME=" + ws + "/home"}, Writable: []string{ws}}); h.Home == ws+"/home" {
		t.Errorf("a home in the workspace was taken")
	}
	os.Symlink(ws+"/gitconfig", home+"/.gitconfig")
	if h := hostGit(&Policy{Env: []string{"HOME=" + home}, Writable: []string{ws}}); h.Home == home {
		t.Errorf("a home whose .gitconfig leads into the workspace was taken")
	}
}

// TestHostGitPath: helpers are looked for only where sandboxed commands
// cannot write: not the workspace, scratch or the caches on PATH.
func TestHostGitPath(t *testing.T) {
	ws, cache, bin := t.TempDir(), t.TempDir(), t.TempDir()
	h := hostGit(&Policy{Env: []string{"PATH=" + ws + ":" + cache + ":" + bin + ":/usr/bin"}, Writable: []string{ws}, Caches: []string{cache}, AgentSince: agentLater().UnixNano()})
	for _, d := range h.Path {
		if d == ws || d == cache {
			t.Errorf("a writable directory is on the host git's PATH: %v", h.Path)
		}
	}
	if len(h.Path) == 0 || h.Path[0] != bin {
		t.Errorf("PATH: %v", h.Path)
	}
}

// TestLeadsInto: a file of the person's git configuration counts as in
// the sandbox's reach where its links lead, a dangling link's target
// included (found by an attacker: ~/.gitconfig.local linked to a file
// in the workspace not made yet passed the check, and the command made
// it before git read it).
func TestLeadsInto(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.Symlink(filepath.Join(ws, "later"), filepath.Join(home, "dangling"))
	os.Symlink(filepath.Join(home, "dangling"), filepath.Join(home, "chain"))
	os.Symlink("loop2", filepath.Join(home, "loop1"))
	os.Symlink("loop1", filepath.Join(home, "loop2"))
	os.WriteFile(filepath.Join(home, "plain"), nil, 0o600)
	for name, want := range map[string]bool{"dangling": true, "chain": true, "loop1": true, "plain": false, "missing": false} {
		if got := leadsInto(filepath.Join(home, name), []string{ws}); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestHostGitConfigHome: the host's git is given the person's
// XDG_CONFIG_HOME (git reads its configuration there), unless sandboxed
// commands can write it.
func TestHostGitConfigHome(t *testing.T) {
	ws := t.TempDir()
	for dir, want := range map[string]bool{"/home/someone/.config-elsewhere": true, filepath.Join(ws, "cfg"): false, "relative/cfg": false} {
		t.Setenv("XDG_CONFIG_HOME", dir)
		h := hostGitFor([]string{ws}, os.Getenv, agentLater)
		if got := slices.Contains(h.Env, "XDG_CONFIG_HOME="+dir); got != want {
			t.Errorf("XDG_CONFIG_HOME=%s given to the host's git: %v, want %v", dir, got, want)
		}
	}
}

// TestHostGitChangedHelper: a credential helper of the person's that
// changed since the agent started (rewritten in place, in a directory
// whose entries did not change) is not run by the host's git; before
// the agent started, it is.
func TestHostGitChangedHelper(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("change times are not read on Windows")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	parent := heldDir(t)
	home, bin := filepath.Join(parent, "home"), filepath.Join(parent, "bin")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[credential]\n\thelper = mine\n"), 0o600)
	marker := filepath.Join(parent, "ran")
	helper := filepath.Join(bin, "git-credential-mine")
	answer := "#!/bin/sh\ntest \"$1\" = get || exit 0\necho username=person\necho password=real\n"
	os.WriteFile(helper, []byte(answer), 0o755)
	time.Sleep(50 * time.Millisecond) // change times come from a coarse clock
	start := time.Now()
	time.Sleep(50 * time.Millisecond)
	getenv := func(name string) string {
		return map[string]string{"HOME": home, "PATH": bin + ":/usr/bin:/bin"}[name]
	}
	h := hostGitFor(nil, getenv, func() time.Time { return start })
	h.Home = home
	if user, pass, err := h.Fill(context.Background(), "git.example"); err != nil || user != "person" || pass != "real" {
		t.Fatalf("a helper from before the agent: %q %q %v", user, pass, err)
	}
	f, err := os.OpenFile(helper, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("#!/bin/sh\ntouch " + marker + "\necho username=evil\necho password=evil\n")
	f.Close()
	_, _, err = h.Fill(context.Background(), "git.example")
	if err == nil || !strings.Contains(err.Error(), "changed since the agent started") {
		t.Errorf("a helper rewritten since the agent started: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the rewritten helper ran on the host")
	}
}
