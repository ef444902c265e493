package decide

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/rules"
)

// outlineEnv is a workspace, a home holding the project's Codex snapshot
// and a state directory outside what sandboxed commands can write (in
// the user's real home, as cordon's is).
func outlineEnv(t *testing.T) (dir string, env []string, snap, state string) {
	t.Helper()
	root := t.TempDir()
	dir, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	real, _ := os.UserHomeDir()
	state, err := os.MkdirTemp(real, ".cordon-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	snap = filepath.Join(home, ".codex", "shell_snapshots", "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b.sh")
	for _, d := range []string{dir, filepath.Dir(snap)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_STATE_HOME=" + state}, snap, state
}

func outlineCount(state string) int {
	entries, _ := os.ReadDir(filepath.Join(state, "cordon", "outlines"))
	return len(entries)
}

func judgeArgv(t *testing.T, argv []string, dir string, env []string) *rules.Judgement {
	t.Helper()
	invocation.BuiltinRules()
	inv, err := invocation.Decode(argv, false)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Judge(inv, dir, env)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestOutlineEditedSnapshot: a snapshot changed after its outline was
// kept (an alias, a function redefined, a variable that makes git or
// bash run code) is judged anew: the verdict and the reasons of a later
// judgement, from the edited snapshot's own outline, are those of its
// first, parsed whole; and they differ from the unedited snapshot's
// where the edit matters.
func TestOutlineEditedSnapshot(t *testing.T) {
	orig, err := os.ReadFile("../testdata/shell-snapshots/codex-bash.sh")
	if err != nil {
		t.Fatal(err)
	}
	base := string(orig)
	codex := func(snap, cmd string) []string {
		return []string{"bash", "-lc", codexWrapper(snap, "/h/.codex/tmp/arg0/codex-arg0Xq1w2e", cmd)}
	}
	claude := func(snap, cmd string) []string {
		return []string{"bash", "-c", "source " + snap + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" + cmd + "' < /dev/null && pwd -P >| /tmp/claude-9f3e-cwd"}
	}
	dequote := "dequote () \n{ \n    eval printf %s \"$1\" 2> /dev/null\n}\n"
	if !strings.Contains(base, dequote) {
		t.Fatal("the snapshot has no dequote function to edit")
	}
	for _, c := range []struct {
		name    string
		edit    func(s, home string) string
		argv    func(snap, cmd string) []string
		cmd     string
		changed bool // the edit changes the verdict
	}{
		{"unchanged", func(s, home string) string { return s }, codex, "echo hi", false},
		{"alias ls", func(s, home string) string {
			return strings.Replace(s, "alias ll='ls -alF'", "alias ls='rm -rf ~'", 1) + "shopt -s expand_aliases\n"
		}, claude, "ls", true},
		{"function redefined", func(s, home string) string {
			return strings.Replace(s, dequote, "dequote () \n{ \n    git push --force origin main\n}\n", 1)
		}, claude, "dequote x", true},
		{"one byte in a body", func(s, home string) string {
			return strings.Replace(s, dequote, "dequote () \n{ \n    eval printf %s \"$1\" 2> /dev/sda\n}\n", 1)
		}, claude, "dequote x", true},
		{"GIT_SSH_COMMAND", func(s, home string) string {
			return s + "declare -x GIT_SSH_COMMAND=\"sh -c 'rm -rf ~' #\"\n"
		}, codex, "git fetch", true},
		{"BASH_ENV", func(s, home string) string {
			return s + "declare -x BASH_ENV=\"" + filepath.Join(home, ".env.sh") + "\"\n"
		}, codex, "echo hi", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, env, snap, state := outlineEnv(t)
			home := strings.TrimPrefix(env[0], "HOME=")
			os.WriteFile(filepath.Join(home, ".env.sh"), []byte("rm -rf ~\n"), 0o644)
			if err := os.WriteFile(snap, []byte(base), 0o644); err != nil {
				t.Fatal(err)
			}
			before := judgeArgv(t, c.argv(snap, c.cmd), dir, env)
			if outlineCount(state) != 1 {
				t.Fatalf("no outline kept for the snapshot")
			}
			if err := os.WriteFile(snap, []byte(c.edit(base, home)), 0o644); err != nil {
				t.Fatal(err)
			}
			first := judgeArgv(t, c.argv(snap, c.cmd), dir, env)
			later := judgeArgv(t, c.argv(snap, c.cmd), dir, env)
			if c.name != "unchanged" && outlineCount(state) != 2 {
				t.Fatalf("no outline of its own kept for the edited snapshot")
			}
			if first.Verdict != later.Verdict || !reflect.DeepEqual(first.Reasons, later.Reasons) {
				t.Errorf("parsed whole: %s %v\nfrom its outline: %s %v", first.Verdict, first.Reasons, later.Verdict, later.Reasons)
			}
			if c.changed == (before.Verdict == later.Verdict && reflect.DeepEqual(before.Reasons, later.Reasons)) {
				t.Errorf("before the edit: %s %v\nafter: %s %v", before.Verdict, before.Reasons, later.Verdict, later.Reasons)
			}
		})
	}
}

// TestOutlineStateWritable: where sandboxed commands can write the state
// directory (a state directory inside the workspace), no outline is kept
// or read there.
func TestOutlineStateWritable(t *testing.T) {
	dir, env, snap, _ := outlineEnv(t)
	data, err := os.ReadFile("../testdata/shell-snapshots/codex-bash.sh")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(snap, data, 0o644)
	state := filepath.Join(dir, ".state")
	env[2] = "XDG_STATE_HOME=" + state
	judgeArgv(t, []string{"bash", "-lc", codexWrapper(snap, "/h/bin", "echo hi")}, dir, env)
	if n := outlineCount(state); n != 0 {
		t.Errorf("%d outlines kept in a state directory commands can write", n)
	}
}

// TestSourcedSnapshotRoots: the writable roots a later judgement of a
// sourced snapshot needs (is the snapshot installed software? can
// commands write the outlines' store?) are resolved once. Judged alone
// (cordon check), the snapshot, in a directory sandboxed commands can
// write, is answered by them without the walk up the processes for the
// agent's start; in the shim (Prepare set) they come from the policy it
// makes to confine the command, not from a resolution of their own
// first: for the wrappers, a large script run by bash, and one named by
// BASH_ENV, which no installed-software check comes before. The verdicts and reasons are
// those of a judgement that makes everything afresh.
func TestSourcedSnapshotRoots(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("outlines are kept on Linux")
	}
	dir, env, snap, state := outlineEnv(t)
	data, err := os.ReadFile("../testdata/shell-snapshots/codex-bash.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{snap, filepath.Join(dir, "snapshot.sh")} {
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// git's configuration read once, as a command before would have:
	// a file that needs the host's git to list (the machine's
	// /etc/gitconfig naming a credential helper) finds git outside the
	// writable roots the first time only.
	if ctx, err := NewContext(dir, env, nil); err == nil {
		ctx.Spec()
	}
	for _, argv := range [][]string{
		{"bash", "-lc", codexFullWrapper(snap, "/h/.codex/tmp/arg0/codex-arg0Xq1w2e", "echo hi")},
		{"bash", "-c", claudeWrapper(snap, "git status")},
		{"bash", "-c", "bash snapshot.sh"},
		{"bash", "-c", "BASH_ENV=snapshot.sh ./run"},
	} {
		fresh := judgeArgv(t, argv, dir, env) // keeps the outline
		if outlineCount(state) == 0 {
			t.Fatalf("%.40q: no outline kept", argv[2])
		}
		for _, prepare := range []bool{false, true} {
			inv, err := invocation.Decode(argv, false)
			if err != nil {
				t.Fatal(err)
			}
			ctx, err := NewContext(dir, env, nil)
			if err != nil {
				t.Fatal(err)
			}
			if prepare {
				ctx.Prepare = func() (*Confinement, error) { return nil, os.ErrInvalid }
			}
			// The agent started before the snapshot was written, as
			// Codex writes it at its start.
			asked := 0
			ctx.AgentSince = func() time.Time { asked++; return time.Now().Add(-time.Hour) }
			d := ctx.Decide(Request{Shell: "bash", Mode: inv.Mode.String(), Text: invocation.QuoteArgv(argv), Inv: inv, Query: true})
			if d.Error != "" {
				t.Fatalf("%.40q: %s", argv[2], d.Error)
			}
			if j := d.Judgement; j.Verdict != fresh.Verdict || !reflect.DeepEqual(j.Reasons, fresh.Reasons) {
				t.Errorf("%.40q (prepare %v): %s %v; judged afresh: %s %v", argv[2], prepare, j.Verdict, j.Reasons, fresh.Verdict, fresh.Reasons)
			}
			if !prepare && asked != 0 {
				t.Errorf("%.40q judged alone: the agent's start asked for %d times, for a snapshot in the writable roots", argv[2], asked)
			}
			if prepare && (ctx.roots != nil || ctx.policy == nil) {
				t.Errorf("%.40q in the shim: the writable roots resolved apart from the policy (%v), the policy made: %v", argv[2], ctx.roots != nil, ctx.policy != nil)
			}
		}
	}
}
