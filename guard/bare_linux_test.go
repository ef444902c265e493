package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// bareWorkspace makes a repository with the person's committed lib/src/pkg,
// and holds it as a session's manager does; it returns its policy and
// the state directory.
func bareWorkspace(t *testing.T) (*platform.Policy, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "lib/src/pkg"), 0o755)
	os.WriteFile(filepath.Join(ws, "lib/src/pkg/main.c"), []byte("int main(){}\n"), 0o644)
	hostGit(t, ws, "", "init", "-q")
	hostGit(t, ws, "", "add", ".")
	hostGit(t, ws, "", "-c", "user.email=p@p", "-c", "user.name=p", "commit", "-qm", "lib/src")
	state := filepath.Join(root, "state")
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded:     []string{ws + "/.git/hooks", ws + "/.envrc"},
		GitConfig:   []string{ws + "/.git/config"},
		RootGuarded: []string{".git/hooks/", ".git/hooks", ".git/commondir", ".git/info/attributes", ".envrc"}, Regenerable: []string{"node_modules"},
		RootGitConfig: []string{".git/config", ".git/config.worktree"},
		// (As the rules have them: what git init writes, a submodule's
		// work tree.)
		GitConfigSafe: []string{"core.repositoryFormatVersion", "core.fileMode", "core.bare", "core.logAllRefUpdates", "core.worktree=@workspace"}}
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Release(state, ws) })
	return p, state
}

// hostGit runs the host's git in dir, as the person does: a clean home,
// no system configuration; it returns its output.
func hostGit(t *testing.T, dir, home string, args ...string) string {
	t.Helper()
	if home == "" {
		home = t.TempDir()
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin", "LC_ALL=C"}
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// plantBare makes dir a bare repository whose configuration gives it
// dir as its work tree and a core.fsmonitor writing marker: what the
// person's git status below dir then runs.
func plantBare(t *testing.T, dir, marker string) {
	t.Helper()
	hostGit(t, filepath.Dir(dir), "", "init", "-q", "--bare", filepath.Base(dir))
	plantConfig(dir, marker)
}

// plantConfig writes dir's configuration as plantBare does.
func plantConfig(dir, marker string) {
	os.WriteFile(filepath.Join(dir, "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"echo ran > "+marker+"; false\"\n"), 0o644)
}

// bareRound is what follows a command that began at since: the
// ledger's reconcile ([Reconcile], as a session's command ends), then
// the snapshot round's part ([FindBelow], [AdoptRoots], [MoveAside], as
// package shim calls them).
func bareRound(p *platform.Policy, state string, since time.Time) []string {
	lines, _ := Reconcile(state, p.Workspace)
	found, repos, _ := FindBelow("", p.Workspace, p.RootGuarded, p.Regenerable, nil, since, nil)
	lines = append(lines, AdoptRoots(state, p.Workspace, repos)...)
	return append(lines, MoveAside(state, p.Workspace, found)...)
}

// ranOnHost runs the person's git status in dir and reports whether the
// planted program ran.
func ranOnHost(t *testing.T, dir, marker string) bool {
	t.Helper()
	out := hostGit(t, dir, "", "status")
	if _, err := os.Stat(marker); err == nil {
		t.Logf("git status in %s ran the planted program: %s", dir, out)
		return true
	}
	return false
}

// A bare repository a command makes below the root, whatever the steps
// and wherever git then finds it, runs nothing of the command's when the
// person's git looks there after the round.
func TestGuardBareBelowRoot(t *testing.T) {
	for name, plant := range map[string]func(t *testing.T, ws, marker string, round func()){
		// The attack: the person's own tracked lib/src/ made a bare
		// repository whose work tree is lib/src/.
		"in the person's directory": func(t *testing.T, ws, marker string, round func()) {
			plantBare(t, filepath.Join(ws, "lib/src"), marker)
			round()
		},
		// git's steps over two commands: HEAD first, then objects/,
		// refs/ and the configuration.
		"HEAD first": func(t *testing.T, ws, marker string, round func()) {
			os.WriteFile(filepath.Join(ws, "lib/src/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			round()
			os.Mkdir(filepath.Join(ws, "lib/src/objects"), 0o755)
			os.Mkdir(filepath.Join(ws, "lib/src/refs"), 0o755)
			plantConfig(filepath.Join(ws, "lib/src"), marker)
			round()
		},
		// A configuration added later to a bare directory made before.
		"config later": func(t *testing.T, ws, marker string, round func()) {
			hostGit(t, ws, "", "init", "-q", "--bare", "lib/src")
			os.Remove(filepath.Join(ws, "lib/src/config"))
			round()
			plantConfig(filepath.Join(ws, "lib/src"), marker)
			round()
		},
		// A detached HEAD: a hash, no ref.
		"detached HEAD": func(t *testing.T, ws, marker string, round func()) {
			plantBare(t, filepath.Join(ws, "lib/src"), marker)
			os.WriteFile(filepath.Join(ws, "lib/src/HEAD"), []byte(strings.Repeat("ab", 20)+"\n"), 0o644)
			round()
		},
		// objects and refs where commondir says.
		"commondir": func(t *testing.T, ws, marker string, round func()) {
			common := filepath.Join(ws, "node_modules/common")
			hostGit(t, ws, "", "init", "-q", "--bare", common)
			os.WriteFile(filepath.Join(common, "config"), []byte("[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tworktreeConfig = true\n"), 0o644)
			os.WriteFile(filepath.Join(ws, "lib/src/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			os.WriteFile(filepath.Join(ws, "lib/src/commondir"), []byte("../../node_modules/common\n"), 0o644)
			plantConfig(filepath.Join(ws, "lib/src"), marker)
			os.Rename(filepath.Join(ws, "lib/src/config"), filepath.Join(ws, "lib/src/config.worktree"))
			round()
		},
		// A regenerable directory (which the walk does not go into)
		// made one: git run below it finds it.
		"regenerable": func(t *testing.T, ws, marker string, round func()) {
			os.MkdirAll(filepath.Join(ws, "node_modules/x"), 0o755)
			round()
			plantBare(t, filepath.Join(ws, "node_modules"), marker)
			round()
			if ranOnHost(t, filepath.Join(ws, "node_modules/x"), marker) {
				t.Error("the person's git status in node_modules/x ran a program a command planted there")
			}
		},
		// A .git file in a bare repository leading to itself: git takes
		// the directory for its own work tree.
		"a .git file in it": func(t *testing.T, ws, marker string, round func()) {
			plantBare(t, filepath.Join(ws, "lib/src"), marker)
			os.WriteFile(filepath.Join(ws, "lib/src/.git"), []byte("gitdir: .\n"), 0o644)
			round()
		},
	} {
		t.Run(name, func(t *testing.T) {
			p, state := bareWorkspace(t)
			ws := p.Workspace
			marker := filepath.Join(t.TempDir(), "ran")
			since := time.Now()
			time.Sleep(30 * time.Millisecond)
			plant(t, ws, marker, func() {
				t.Log(bareRound(p, state, since))
				since = time.Now()
				time.Sleep(30 * time.Millisecond)
			})
			if ranOnHost(t, filepath.Join(ws, "lib/src/pkg"), marker) {
				t.Error("the person's git status ran a program a command planted in a bare repository below the root")
			}
			if _, err := os.Stat(filepath.Join(ws, "lib/src/pkg/main.c")); err != nil {
				t.Errorf("the person's file went: %v", err)
			}
		})
	}
}

// A session's watch adopts a bare repository a process the command
// left makes between commands, at once.
func TestWatchBelowBare(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	marker := filepath.Join(t.TempDir(), "ran")
	plantBare(t, filepath.Join(ws, "lib/src"), marker)
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(20 * time.Millisecond) {
		if data, _ := os.ReadFile(filepath.Join(ws, "lib/src/config")); !strings.Contains(string(data), "fsmonitor") {
			break
		}
	}
	if ranOnHost(t, filepath.Join(ws, "lib/src/pkg"), marker) {
		t.Error("the person's git status ran a program a background process planted in a bare repository")
	}
	// Written again later, once the repository is the ledger's.
	plantConfig(filepath.Join(ws, "lib/src"), marker)
	time.Sleep(300 * time.Millisecond)
	if ranOnHost(t, filepath.Join(ws, "lib/src/pkg"), marker) {
		t.Error("a configuration written again in an adopted bare repository ran")
	}
}

// A bare repository an agent makes for a test remote keeps working,
// and keeps what was pushed to it.
func TestGuardBareTestRemote(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	since := time.Now()
	time.Sleep(30 * time.Millisecond)
	hostGit(t, ws, "", "init", "-q", "--bare", "remote.git")
	hostGit(t, ws, "", "push", "-q", "remote.git", "HEAD")
	for _, l := range bareRound(p, state, since) {
		if !strings.Contains(l, "made this directory a git repository") {
			t.Errorf("unexpected: %s", l)
		}
	}
	if out := hostGit(t, ws, "", "--git-dir=remote.git", "log", "--oneline", "HEAD"); !strings.Contains(out, "src") {
		t.Errorf("the test remote lost what was pushed: %s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "remote.git/config")); !strings.Contains(string(data), "bare = true") {
		t.Errorf("the test remote's configuration went: %q", data)
	}
	// The next command pushes again and clones it.
	since = time.Now()
	time.Sleep(30 * time.Millisecond)
	os.WriteFile(filepath.Join(ws, "f"), []byte("x"), 0o644)
	hostGit(t, ws, "", "add", "f")
	hostGit(t, ws, "", "-c", "user.email=a@a", "-c", "user.name=a", "commit", "-qm", "two")
	if out := hostGit(t, ws, "", "push", "-q", "remote.git", "HEAD"); out != "" {
		t.Errorf("push to the test remote: %s", out)
	}
	for _, l := range bareRound(p, state, since) {
		if strings.Contains(l, "moved") {
			t.Errorf("a push to a test remote moved something: %s", l)
		}
	}
	if out := hostGit(t, ws, "", "clone", "-q", "remote.git", "c"); out != "" {
		t.Errorf("clone of the test remote: %s", out)
	}
}

// A session's watch adopts a regenerable directory (not watched below)
// that a process makes a bare repository between commands.
func TestWatchBelowBareRegenerable(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	os.MkdirAll(filepath.Join(ws, "node_modules/x"), 0o755)
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	marker := filepath.Join(t.TempDir(), "ran")
	plantBare(t, filepath.Join(ws, "node_modules"), marker)
	// The watch reacts on its own time: up to 10 s on a loaded machine
	// (a fixed 300 ms failed in CI), then the person's git runs.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if data, _ := os.ReadFile(filepath.Join(ws, "node_modules/config")); !strings.Contains(string(data), "fsmonitor") {
			break
		}
	}
	if ranOnHost(t, filepath.Join(ws, "node_modules/x"), marker) {
		t.Error("the person's git status in node_modules/x ran a program a background process planted in node_modules")
	}
}

// A bare repository made directly in the workspace is put back when
// the command ends, as a repository made there is, before any round.
func TestGuardBareAtRootWhenCommandEnds(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	marker := filepath.Join(t.TempDir(), "ran")
	plantBare(t, filepath.Join(ws, "lib"), marker)
	if _, err := Reconcile(state, ws); err != nil {
		t.Fatal(err)
	}
	if ranOnHost(t, filepath.Join(ws, "lib/src/pkg"), marker) {
		t.Error("the person's git status ran a program a command planted in a bare repository directly in the workspace, after the command ended")
	}
}

// The round's walk looks inside regenerable directories for git
// directories of their own made since t (git run below
// node_modules/x/lib finds one there): a bare one, a repository's .git;
// not one made before t, nor inside a git directory's objects.
func TestFindBelowInside(t *testing.T) {
	ws := t.TempDir()
	hostGit(t, ws, "", "init", "-q", "--bare", "node_modules/old/lib")
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	hostGit(t, ws, "", "init", "-q", "--bare", "node_modules/x/lib")
	hostGit(t, ws, "", "init", "-q", "node_modules/a/y")
	var got []string
	_, repos, complete := FindBelow("", ws, []string{".npmrc"}, []string{"node_modules"}, nil, since, nil)
	for _, r := range repos {
		rel, _ := filepath.Rel(ws, r.GitDir)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"node_modules/a/y/.git", "node_modules/x/lib"}; !slices.Equal(got, want) || !complete {
		t.Errorf("found %q (complete %v), want %q", got, complete, want)
	}
	// Before a command's status, the walk leaves them to the round.
	if _, repos, _ := findBelow("", ws, []string{".npmrc"}, []string{"node_modules"}, nil, since, nil, false); len(repos) > 0 {
		t.Errorf("the walk before the status went into node_modules: %v", repos)
	}
}

// The person's own bare repositories, directly in the workspace and
// below it, there before the trusted state was taken: a push into them
// (which changes their objects/) keeps what was pushed; the round takes
// neither for one a command made around the person's files.
func TestGuardPersonsBarePushedTo(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	hostGit(t, ws, "", "init", "-q", "--bare", "top.git")
	hostGit(t, ws, "", "init", "-q", "--bare", "remotes/origin.git")
	// (Older than the next trusted state by more than the file clock's
	// margin.)
	time.Sleep(50 * time.Millisecond)
	Release(state, ws)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	time.Sleep(30 * time.Millisecond)
	for _, r := range []string{"top.git", "remotes/origin.git"} {
		hostGit(t, ws, "", "push", "-q", r, "HEAD:refs/heads/main")
	}
	for _, l := range bareRound(p, state, since) {
		if strings.Contains(l, "moved") {
			t.Errorf("a push into the person's bare repository moved something: %s", l)
		}
	}
	for _, r := range []string{"top.git", "remotes/origin.git"} {
		if out := hostGit(t, ws, "", "--git-dir="+r, "log", "--oneline", "main"); !strings.Contains(out, "lib/src") {
			t.Errorf("%s lost what was pushed: %s", r, out)
		}
	}
}
