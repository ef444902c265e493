package rules_test

import (
	"strings"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// judgeAt judges script run in dir with the given workspace ("" for
// none), an empty environment but HOME.
func judgeAt(home, ws, dir, script string, env ...string) *rules.Judgement {
	set := rules.Builtin()
	environ := append([]string{"HOME=" + home, "TMPDIR=/tmp"}, env...)
	getenv := func(k string) string {
		for _, kv := range environ {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	}
	cfg := &parse.Config{
		Dialect: parse.Bash, Env: environ, Dir: dir, Knowledge: set,
		Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil },
	}
	ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Environ: environ, Getenv: getenv}, Repo: &fakeRepo{remotes: []string{"origin"}}}
	return set.Judge(parse.Parse(script, cfg), ctx)
}

// TestGitInitTargets: git init makes its directory operand, or the
// current directory, a repository; -b's value is a branch name, not a
// directory. In a directory that is no workspace (under /srv) the
// sandbox would refuse the write, so the judge asks first, naming the
// directory; in the workspace it is allowed (found by the replay of
// ordinary work: `git init` was allowed there and failed read-only, and
// `git init -b main` was asked about a directory "main").
func TestGitInitTargets(t *testing.T) {
	home, dir := "/home/dev", "/srv/site/app"
	for _, script := range []string{"git init -q", "git init -q -b main", "git init --initial-branch=main", "git init ."} {
		j := judgeAt(home, "", dir, script)
		if j.Verdict == rules.Allow {
			t.Errorf("%s in %s, no workspace: allowed, but the sandbox would make it fail read-only", script, dir)
			continue
		}
		if msg := j.Reasons[0].Message; !strings.Contains(msg, "modify "+dir+":") {
			t.Errorf("%s: reason %q does not name %s", script, msg, dir)
		}
	}
	if j := judgeAt(home, "", dir, "git init --separate-git-dir /etc/gitdir"); !strings.Contains(categories(j), "outside") || !strings.Contains(j.Reasons[len(j.Reasons)-1].Message, "/etc/gitdir") {
		t.Errorf("git init --separate-git-dir /etc/gitdir: got %v %+v, want the write to /etc/gitdir judged", j.Verdict, j.Reasons)
	}
	for _, script := range []string{"git init -q -b main", "git init -q sub", "git init"} {
		if j := judgeAt(home, dir, dir, script); j.Verdict != rules.Allow {
			t.Errorf("%s in the workspace %s: got %v %+v, want allow", script, dir, j.Verdict, j.Reasons)
		}
	}
}

// TestEnvDumpPiped: a piped or redirected dump of the environment is a
// secret read when a credential variable is set, and ordinary work
// (env | sort, env | cut -d= -f1) when none is.
func TestEnvDumpPiped(t *testing.T) {
	home, ws := "/home/dev", "/home/dev/app"
	for _, script := range []string{"env | sort", "env | cut -d= -f1 | sort", "printenv | wc -l", "env > env.txt"} {
		if j := judgeAt(home, ws, ws, script, "PATH=/usr/bin", "LANG=C"); j.Verdict != rules.Allow {
			t.Errorf("%s, no credential set: got %v %+v, want allow", script, j.Verdict, j.Reasons)
		}
		j := judgeAt(home, ws, ws, script, "PATH=/usr/bin", "GITHUB_TOKEN=ghp_x")
		if j.Verdict == rules.Allow || !strings.Contains(categories(j), "secret") || !strings.Contains(j.Reasons[0].Message, "GITHUB_TOKEN") {
			t.Errorf("%s with GITHUB_TOKEN set: got %v %+v, want a secret ask naming it", script, j.Verdict, j.Reasons)
		}
	}
}
