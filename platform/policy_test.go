package platform

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/credvar"
)

// tree makes files (dir entries end in "/") under a fresh directory and
// returns its real path.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestNewPolicy(t *testing.T) {
	root := tree(t, "home/.ssh/id_rsa", "home/.ssh/known_hosts", "home/.ssh/a.pub", "home/.netrc",
		"home/.cache/", "home/proj/.git/config", "home/proj/.git/HEAD", "home/proj/.envrc", "tmp/ssh-XYZ/agent.1",
		"tmp/other", "tmp/.X11-unix/X0")
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "proj")
	os.Symlink(ws, filepath.Join(root, "link"))
	env := []string{"HOME=" + home, "PATH=/usr/bin", "GITHUB_TOKEN=x", "MY_API_KEY=y", "KEEP_TOKEN=z", "NOEQUALS"}
	s := &Spec{
		Workspace:      filepath.Join(root, "link"),
		Scratch:        []string{filepath.Join(root, "tmp")},
		ScratchPrivate: []string{"ssh-*", ".X11-unix"},
		Writable:       []string{"~/.cache", "~/.npm", "$MISSING/x"},
		ReadOnly:       []string{".git/hooks/", ".git/config", ".envrc", ".vscode/tasks.json"},
		Hidden:         []string{"~/.ssh", "~/.netrc", "~/.aws", "~/proj/secret"},
		Visible:        []string{"~/.ssh/known_hosts", "~/.ssh/*.pub", "~/.aws/config"},
		CredentialVars: []string{"*_TOKEN", "*_api_key"},
		PassEnv:        []string{"KEEP_TOKEN"},
		Network:        NetworkOff,
	}
	p, err := NewPolicy(s, env)
	if err != nil {
		t.Fatal(err)
	}
	want := &Policy{
		Workspace: ws,
		Home:      home,
		Scratch:   []string{filepath.Join(root, "tmp")},
		Writable:  []string{filepath.Join(home, ".cache"), ws},
		// .git/hooks did not exist: it is made, so that no hook can be
		// added from inside.
		ReadOnly:    []string{ws + "/.envrc", ws + "/.git/config", ws + "/.git/hooks"},
		Guarded:     []string{ws + "/.git/hooks", ws + "/.git/config", ws + "/.envrc", ws + "/.vscode/tasks.json"},
		RootGuarded: []string{".git/hooks/", ".git/config", ".envrc", ".vscode/tasks.json"},
		Hidden:      []string{home + "/.netrc", home + "/.ssh", root + "/tmp/.X11-unix", root + "/tmp/ssh-XYZ"},
		Missing:     []string{home + "/.aws", ws + "/secret"},
		Visible:     []string{home + "/.ssh/a.pub", home + "/.ssh/known_hosts"},
		Env:         []string{"HOME=" + home, "PATH=/usr/bin", "KEEP_TOKEN=z"},
		Network:     NetworkOff,
	}
	// The account's own home is looked at too (HOME is the caller's):
	// this test's fake home is what it checks.
	if acct := accountHome(); acct != "" {
		notAcct := func(h string) bool { return Within(h, acct) }
		p.Hidden = slices.DeleteFunc(p.Hidden, notAcct)
		p.Missing = slices.DeleteFunc(p.Missing, notAcct)
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("NewPolicy:\n got %+v\nwant %+v", p, want)
	}
	if fi, err := os.Stat(ws + "/.git/hooks"); err != nil || !fi.IsDir() {
		t.Errorf(".git/hooks was not made: %v", err)
	}
}

func TestNewPolicyRefusesWorkspace(t *testing.T) {
	root := tree(t, "home/x/")
	home := filepath.Join(root, "home")
	env := []string{"HOME=" + home}
	for _, ws := range []string{"/", home, root, "relative", filepath.Join(root, "missing"), filepath.Join(home, "x", "..", "..")} {
		if _, err := NewPolicy(&Spec{Workspace: ws}, env); err == nil {
			t.Errorf("workspace %s was accepted", ws)
		}
	}
	if _, err := NewPolicy(&Spec{Workspace: filepath.Join(home, "x")}, env); err != nil {
		t.Errorf("a project directory was refused: %v", err)
	}
	p, err := NewPolicy(&Spec{}, env)
	if err != nil || p.Workspace != "" || len(p.Writable) != 0 {
		t.Errorf("no workspace: %+v, %v", p, err)
	}
	if _, err := NewPolicy(&Spec{Network: "maybe"}, env); err == nil {
		t.Error("network maybe was accepted")
	}
}

// A worktree's commits write to the main repository's git directory,
// which is then writable, with its hooks and configuration read-only.
func TestNewPolicyWorktree(t *testing.T) {
	root := tree(t, "main/.git/hooks/", "main/.git/config", "main/.git/HEAD", "main/.git/worktrees/wt/commondir",
		"main/.git/worktrees/wt/HEAD", "wt/", "other/HEAD", "forged/")
	os.WriteFile(filepath.Join(root, "main/.git/worktrees/wt/commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main/.git/worktrees/wt/gitdir"), []byte(root+"/wt/.git\n"), 0o644)
	os.WriteFile(filepath.Join(root, "wt/.git"), []byte("gitdir: "+root+"/main/.git/worktrees/wt\n"), 0o644)
	// A .git file written by a command names any directory it likes:
	// without git's own back-pointer, nothing becomes writable.
	os.WriteFile(filepath.Join(root, "forged/.git"), []byte("gitdir: "+root+"/other\n"), 0o644)
	if p, err := NewPolicy(&Spec{Workspace: filepath.Join(root, "forged")}, nil); err != nil || slices.Contains(p.Writable, root+"/other") {
		t.Errorf("a forged .git file made %s writable: %v, %v", root+"/other", p.Writable, err)
	}
	p, err := NewPolicy(&Spec{Workspace: filepath.Join(root, "wt")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{root + "/main/.git", root + "/main/.git/worktrees/wt", root + "/wt"} {
		if !slices.Contains(p.Writable, w) {
			t.Errorf("%s is not writable: %v", w, p.Writable)
		}
	}
	if !slices.Contains(p.ReadOnly, root+"/main/.git/hooks") {
		t.Errorf("%s is not read-only: %v", root+"/main/.git/hooks", p.ReadOnly)
	}
	// Its configuration is writable (git branch, git remote add write
	// it), its keys guarded.
	if cfg := root + "/main/.git/config"; slices.Contains(p.ReadOnly, cfg) || !slices.Contains(p.GitConfig, cfg) {
		t.Errorf("%s is not guarded by its keys: read-only %v, git_config %v", cfg, p.ReadOnly, p.GitConfig)
	}
}

// git's configuration files are not read-only, but their patterns are
// kept for the guard, with the safe keys; a repository a command makes
// (none yet) has none.
func TestNewPolicyGitConfig(t *testing.T) {
	root := tree(t, "ws/.git/hooks/", "ws/.git/config", "ws/.git/HEAD", "plain/")
	spec := &Spec{ReadOnly: []string{".git/hooks/"}, GitConfig: []string{".git/config", ".git/modules/*/config"}, GitConfigSafe: []string{"user.*"}}
	spec.Workspace = root + "/ws"
	p, err := NewPolicy(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{root + "/ws/.git/config", root + "/ws/.git/modules/*/config"}
	if !slices.Equal(p.GitConfig, want) || !slices.Equal(p.GitConfigSafe, []string{"user.*"}) || slices.Contains(p.ReadOnly, want[0]) {
		t.Errorf("git_config %v (want %v), safe %v, read-only %v", p.GitConfig, want, p.GitConfigSafe, p.ReadOnly)
	}
	spec.Workspace = root + "/plain"
	if p, err := NewPolicy(spec, nil); err != nil || len(p.GitConfig) != 0 {
		t.Errorf("no repository yet: git_config %v, %v", p.GitConfig, err)
	}
}

func TestFilterEnv(t *testing.T) {
	env := []string{"A=1", "GH_TOKEN=x", "gh_token=y", "AWS_SECRET_ACCESS_KEY=z", "PATH=/bin", "SSH_AUTH_SOCK=/s", "PASS=1",
		"DB=postgres://u:pw@db:5432/x", "WEB=https://example.com/a:b@c", "PROXY=http://user@proxy:3128",
		"DB_PASS=p", "npm_config_//registry.npmjs.org/:_authToken=t", "PASSENGER_COUNT=2"}
	got := FilterEnv(env, credvar.New([]string{"*_TOKEN", "AWS_*", "SSH_AUTH_SOCK"}, []string{"pass", "auth"}, nil), []string{"PASS", "gh_token"})
	want := []string{"A=1", "gh_token=y", "PATH=/bin", "PASS=1", "WEB=https://example.com/a:b@c", "PROXY=http://user@proxy:3128", "PASSENGER_COUNT=2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FilterEnv = %q, want %q", got, want)
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		path, dir string
		want      bool
	}{
		{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/a", "/", true}, {"/", "/a", false},
	} {
		if got := Within(c.path, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.path, c.dir, got)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pat, name string
	}{
		{"*_TOKEN", "GH_TOKEN"}, {"*_TOKEN", "_TOKEN"}, {"*_TOKEN_*", "A_TOKEN_B"}, {"ssh-*", "ssh-abc"},
		{"*SECRET_KEY*", "SECRET_KEY"}, {"a*b*c", "abc"}, {"a*b*c", "axxbyyc"}, {"x", "x"}, {"*", ""},
		{".s.PGSQL.*", ".s.PGSQL.5432"}, {"ssh-[a-z]*", "ssh-x"}, {"a?c", "abc"},
	} {
		want, _ := path.Match(c.pat, c.name)
		if got := globMatch(c.pat, c.name); got != want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pat, c.name, got, want)
		}
	}
	for _, c := range [][2]string{{"*_TOKEN", "GH_TOKENS"}, {"a*b*c", "acb"}, {"ab*ba", "aba"}, {"x", "y"}} {
		if globMatch(c[0], c[1]) {
			t.Errorf("globMatch(%q, %q) = true", c[0], c[1])
		}
	}
}

// The guarded patterns name the read-only paths of the workspace and of
// the repositories directly in a plain directory; a repository that does
// not exist yet (git init by the command) has none.
func TestGuardedPatterns(t *testing.T) {
	root := tree(t, "ws/.git/config", "plain/repo/.git/config", "plain/repo/.git/HEAD", "plain/new/")
	spec := &Spec{ReadOnly: []string{".git/hooks/", ".git/config", ".git/commondir", ".envrc", ".claude/settings.json", ".git/modules/*/config"}}
	spec.Workspace = root + "/ws"
	p, err := NewPolicy(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{root + "/ws/.git/commondir", root + "/ws/.claude/settings.json", root + "/ws/.git/modules/*/config", root + "/ws/.git/hooks"} {
		if !slices.Contains(p.Guarded, want) {
			t.Errorf("Guarded = %q, want %s in it", p.Guarded, want)
		}
	}
	spec.Workspace = root + "/plain"
	p, err = NewPolicy(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.ReadOnly, root+"/plain/repo/.git/config") || !slices.Contains(p.ReadOnly, root+"/plain/repo/.git/hooks") {
		t.Errorf("the repository inside is not protected: %q", p.ReadOnly)
	}
	if !slices.Contains(p.Guarded, root+"/plain/repo/.git/commondir") || slices.Contains(p.Guarded, root+"/plain/.git/config") {
		t.Errorf("Guarded = %q, want the inner repository's and no .git of the plain directory", p.Guarded)
	}
}

// TestNewPolicyCaches: a workspace inside a cache (reached through a
// link or not) is refused, its files being the host's cache; a cache
// inside the workspace keeps its layer; one inside another is in its
// layer.
func TestNewPolicyCaches(t *testing.T) {
	root := tree(t, "home/src/gopath/pkg/mod/", "disk/pre-commit/repo1/", "home/.npm/_npx/")
	home := filepath.Join(root, "home")
	env := []string{"HOME=" + home}
	if err := os.Symlink(filepath.Join(root, "disk"), filepath.Join(home, ".cache")); err != nil {
		t.Skip(err)
	}
	caches := []string{"~/.cache", "~/.npm", "~/.npm/_npx", "~/src/gopath/pkg/mod"}
	for _, ws := range []string{filepath.Join(home, ".cache", "pre-commit", "repo1"), filepath.Join(root, "disk", "pre-commit", "repo1"), filepath.Join(home, ".npm", "_npx")} {
		_, err := NewPolicy(&Spec{Workspace: ws, Caches: caches}, env)
		var pe *PolicyError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "cache") {
			t.Errorf("workspace %s inside a cache: %v, want a refusal", ws, err)
		}
	}
	p, err := NewPolicy(&Spec{Workspace: filepath.Join(home, "src", "gopath"), Caches: caches}, env)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(home, ".npm"), filepath.Join(home, "src", "gopath", "pkg", "mod"), filepath.Join(root, "disk")}
	slices.Sort(want)
	if !slices.Equal(p.Caches, want) {
		t.Errorf("caches %v, want %v", p.Caches, want)
	}
}

func TestBelowRoot(t *testing.T) {
	entries := []string{".git/hooks/", ".npmrc", ".husky/", ".vscode/tasks.json", ".git/modules/*/**/hooks"}
	for rel, want := range map[string]bool{
		"packages/app/.npmrc":         true,
		"a/b/c/.vscode/tasks.json":    true,
		"sub/.husky/pre-commit":       true,
		"sub/.husky":                  true,
		".npmrc":                      false, // the root's: the guard's own
		".husky/pre-commit":           false,
		"sub/.git/hooks/pre-commit":   false, // git's: the repositories' guard
		"packages/app/.npmrc.bak":     false,
		"packages/app/.vscode/x.json": false,
		"docs/.npmrc/readme":          false,
	} {
		if got := BelowRoot(rel, entries); got != want {
			t.Errorf("BelowRoot(%q) = %v, want %v", rel, got, want)
		}
	}
}

// A workspace that is no repository yet gets the safe keys too: git init
// there makes a configuration the guard judges by them, and without
// them every key git writes would be unsafe.
func TestNewPolicyNewRepositorySafeKeys(t *testing.T) {
	root := tree(t, "home/proj/main.go")
	env := []string{"HOME=" + filepath.Join(root, "home"), "PATH=/usr/bin"}
	s := &Spec{Workspace: filepath.Join(root, "home/proj"), GitConfig: []string{".git/config"}, GitConfigSafe: []string{"core.bare", "user.*"}}
	p, err := NewPolicy(s, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.GitConfig) != 0 || !slices.Equal(p.RootGitConfig, []string{".git/config"}) {
		t.Fatalf("GitConfig %v, RootGitConfig %v", p.GitConfig, p.RootGitConfig)
	}
	if !slices.Equal(p.GitConfigSafe, s.GitConfigSafe) {
		t.Errorf("GitConfigSafe = %v, want %v", p.GitConfigSafe, s.GitConfigSafe)
	}
}

// TestDeferScratchRepos: a policy made without the search for the
// repositories in scratch space (Spec.DeferScratchRepos) finds them
// where a sandbox is made from it (SearchSockets, as every backend's
// start calls it), those made since included, and then guards exactly
// what an eager policy made at that moment guards.
func TestDeferScratchRepos(t *testing.T) {
	root := tree(t, "scratch/person/.git/HEAD", "scratch/plain/", "ws/.git/hooks/")
	scratch, ws := root+"/scratch", root+"/ws"
	spec := func(deferred bool) *Spec {
		return &Spec{Workspace: ws, Scratch: []string{scratch}, ReadOnly: []string{".git/hooks"}, GitConfig: []string{".git/config"},
			GitConfigSafe: []string{"user.*"}, DeferScratchRepos: deferred}
	}
	p, err := NewPolicy(spec(true), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.ScratchPending() || slices.ContainsFunc(p.ReadOnly, func(r string) bool { return Within(r, scratch) }) {
		t.Fatalf("a deferred policy looked in scratch space: %q", p.ReadOnly)
	}
	// Made after the policy, before a sandbox is made from it.
	if err := os.MkdirAll(scratch+"/later/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	p.SearchSockets()
	eager, err := NewPolicy(spec(false), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.ScratchPending() {
		t.Error("still pending after SearchSockets")
	}
	for _, want := range []string{scratch + "/person/.git/hooks", scratch + "/later/.git/hooks"} {
		if !slices.Contains(p.ReadOnly, want) {
			t.Errorf("%s not read-only: %q", want, p.ReadOnly)
		}
	}
	same := func(a, b []string) bool {
		return reflect.DeepEqual(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
	}
	// (In any order: the oldest repositories first, by change times the
	// two searches' hooks directories move.)
	if !same(p.ReadOnly, eager.ReadOnly) || !same(p.Guarded, eager.Guarded) ||
		!same(p.GitConfig, eager.GitConfig) || !same(p.GitConfigSafe, eager.GitConfigSafe) {
		t.Errorf("deferred, then found:\n%q\n%q\n%q\neager:\n%q\n%q\n%q", p.ReadOnly, p.Guarded, p.GitConfig, eager.ReadOnly, eager.Guarded, eager.GitConfig)
	}
	// Once: a repository made after the search is not looked for again.
	os.MkdirAll(scratch+"/after/.git", 0o755)
	p.FindScratchRepositories()
	if slices.Contains(p.ReadOnly, scratch+"/after/.git/hooks") {
		t.Error("searched twice")
	}
}

// TestGuardedNowMakesNothing: the guard's copy of a running sandbox's
// policy takes the repositories in scratch space made since (their
// configuration guarded by its keys), and makes nothing there: a hooks
// directory a person removed stays removed (before, it came back at
// every command of a session).
func TestGuardedNowMakesNothing(t *testing.T) {
	root := tree(t, "scratch/person/.git/HEAD", "ws/.git/hooks/")
	scratch, ws := root+"/scratch", root+"/ws"
	p, err := NewPolicy(&Spec{Workspace: ws, Scratch: []string{scratch}, ReadOnly: []string{".git/hooks"}, GitConfig: []string{".git/config"},
		GitConfigSafe: []string{"user.*"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.ReadOnly, scratch+"/person/.git/hooks") {
		t.Fatalf("the sandbox's policy: %s/person/.git/hooks not read-only: %q", scratch, p.ReadOnly)
	}
	// Made while the sandbox runs: a clone without hooks, and the first
	// one's hooks removed by its person.
	if err := os.MkdirAll(scratch+"/later/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(scratch + "/person/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	q := p.GuardedNow()
	for _, r := range []string{"person", "later"} {
		if !slices.Contains(q.GitConfig, scratch+"/"+r+"/.git/config") {
			t.Errorf("%s's configuration not guarded: %q", r, q.GitConfig)
		}
		if _, err := os.Lstat(scratch + "/" + r + "/.git/hooks"); err == nil {
			t.Errorf("GuardedNow made %s/%s/.git/hooks", scratch, r)
		}
	}
	if slices.Contains(p.GitConfig, scratch+"/later/.git/config") {
		t.Error("GuardedNow changed the policy it copied")
	}
}

// WritableRoots resolves the writable part of a policy alone (not what
// is read-only or guarded inside it): the same roots as the whole
// policy's, for a workspace that is a repository with nested ones, a
// linked worktree, and one inside a cache's parent.
func TestWritableRootsAsPolicy(t *testing.T) {
	root := tree(t, "home/.cache/", "home/.npm/_npx/", "home/proj/.git/config", "home/proj/.git/HEAD", "home/proj/.envrc",
		"home/proj/sub/.git/config", "home/proj/sub/.git/HEAD", "tmp/other",
		"main/.git/hooks/", "main/.git/config", "main/.git/HEAD", "main/.git/worktrees/wt/HEAD", "wt/",
		"home/src/gopath/pkg/mod/")
	os.WriteFile(filepath.Join(root, "main/.git/worktrees/wt/commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main/.git/worktrees/wt/gitdir"), []byte(root+"/wt/.git\n"), 0o644)
	os.WriteFile(filepath.Join(root, "wt/.git"), []byte("gitdir: "+root+"/main/.git/worktrees/wt\n"), 0o644)
	home := filepath.Join(root, "home")
	env := []string{"HOME=" + home, "PATH=/usr/bin"}
	// The roots alone make nothing: a missing hooks directory is made
	// for a sandbox's read-only mount, with the whole policy.
	if _, err := WritableRoots(&Spec{Workspace: filepath.Join(home, "proj"), ReadOnly: []string{".git/hooks/"}}, env); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(home, "proj", ".git", "hooks")); err == nil {
		t.Error("WritableRoots made .git/hooks")
	}
	for _, ws := range []string{"", filepath.Join(home, "proj"), filepath.Join(root, "wt"), filepath.Join(home, "src", "gopath"), filepath.Join(root, "tmp")} {
		s := &Spec{
			Workspace: ws,
			Scratch:   []string{filepath.Join(root, "tmp")},
			Writable:  []string{"~/.cache", "~/.missing", filepath.Join(root, "tmp", "x*")},
			Caches:    []string{"~/.npm", "~/.npm/_npx", "~/src/gopath/pkg/mod"},
			ReadOnly:  []string{".git/hooks/", ".git/config", ".envrc"},
			GitConfig: []string{".git/config"},
			Network:   NetworkOff,
		}
		p, err := NewPolicy(s, env)
		if err != nil {
			t.Fatalf("workspace %q: %v", ws, err)
		}
		roots, err := WritableRoots(s, env)
		if err != nil {
			t.Fatalf("workspace %q: %v", ws, err)
		}
		if want := p.WritableRoots(); !slices.Equal(roots, want) {
			t.Errorf("workspace %q: WritableRoots %v, the policy's %v", ws, roots, want)
		}
		if ws == filepath.Join(root, "wt") && !slices.Contains(roots, root+"/main/.git") {
			t.Errorf("the worktree's git directory is not a root: %v", roots)
		}
	}
}
