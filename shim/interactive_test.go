//go:build unix

package shim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/termhook"
)

// BenchmarkTerminalJudge is the judge's work for one line of a terminal
// (the audit log included), without the hook's round trip.
func BenchmarkTerminalJudge(b *testing.B) {
	base := b.TempDir()
	ws := filepath.Join(base, "ws")
	os.MkdirAll(ws, 0o755)
	env := []string{"HOME=" + base, "PATH=/usr/bin:/bin", "XDG_STATE_HOME=" + filepath.Join(base, "state"), "XDG_CONFIG_HOME=" + filepath.Join(base, "cfg")}
	ctx, err := decide.NewContext(ws, env, nil)
	if err != nil {
		b.Fatal(err)
	}
	inv, _ := invocation.Decode([]string{"bash"}, true)
	r := &run{name: "bash", env: env, ctx: ctx}
	s := &piped{r: r, inv: inv, dir: ws, rules: invocation.BuiltinRules}
	b.ReportAllocs()
	for b.Loop() {
		if a := s.line(termhook.Line{Seq: "1", Cwd: ws, Text: "true"}, 10); a.Verdict != termhook.Run {
			b.Fatal(a)
		}
	}
}

// TestTerminalLineVerdicts: an incomplete command asks for more, a
// complete one is judged (with the directory the hook sent), a hook
// tamper and a line too large are refused.
func TestTerminalLineVerdicts(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.MkdirAll(filepath.Join(base, "home"), 0o755)
	env := []string{"HOME=" + filepath.Join(base, "home"), "PATH=/usr/bin:/bin", "XDG_STATE_HOME=" + filepath.Join(base, "state"), "XDG_CONFIG_HOME=" + filepath.Join(base, "cfg")}
	ctx, err := decide.NewContext(ws, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := invocation.Decode([]string{"bash"}, true)
	inv.Interactive = true // as the shim sets it for a terminal
	s := &piped{r: &run{name: "bash", env: env, ctx: ctx}, inv: inv, dir: ws, rules: invocation.BuiltinRules}
	for _, tt := range []struct {
		cwd, text, verdict, msg string
		large                   bool
	}{
		{ws, "echo hi", termhook.Run, "", false},
		{ws, "for i in 1 2; do", termhook.More, "", false},
		{ws, "for i in 1 2; do\necho $i\ndone", termhook.Run, "", false},
		{ws, "cat <<EOF\nx", termhook.More, "", false},
		{ws, "echo 'open", termhook.More, "", false},
		{ws, "rm -rf ~", termhook.Refuse, "rm would delete the home directory", false},
		{ws, "rm -rf ../home", termhook.Refuse, "the home directory", false},
		{filepath.Join(ws, "sub"), "rm -rf ../home", termhook.Run, "", false},
		{ws, "bind -r '\\C-m'", termhook.Refuse, "[rule terminal-hook]", false},
		{ws, "echo !!", termhook.Refuse, "history", false},
		{ws, "done", termhook.Refuse, "cannot parse", false},
		{ws, "", termhook.Refuse, "larger than", true},
	} {
		a := s.line(termhook.Line{Seq: "1", Cwd: tt.cwd, Text: tt.text, TooLarge: tt.large}, 10)
		if a.Verdict != tt.verdict || !strings.Contains(a.Message, tt.msg) {
			t.Errorf("%q in %s: %s %q, want %s %q", tt.text, tt.cwd, a.Verdict, a.Message, tt.verdict, tt.msg)
		}
	}
}
