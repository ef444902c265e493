package decide

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/rules"
)

// ubuntuSnapshot is the shell snapshot Claude Code writes for a user
// with Ubuntu's default ~/.bashrc and a function of their own, and
// sources before every command.
const ubuntuSnapshot = `# Snapshot file
# Unset all aliases to avoid conflicts with functions
unalias -a 2>/dev/null || true
# Functions
eval "$(echo 'bWtjZCAoKSAKeyAKICAgIG1rZGlyIC1wICIkMSIgJiYgY2QgIiQxIgp9Cg==' | base64 -d)" > /dev/null 2>&1
gco () 
{ 
    git checkout "$@"
}
# Shell Options
shopt -u autocd
shopt -s checkwinsize
shopt -s expand_aliases
shopt -u extglob
shopt -s histappend
# Aliases
alias -- egrep='egrep --color=auto'
alias -- fgrep='fgrep --color=auto'
alias -- grep='grep --color=auto'
alias -- l='ls -CF'
alias -- la='ls -A'
alias -- ll='ls -alF'
alias -- ls='ls --color=auto'
alias -- sudo='sudo '
alias -- wipe='rm -rf ~/'
# Check for rg availability
if ! command -v rg >/dev/null 2>&1; then
  alias rg='/usr/lib/node_modules/@anthropic-ai/claude-code/vendor/ripgrep/x64-linux/rg'
fi
export PATH=$HOME/.local/bin:/usr/local/bin:/usr/bin:/bin
`

// TestClaudeSnapshotAliases judges commands the way Claude Code sends
// them, through a snapshot that re-creates Ubuntu's aliases: everyday
// ls and grep are allowed (they were refused, the alias ls='ls
// --color=auto' expanded until the depth limit), and what is dangerous
// is still refused, through an alias too.
func TestClaudeSnapshotAliases(t *testing.T) {
	s := buildScenario(t)
	snap := filepath.Join(s.Home, ".claude", "shell-snapshots", "snapshot-bash-1764547200000-q8x2lm.sh")
	if err := os.WriteFile(snap, []byte(ubuntuSnapshot), 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(cmd string) []string {
		return []string{"bash", "-c", "source " + snap + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" + cmd + "' < /dev/null && pwd -P >| " + s.Tmp + "/claude-8d2e-cwd"}
	}
	for _, tt := range []struct {
		cmd   string
		allow bool
	}{
		{"ls", true},
		{"ls -la src", true},
		{"ll", true},
		{"la docs && l", true},
		{"grep -rn TODO src", true},
		{"ls | grep main", true},
		{"egrep -n func src/main.go", true},
		{"gco -b topic", true},
		{"rm -rf ~", false},
		{"ll && rm -rf ~", false},
		{"wipe", false},
		{"sudo ls /root", false},
		{"git reset --hard", false},
	} {
		j, err := Check(line(tt.cmd), s.WS, s.env)
		if err != nil {
			t.Fatalf("%q: %v", tt.cmd, err)
		}
		if got := j.Verdict == rules.Allow; got != tt.allow {
			t.Errorf("%q through the snapshot: %v %v, want allowed %v", tt.cmd, j.Verdict, j.Reasons, tt.allow)
		}
	}
}
