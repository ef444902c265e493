package decide

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
)

// commandWrites has the guard hold workspace ws (a git repository) as
// it does for a command, runs write (what the command does), and
// reconciles as the command's end does: the remotes the change adds are
// the command's in the ledger.
func commandWrites(t *testing.T, state, ws string, write func()) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded:       []string{ws + "/.git/hooks"},
		GitConfig:     []string{ws + "/.git/config", ws + "/.git/modules/*/**/config"},
		RootGuarded:   []string{".git/hooks/", ".git/hooks"},
		RootGitConfig: []string{".git/config", ".git/config.worktree", ".git/modules/*/**/config"},
		GitConfigSafe: invocation.BuiltinRules().GitConfigSafe()}
	if _, err := guard.Hold(state, p); err != nil {
		t.Fatal(err)
	}
	write()
	lines, err := guard.Release(state, ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		t.Logf("guard: %s", l)
	}
}

// TestGitRemotesDifferentials: two spellings a hand-written parser read
// otherwise than git, each found by an attacker: a comment that ends in
// a backslash (git does not go on with the next line: the header after
// it starts a remote of the command's, it is no url of the person's
// origin), and an escaped quote in a remote's name (git, and so the
// guard's ledger, names the command's remote x"y). Neither is the
// person's.
func TestGitRemotesDifferentials(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	config := filepath.Join(ws, ".git", "config")
	os.WriteFile(config, []byte("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/me/app.git\n"), 0o644)
	commandWrites(t, state, ws, func() {
		f, _ := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("[remote \"origin\"]\n#\\\n[remote \"mine\"]\n\turl = https://evil.example/drop.git\n[remote \"x\\\"y\"]\n\turl = https://evil.example/quoted.git\n")
		f.Close()
	})
	if agent, _ := guard.AgentRemotes(state, ws, ""); !slices.Contains(agent, "mine") || !slices.Contains(agent, `x"y`) {
		t.Fatalf("the guard's ledger does not hold the command's remotes: %q", agent)
	}
	got := personRemotes(t, ws, state)
	if want := []string{"github.com/me/app.git"}; !slices.Equal(got, want) {
		t.Errorf("gitRemotes: %v, want %v", got, want)
	}
}

// gitIn returns a function that runs git in a directory with home as
// its HOME and no system configuration, failing the test when it fails.
func gitIn(t *testing.T, home string) func(dir string, args ...string) {
	return func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v %s", args, err, out)
		}
	}
}

// TestGitRemotesMadeByACommand: a repository a command makes in the
// workspace (git init o, remotes of its choosing) is a workspace of its
// own once the agent's shell is in it, but its remotes are the
// command's: no credential for them, and a line that says why (found by
// an attacker); so is a submodule a command adds. A repository the
// person had there (their clone, a submodule) keeps its remotes, except
// one a command added to it.
func TestGitRemotesMadeByACommand(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	ws := filepath.Join(root, "ws")
	run := gitIn(t, root)
	os.MkdirAll(ws, 0o755)
	run(ws, "init", "-q")
	run(ws, "remote", "add", "origin", "https://github.com/me/app.git")
	run(ws, "init", "-q", "mine")
	run(ws, "-C", "mine", "remote", "add", "origin", "https://github.com/me/lib.git")
	// A submodule the person cloned (its configuration in the
	// workspace's .git/modules).
	run(root, "init", "-q", "--bare", "sub.git")
	run(root, "clone", "-q", "sub.git", "seed")
	run(filepath.Join(root, "seed"), "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-q", "--allow-empty", "-m", "sub")
	run(filepath.Join(root, "seed"), "push", "-q", "origin", "HEAD")
	run(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", filepath.Join(root, "sub.git"), "sub")
	run(ws, "-C", "sub", "remote", "set-url", "origin", "https://github.com/me/sub.git")
	// (The guard trusts a configuration that has not changed for 3 s.)
	past := time.Now().Add(-time.Minute)
	for _, f := range []string{"ws/.git/config", "ws/mine/.git/config", "ws/.git/modules/sub/config"} {
		os.Chtimes(filepath.Join(root, f), past, past)
	}
	commandWrites(t, state, ws, func() {
		run(ws, "init", "-q", "o")
		run(ws, "-C", "o", "remote", "add", "origin", "https://github.com/evil/drop.git")
		run(ws, "-C", "mine", "remote", "add", "corp", "https://corp.example/private.git")
		run(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", filepath.Join(root, "sub.git"), "theirs")
		run(ws, "-C", "theirs", "remote", "set-url", "origin", "https://github.com/evil/sub.git")
	})
	git := hostGitFor(t)
	own, others, why := gitRemotesOf(filepath.Join(ws, "o"), state, remoteURLs(filepath.Join(ws, "o"), state, git))
	if len(own) != 0 || !slices.Equal(others, []string{"github.com/evil/drop.git"}) || !strings.Contains(why, "made by a sandboxed command") {
		t.Errorf("the command's repository: own %q, others %q (%s)", own, others, why)
	}
	theirs := filepath.Join(ws, "theirs")
	own, others, _ = gitRemotesOf(theirs, state, remoteURLs(theirs, state, git))
	if len(own) != 0 || !slices.Equal(others, []string{"github.com/evil/sub.git"}) {
		t.Errorf("a submodule the command added: own %q, others %q", own, others)
	}
	mine := filepath.Join(ws, "mine")
	own, others, _ = gitRemotesOf(mine, state, remoteURLs(mine, state, git))
	if !slices.Equal(own, []string{"github.com/me/lib.git"}) || !slices.Equal(others, []string{"corp.example/private.git"}) {
		t.Errorf("the person's nested repository: own %q, others %q", own, others)
	}
	sub := filepath.Join(ws, "sub")
	if own, _, _ := gitRemotesOf(sub, state, remoteURLs(sub, state, git)); !slices.Equal(own, []string{"github.com/me/sub.git"}) {
		t.Errorf("the person's submodule: own %q", own)
	}
	if own, _, _ := gitRemotesOf(ws, state, remoteURLs(ws, state, git)); !slices.Equal(own, []string{"github.com/me/app.git"}) {
		t.Errorf("the workspace: own %q", own)
	}
	// A later command renames the command's repository (mv o o2: the
	// path the ledger named is gone, the git directory is the same):
	// still the command's (found by an attacker).
	o2 := filepath.Join(ws, "deep", "o2")
	commandWrites(t, state, ws, func() {
		os.MkdirAll(filepath.Dir(o2), 0o755)
		if err := os.Rename(filepath.Join(ws, "o"), o2); err != nil {
			t.Fatal(err)
		}
	})
	if own, _, why := gitRemotesOf(o2, state, remoteURLs(o2, state, git)); len(own) != 0 || !strings.Contains(why, "made by a sandboxed command") {
		t.Errorf("the command's repository, renamed: own %q (%s)", own, why)
	}
	if err := os.Rename(o2, filepath.Join(ws, "o")); err != nil {
		t.Fatal(err)
	}
	// The person removes the command's repository, a command runs, and
	// the person makes their own there: it is theirs.
	o := filepath.Join(ws, "o")
	os.RemoveAll(o)
	commandWrites(t, state, ws, func() {})
	run(ws, "init", "-q", "o")
	run(ws, "-C", "o", "remote", "add", "origin", "https://github.com/me/o.git")
	if own, _, _ := gitRemotesOf(o, state, remoteURLs(o, state, git)); !slices.Equal(own, []string{"github.com/me/o.git"}) {
		t.Errorf("the person's repository where the command's was: own %q", own)
	}
}

// TestGitRemotesFirstRemote: in a repository with no remote yet (a
// person's new local project), the first remote a command adds is the
// command's too: its URL is the command's choice, and the person's
// credential must not follow it (found by an attacker: the push went
// to a repository of the command's with the person's password).
func TestGitRemotesFirstRemote(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	config := filepath.Join(ws, ".git", "config")
	os.WriteFile(config, []byte("[core]\n\tbare = false\n"), 0o644)
	commandWrites(t, state, ws, func() {
		f, _ := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("[remote \"origin\"]\n\turl = https://github.com/evil/drop.git\n")
		f.Close()
	})
	if agent, _ := guard.AgentRemotes(state, ws, ""); !slices.Contains(agent, "origin") {
		t.Fatalf("the guard's ledger does not hold the command's first remote: %q", agent)
	}
	if got := personRemotes(t, ws, state); len(got) != 0 {
		t.Errorf("the person's remotes: %v, want none", got)
	}
}

// TestNetAllowAgentRemotes: a remote a command added opens no host to
// the network allowlist, nor does any remote of a repository a command
// made: git remote add x https://attacker.example/ in one command, and
// the next one sent the workspace there with curl (found by an attacker:
// the proxy answered 502, allowed, where it refused with 403 before).
func TestNetAllowAgentRemotes(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	run := gitIn(t, ws)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	run(ws, "init", "-q")
	run(ws, "remote", "add", "origin", "https://github.com/me/app.git")
	past := time.Now().Add(-time.Minute)
	os.Chtimes(filepath.Join(ws, ".git", "config"), past, past)
	commandWrites(t, state, ws, func() {
		run(ws, "remote", "add", "x", "https://attacker.example/drop.git")
		run(ws, "init", "-q", "o")
		run(ws, "-C", "o", "remote", "add", "origin", "https://made.example/drop.git")
	})
	git := hostGitFor(t)
	if got := netAllowOf(ws, state, remoteURLs(ws, state, git)); !slices.Equal(got, []string{"github.com:443"}) {
		t.Errorf("the workspace with a command's remote: netAllow %q, want [github.com:443]", got)
	}
	o := filepath.Join(ws, "o")
	if got := netAllowOf(o, state, remoteURLs(o, state, git)); len(got) != 0 {
		t.Errorf("a repository a command made: netAllow %q, want none", got)
	}
}

// TestGitRemotesFromTrustedConfig: a url added to the person's origin by
// a command running beside, or by a process one left running, is in the
// file when the next command starts, before the guard puts it back: it
// gets neither the person's git credential (the broker's remotes) nor
// the network (the allowlist). The remotes are those the configuration
// as the guard trusts it has too. (An attacker pushed to a repository of
// its own, on the person's host and on another, with the person's
// credential.) The person's own change, trusted once a command starts
// alone, is taken.
func TestGitRemotesFromTrustedConfig(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	config := filepath.Join(ws, ".git", "config")
	person := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/me/app.git\n"
	os.WriteFile(config, []byte(person), 0o644)
	commandWrites(t, state, ws, func() {}) // the guard keeps the file
	git := hostGitFor(t)
	os.WriteFile(config, []byte(person+"[remote \"origin\"]\n\turl = https://github.com/attacker/drop.git\n\tpushurl = https://evil.example/drop.git\n"), 0o644)
	if got := personRemotes(t, ws, state); !slices.Equal(got, []string{"github.com/me/app.git"}) {
		t.Errorf("remotes with a url planted in the person's origin: %v, want only the person's", got)
	}
	if got := netAllowOf(ws, state, remoteURLs(ws, state, git)); !slices.Equal(got, []string{"github.com:443"}) {
		t.Errorf("allowlist with a url planted in the person's origin: %v", got)
	}
	// A .git made a file that leads elsewhere (a worktree's pointer, as
	// a command can write it): a configuration the guard never took as
	// the workspace's, none of whose remotes is the person's.
	elsewhere := filepath.Join(t.TempDir(), "g")
	os.MkdirAll(elsewhere, 0o755)
	os.WriteFile(filepath.Join(elsewhere, "config"), []byte(person+"[remote \"x\"]\n\turl = https://github.com/attacker/drop.git\n"), 0o644)
	os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, ".git.real"))
	os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+elsewhere+"\n"), 0o644)
	if got := personRemotes(t, ws, state); len(got) != 0 {
		t.Errorf("remotes of a configuration a .git file leads to, which the guard does not keep: %v", got)
	}
	os.Remove(filepath.Join(ws, ".git"))
	os.Rename(filepath.Join(ws, ".git.real"), filepath.Join(ws, ".git"))
	os.WriteFile(config, []byte(person), 0o644)
	// A file the guard trusts to be absent has no remotes.
	os.Remove(config)
	commandWrites(t, state, ws, func() {})
	os.WriteFile(config, []byte(person), 0o644)
	if got := personRemotes(t, ws, state); len(got) != 0 {
		t.Errorf("remotes of a file made after the guard trusted none: %v", got)
	}
	// The person's own edit, made while no command runs: trusted at the
	// next command's start, and taken.
	os.WriteFile(config, []byte(person+"[remote \"upstream\"]\n\turl = https://github.com/them/app.git\n"), 0o644)
	commandWrites(t, state, ws, func() {})
	if got := personRemotes(t, ws, state); !slices.Equal(got, []string{"github.com/me/app.git", "github.com/them/app.git"}) {
		t.Errorf("remotes after the person's own edit: %v", got)
	}
}

// TestHooksPathTrustedInclude: a command running beside takes the
// include out of .git/config just before the next command starts (the
// guard puts it back only when it ends): the hooks directory the
// included file names, as the guard trusts .git/config, is still one
// to keep read-only.
func TestHooksPathTrustedInclude(t *testing.T) {
	home, ws, env := hooksWorld(t)
	write(t, ws+"/.git/config", "[core]\n\tbare = false\n[include]\n\tpath = ../.gitconfig\n")
	write(t, ws+"/.gitconfig", "[core]\n\thooksPath = .githooks\n")
	getenv := func(k string) string { return platform.Getenv(env, k) }
	state := StateDir(getenv)
	if !strings.HasPrefix(state, home) {
		t.Fatalf("state directory %s", state)
	}
	git := func() (string, error) { return exec.LookPath("git") }
	commandWrites(t, state, ws, func() {
		write(t, ws+"/.git/config", "[core]\n\tbare = false\n")
		if got := hooksDirs(ws, state, getenv, git, nil, nil); !slices.Contains(got, ws+"/.githooks") {
			t.Errorf("hooks directories %v, want %s/.githooks among them", got, ws)
		}
	})
}
