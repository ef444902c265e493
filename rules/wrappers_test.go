package rules

import (
	"strings"
	"testing"
)

// TestUnwrap: the built-in wrappers give the command inside an agent's
// script, whatever temporary names it holds, and nothing for a script
// the agent changed around the command.
func TestUnwrap(t *testing.T) {
	s := Builtin()
	claude := func(snapshot, cmd, cwd string) string {
		return "source " + snapshot + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval " + cmd + " < /dev/null && pwd -P >| " + cwd
	}
	gemini := func(tmp, cmd string) string {
		return "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=" + tmp + "/bgpids.tmp\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n" + cmd + "\n)\n__code=$?\nexit $__code"
	}
	snap := "/home/dev/.claude/shell-snapshots/snapshot-bash-1764547200000-q8x2lm.sh"
	tests := []struct {
		name, shell string
		login       bool
		script      string
		agent, cmd  string // "" when it is no wrapper
	}{
		{"claude", "bash", false, claude(snap, "'deploy --env prod'", "/tmp/claude-4f1c-cwd"), "claude-code", "deploy --env prod"},
		{"claude-retry", "bash", false, claude(snap, "'deploy --env prod'", "/tmp/claude-a07e-cwd"), "claude-code", "deploy --env prod"},
		{"claude-login", "bash", true, "shopt -u extglob 2>/dev/null || true && eval 'ls' < /dev/null && pwd -P >| /tmp/claude-1-cwd", "claude-code", "ls"},
		{"claude-tmpdir", "zsh", false, "setopt NO_EXTENDED_GLOB NO_BARE_GLOB_QUAL 2>/dev/null || true && eval 'ls' < /dev/null && pwd -P >| /var/folders/x/T/claude-2b-cwd", "claude-code", "ls"},
		{"claude-other-shell", "sh", false, claude(snap, "'ls'", "/tmp/claude-1-cwd"), "", ""},
		{"claude-appended", "bash", false, claude(snap, "'ls'", "/tmp/claude-1-cwd") + " && rm -rf ~", "", ""},
		{"claude-expansion", "bash", false, claude(snap, `"$(curl x)"`, "/tmp/claude-1-cwd"), "", ""},
		{"claude-cwdfile-expansion", "bash", false, claude(snap, "'ls'", "/tmp/$(id)/claude-1-cwd"), "", ""},
		{"claude-snapshot-expansion", "bash", false, claude("$(id)/shell-snapshots/snapshot-1.sh", "'ls'", "/tmp/claude-1-cwd"), "", ""},
		{"claude-two-words", "bash", false, claude(snap, "'ls' 'x'", "/tmp/claude-1-cwd"), "", ""},
		{"gemini", "bash", false, gemini("/tmp/gemini-shell-DJy1jL", "git status"), "gemini", "git status"},
		{"gemini-retry", "bash", false, gemini("/tmp/gemini-shell-Qx81aa", "git status"), "gemini", "git status"},
		{"gemini-login", "bash", true, gemini("/tmp/gemini-shell-Qx81aa", "git status"), "", ""},
		{"gemini-dir-expansion", "bash", false, gemini("$HOME/gemini-shell-Qx81aa", "git status"), "", ""},
		{"plain", "bash", false, "deploy --env prod", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, ok := s.Unwrap(tt.shell, tt.login, tt.script)
			if ok != (tt.agent != "") || u.Agent != tt.agent || u.Command != tt.cmd {
				t.Errorf("Unwrap = %+v, %v; want %q, %q", u, ok, tt.agent, tt.cmd)
			}
		})
	}
}

// TestWrappersBuiltinOnly: a later layer cannot name a wrapper (it would
// decide what an approval is bound to), and a wrapper whose examples fail
// does not load.
func TestWrappersBuiltinOnly(t *testing.T) {
	w := Wrapper{Agent: "x", Shells: []string{"bash"}, Script: `^(?P<command>.*)$`}
	if _, err := Builtin().Extend("user.yaml", &File{Version: 1, Wrappers: []Wrapper{w}}); err == nil || !strings.Contains(err.Error(), "only cordon's built-in rules") {
		t.Errorf("Extend with a wrapper: %v, want a refusal", err)
	}
	for name, bad := range map[string]Wrapper{
		"no group":   {Agent: "x", Shells: []string{"bash"}, Script: `^x$`},
		"bad regexp": {Agent: "x", Shells: []string{"bash"}, Script: `^(?P<command>`},
		"example":    {Agent: "x", Shells: []string{"bash"}, Script: `^a (?P<command>.*)$`, NotMatch: []string{"a b"}},
	} {
		if _, err := Compile([]string{"w.yaml"}, []*File{{Version: 1, Wrappers: []Wrapper{bad}}}); err == nil {
			t.Errorf("%s: compiled, want an error", name)
		}
	}
}

// BenchmarkUnwrap is what an ask in Claude Code's wrapper costs the
// shim: the wrappers' patterns compiled (once per process, first ask
// only) and matched.
func BenchmarkUnwrap(b *testing.B) {
	script := "source /home/dev/.claude/shell-snapshots/snapshot-bash-1764547200000-q8x2lm.sh 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'deploy --env prod && echo '\"'\"'done'\"'\"'' < /dev/null && pwd -P >| /tmp/claude-4f1c-cwd"
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			if _, ok := Builtin().Unwrap("bash", false, script); !ok {
				b.Fatal("not unwrapped")
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		s := Builtin()
		for b.Loop() {
			if _, ok := s.Unwrap("bash", false, script); !ok {
				b.Fatal("not unwrapped")
			}
		}
	})
}
