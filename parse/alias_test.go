package parse

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// aliasCases are scripts whose every command that runs in the end is
// echo (or a function that echoes): what they print is what the shell
// made of their aliases.
var aliasCases = []struct{ name, script, want string }{
	{"self", "alias echo='echo E'\necho x", "E x"},
	{"self-in-chain", "ls() { echo ls \"$@\"; }\nalias ls='ls --color=auto'\nalias ll='ls -alF'\nll /tmp\nls", "ls --color=auto -alF /tmp\nls --color=auto"},
	{"mutual", "alias a='b'\nalias b='echo B; a 2>/dev/null'\na", "B"},
	{"same-line", "alias e='echo E'; e x 2>/dev/null\ne y", "E y"},
	{"same-line-redefined", "alias e='echo 1'\nalias e='echo 2'; e\ne", "1\n2"},
	{"same-compound", "{ alias e='echo E'\ne x 2>/dev/null; }\ne y", "E y"},
	{"trailing-blank", "alias e='echo '\nalias z=Z\ne z e z", "Z e z"},
	{"trailing-blank-chain", "alias e='echo '\nalias w='W '\nalias z=Z\ne w z", "W Z"},
	{"trailing-blank-computed", "alias e='echo '\nalias z=Z\nv=z\ne $v", "z"},
	{"function-parsed-before", "g() { echo g; }\nf() { g; }\nalias g='echo G'\nf\ng", "g\nG"},
	{"function-parsed-after", "alias g='echo G'\nf() { g; }\nf", "G"},
	{"eval-parses-later", "alias e='echo E'; eval 'e x'", "E x"},
}

// echoed renders what the echo commands of res print, alias calls left
// out: a command followed by its alias's text.
func echoed(res *Result) string {
	var out []string
	cs := res.Commands
	for i, c := range cs {
		if c.Name() == "echo" && !aliasCall(cs, i) {
			out = append(out, joinWords(c.Args[1:]))
		}
	}
	return strings.Join(out, "\n")
}

// aliasCall reports whether command i of cs is an alias's name: the
// commands of its text follow it.
func aliasCall(cs []Command, i int) bool {
	c := cs[i]
	return i+1 < len(cs) && len(cs[i+1].Via) > len(c.Via) && cs[i+1].Via[len(c.Via)] == "alias "+c.Name()
}

// TestAliasesAsTheShell checks the walker's alias expansion against the
// shells themselves: an alias is not expanded in its own text, one
// defined on a line applies from the next line, a function body keeps
// the aliases of when it was parsed, a trailing blank expands the next
// word.
func TestAliasesAsTheShell(t *testing.T) {
	shells := []struct {
		name    string
		dialect Dialect
		prefix  string
	}{{"bash", Bash, "shopt -s expand_aliases\n"}, {"dash", POSIX, ""}, {"zsh", Zsh, ""}}
	for _, sh := range shells {
		for _, tt := range aliasCases {
			t.Run(sh.name+"/"+tt.name, func(t *testing.T) {
				cfg := testConfig(t.TempDir())
				cfg.Dialect = sh.dialect
				if got := echoed(Parse(sh.prefix+tt.script, cfg)); got != tt.want {
					t.Errorf("cordon: %q\ngot:\n%s\nwant:\n%s", tt.script, got, tt.want)
				}
				path, err := exec.LookPath(sh.name)
				if err != nil {
					t.Skipf("%s is not installed: only cordon's side is checked", sh.name)
				}
				// From a file: zsh parses a -c string whole, before
				// running any of it (the walker expands more there).
				file := filepath.Join(t.TempDir(), "script")
				if err := os.WriteFile(file, []byte(sh.prefix+tt.script), 0o644); err != nil {
					t.Fatal(err)
				}
				out, _ := exec.Command(path, file).Output()
				if got := strings.TrimSuffix(string(out), "\n"); got != tt.want {
					t.Errorf("%s itself: %q\ngot:\n%s\nwant:\n%s", sh.name, tt.script, got, tt.want)
				}
			})
		}
	}
}

// claudeSnapshot is a shell snapshot as Claude Code writes one from a
// stock Debian or Ubuntu ~/.bashrc, and sources before every command.
const claudeSnapshot = `# Snapshot file
# Unset all aliases to avoid conflicts with functions
unalias -a 2>/dev/null || true
# Functions
eval "$(echo 'bWtjZCAoKSAKeyAKICAgIG1rZGlyIC1wICIkMSIgJiYgY2QgIiQxIgp9Cg==' | base64 -d)" > /dev/null 2>&1
# Shell Options
shopt -u autocd
shopt -s checkwinsize
shopt -s expand_aliases
shopt -s extquote
shopt -u globstar
shopt -s histappend
# Aliases
alias -- alert='notify-send --urgency=low -i "$([ $? = 0 ] && echo terminal || echo error)" "$(history|tail -n1|sed -e '\''s/^\s*[0-9]\+\s*//;s/[;&|]\s*alert$//'\'')"'
alias -- egrep='egrep --color=auto'
alias -- fgrep='fgrep --color=auto'
alias -- grep='grep --color=auto'
alias -- l='ls -CF'
alias -- la='ls -A'
alias -- ll='ls -alF'
alias -- ls='ls --color=auto'
alias -- sudo='sudo '
# Check for rg availability
if ! command -v rg >/dev/null 2>&1; then
  alias rg='/opt/claude/vendor/ripgrep/x64-linux/rg'
fi
export PATH=/home/dev/.local/bin:/usr/local/bin:/usr/bin:/bin
`

// TestClaudeSnapshotAliases walks the command line Claude Code runs:
// the snapshot, then the model's command under eval. Every ls and grep
// is the program with the user's options, once, and no problem is found.
func TestClaudeSnapshotAliases(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "snapshot-bash-1764547200000-abc123.sh")
	if err := os.WriteFile(snap, []byte(claudeSnapshot), 0o644); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"ls":                     "ls --color=auto",
		"ll src":                 "ls --color=auto -alF src",
		"grep -rn TODO .":        "grep --color=auto -rn TODO .",
		"sudo ll /root":          "ls --color=auto -alF /root",
		"ls | grep x; la && l .": "ls --color=auto\ngrep --color=auto x\nls --color=auto -A\nls --color=auto -CF .",
	} {
		line := "source '" + snap + "' 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" + cmd + "' < /dev/null && pwd -P >| /tmp/claude-4f1c-cwd"
		res := Parse(line, testConfig(dir))
		if len(res.Problems) > 0 {
			t.Errorf("%q: problems %v", cmd, res.Problems)
		}
		var got []string
		cs := res.Commands
		for i, c := range cs {
			if (c.Name() == "ls" || c.Name() == "grep") && !aliasCall(cs, i) && slices.Contains(c.Via, "eval") {
				got = append(got, c.Line())
			}
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%q through the snapshot runs:\n%s\nwant:\n%s", cmd, strings.Join(got, "\n"), want)
		}
	}
}

// TestZshGlobalAliasIsUnknown: zsh expands alias -g anywhere (echo X
// runs the alias's text), which the walker does not follow: it says so.
func TestZshGlobalAliasIsUnknown(t *testing.T) {
	for _, script := range []string{"alias -g X='$(rm -rf ~)'\necho X", "alias -s txt='rm -rf'\nnotes.txt"} {
		cfg := testConfig(t.TempDir())
		cfg.Dialect = Zsh
		res := Parse(script, cfg)
		if len(res.Problems) == 0 || !res.Commands[0].UnknownCode {
			t.Errorf("%q: problems %v, unknown code %v; want both", script, res.Problems, res.Commands[0].UnknownCode)
		}
	}
}
