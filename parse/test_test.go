package parse

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// File tests are evaluated on the real files, relative to the walker's
// directory, only while nothing before them could have changed files.
func TestKnownFileTest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("X=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, script, want string }{
		{"present-or", "test -f .env || cp .env.example .env", "test -f .env"},
		{"absent-and", "[ -e nope ] && rm -rf /a", "[ -e nope ]"},
		{"dir-and", "[ -d sub ] && rm -rf /a", "[ -d sub ]\nrm -rf /a"},
		{"not-dir", "[ ! -d .env ] || rm -rf /a", "[ ! -d .env ]"},
		{"after-cd", "cd sub && [ -f .env ] && rm -rf /a", "cd sub\n[ -f .env ]"},
		{"if-else", "if [ -f .env ]; then echo ok; else rm -rf /a; fi", "[ -f .env ]\necho ok"},
		// What ran before may have changed the file: both sides.
		{"after-rm", "rm -f .env; [ -f .env ] || rm -rf /a", "rm -f .env\n[ -f .env ]\nrm -rf /a"},
		{"after-write", "echo x > nope; [ -e nope ] && rm -rf /a", "echo x >1:nope\n[ -e nope ]\nrm -rf /a"},
		{"after-unknown", "make; [ -e nope ] && rm -rf /a", "make\n[ -e nope ]\nrm -rf /a"},
		{"function-named-test", "test() { :; }; test -e nope && rm -rf /a", "test -e nope\n: <- test()\nrm -rf /a"},
		{"unknown-dir", "cd ./missing; [ -e nope ] && rm -rf /a", "cd ./missing\n[ -e nope ]\nrm -rf /a"},
		{"and-list", "[ -d sub ] && [ -e nope ] && rm -rf /a; [ -e nope ] || [ -d sub ] || rm -rf /b", "[ -d sub ]\n[ -e nope ]\n[ -e nope ]\n[ -d sub ]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(Parse(tt.script, testConfig(dir))); got != tt.want {
				t.Errorf("script %q\ngot:\n%s\nwant:\n%s", tt.script, got, tt.want)
			}
		})
	}
}

// The right side of || runs after the left side failed, and says so.
func TestAfterFailure(t *testing.T) {
	res := Parse("git stash || git reset --hard; a && b || c; d", testConfig(t.TempDir()))
	want := map[string][]int{"git stash": nil, "git reset --hard": {0}, "a": nil, "b": nil, "c": {3}, "d": nil}
	for _, c := range res.Commands {
		if got, w := c.AfterFailure, want[c.Line()]; len(got) != len(w) || len(w) > 0 && got[0] != w[0] {
			t.Errorf("%s: AfterFailure = %v, want %v", c.Line(), got, w)
		}
	}
}

// Tests whose outcome the shell may see otherwise keep both sides
// judged: each script's rm must be listed.
func TestUnknownTestsJudgeBoth(t *testing.T) {
	for _, script := range []string{
		"shopt -s nocasematch; [[ $X == abc ]] && rm -rf /a",
		"[[ 010 -eq 8 ]] && rm -rf /a",
		"[[ x -eq 0 ]] && rm -rf /a",
		"enable -n test; test -n \"$X\" && rm -rf /a",
		"read X; [ -z \"$X\" ] || rm -rf /a",
		"[ -z \"$BASH_VERSION\" ] || rm -rf /a",
		"[ -z \"$RANDOM\" ] || rm -rf /a",
		"[ -z \"$1\" ] || rm -rf /a",
		"[ -n \"$(echo)\" ] || rm -rf /a",
		"[ -n \"`echo`\" ] || rm -rf /a",
		"[ $((1)) -eq 1 ] || rm -rf /a",
		"[ -e nope ] & rm -rf /a",
		"[() { :; }; [ -n \"$X\" ] && rm -rf /a",
		"shopt -s expand_aliases\nalias test=true\ntest -n \"$X\" && rm -rf /a",
		"X=1 [ -z \"$X\" ] || rm -rf /a",
		"[ -e nope ] > nope && rm -rf /a",
		"touch nope; [ -e nope ] && rm -rf /a",
		"mv x nope; [ -e nope ] && rm -rf /a",
		"touch a.tmp; [ *.tmp = '*.tmp' ] || rm -rf /a",
		"[ -n \"$X\" -o -z \"$Y\" ] || rm -rf /a",
		// A redirection that fails makes the test false.
		"[ -n x ] < /nonexistent || rm -rf /a",
		"mkdir 1; [ -n x ] > 1 || rm -rf /a",
		"[ -n x ] 2>/nonexistent/x || rm -rf /a",
		// A binary operator in the middle decides three words.
		"[ \\( -ef \\) ] || rm -rf /a",
		"[ \\( -eq \\) ] || rm -rf /a",
		// Code that runs again or later, in another state.
		"X=; while true; do [ -n \"$X\" ] && rm -rf /a; X=1; done",
		"until false; do [ -n \"$X\" ] && rm -rf /a; X=1; done",
		"for i in 1 2; do [ -n \"$Y\" ] && rm -rf /a; Y=1; done",
		"while [ -z \"$X\" ] || rm -rf /a; do X=1; done",
		"trap '[ -n \"$X\" ] && rm -rf /a' EXIT; X=1",
		"export GIT_EDITOR='[ -n \"$X\" ] && rm -rf /a'; export X=1; git commit",
	} {
		cfg := testConfig(t.TempDir())
		k := testKnowledge{"trap": {Kind: CarryInterp, CodeOperand: true, Later: true, Translations: []Translation{{Pattern: regexp.MustCompile(`(?s)^(.+)$`), Shell: "$1"}}}}
		for name, c := range knowledge {
			k[name] = c
		}
		cfg.Knowledge = k
		res := Parse(script, cfg)
		found := false
		for _, c := range res.Commands {
			found = found || c.Line() == "rm -rf /a"
		}
		if !found {
			t.Errorf("%q: rm -rf /a not judged:\n%s", script, render(res))
		}
	}
	for _, dialect := range []Dialect{POSIX, Zsh} {
		cfg := testConfig(t.TempDir())
		cfg.Dialect = dialect
		if got := render(Parse(`[ "$X" == "" ] || rm -rf /a`, cfg)); !strings.Contains(got, "rm -rf /a") {
			t.Errorf("dialect %v: == in [ is an error there, the rm runs:\n%s", dialect, got)
		}
	}
}

// Every test the walker takes for known, bash decides the same way: each
// expression is run by the real bash in a directory holding the file f,
// and only the branch bash takes may be left unjudged.
func TestKnownTestsAgreeWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{
		`[ \( -ef \) ]`, `[ '(' '>' ')' ]`, `[ \( -eq \) ]`, `[ \( x \) ]`, `[ ! -a x ]`, `[ ! = x ]`,
		`[ -n ]`, `[ -z ]`, `[ ! ]`, `[ -n $NOPE ]`, `[ -z $NOPE ]`, `[ ! -n "" ]`, `[ ! a = b ]`,
		`[[ abc == "*"* ]]`, `[[ abc == \** ]]`, `[[ abc == @(abc|x) ]]`, `[[ abc != +(a|b|c) ]]`,
		`[[ abc == "a"* ]]`, `[[ abc == ab"c" ]]`, `[[ a.c == a'.'? ]]`, `[[ '*' == \* ]]`, `[[ 'a|b' == 'a|b' ]]`,
		`[[ é == ? ]]`, `[[ é == "é" ]]`, `X=é; [ ${#X} = 1 ]`, `X=é; [[ ${#X} == 1 ]]`,
		`[[ abc == a"[b]"c ]]`, `[[ a[b]c == a"[b]"c ]]`, `[[ -f f && ! -d f ]]`, `test -s f`, `[ -e nope ]`,
	} {
		script := "if " + expr + "; then rm -rf /t; else rm -rf /f; fi"
		got := render(Parse(script, testConfig(dir)))
		taken, fallen := strings.Contains(got, "rm -rf /t"), strings.Contains(got, "rm -rf /f")
		if taken && fallen {
			continue // unknown: both judged
		}
		cmd := exec.Command(bash, "-c", expr+" && echo true || echo false")
		cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "HOME=/home/dev"}
		out, _ := cmd.Output()
		if want := strings.TrimSpace(string(out)); (want == "true") != taken {
			t.Errorf("%s: bash says %s, the walker judged only:\n%s", expr, want, got)
		}
	}
}

// A file the sandbox shows otherwise (Config.Seen: hidden, also behind
// a link) is not tested on the judge's disk: both sides are judged.
func TestFileTestUnseen(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret")
	if err := os.MkdirAll(filepath.Join(secret, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"[ -d secret/d ] || rm -rf /a", "[ -e link/d ] || rm -rf /a", "[ -e link/nope ] && rm -rf /a"} {
		cfg := testConfig(dir)
		cfg.Seen = func(path string) bool { return !strings.HasPrefix(path, secret) }
		if got := render(Parse(script, cfg)); !strings.Contains(got, "rm -rf /a") {
			t.Errorf("%q: rm -rf /a not judged:\n%s", script, got)
		}
		cfg.Seen = nil
		if got := render(Parse(script, cfg)); strings.Contains(got, "rm -rf /a") {
			t.Errorf("%q unconfined: the test is known, rm -rf /a cannot run:\n%s", script, got)
		}
	}
}
