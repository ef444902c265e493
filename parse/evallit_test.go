package parse

import (
	"slices"
	"testing"
)

func TestEvalLiterals(t *testing.T) {
	for _, c := range []struct {
		script string
		want   []string
	}{
		{`source /s 2>/dev/null || true && eval 'deploy --env prod' < /dev/null && pwd -P >| /tmp/c`, []string{"deploy --env prod"}},
		{`eval 'echo '"'"'a b'"'"''`, []string{"echo 'a b'"}},
		{`eval 'echo '\''x'\'`, []string{"echo 'x'"}},
		{`eval "rm \"\$x\" \\"`, []string{`rm "$x" \`}},
		{`eval "$cmd"`, nil},
		{`eval 'a' 'b'`, nil},
		{`eval $'a\nb'`, nil},
		{`eval 'a'$(b)`, nil},
		{`deploy --env prod`, nil},
		{`eval 'unclosed`, nil},
	} {
		if got := EvalLiterals(c.script, Bash); !slices.Equal(got, c.want) {
			t.Errorf("EvalLiterals(%q) = %q, want %q", c.script, got, c.want)
		}
	}
}

// BenchmarkEvalLiterals is what the shim adds to an ask when an approval
// from an agent's dialog is kept: Claude Code's wrapper parsed once more.
func BenchmarkEvalLiterals(b *testing.B) {
	const script = `source /home/dev/.claude/shell-snapshots/snapshot-bash-1764547200000-q8x2lm.sh 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'deploy --env prod && echo '"'"'done'"'"'' < /dev/null && pwd -P >| /tmp/claude-4f1c-cwd`
	for b.Loop() {
		if len(EvalLiterals(script, Bash)) != 1 {
			b.Fatal("no eval found")
		}
	}
}
