//go:build linux

package battery

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The approval from an agent's own dialog (cordon hook claude-code), end
// to end: the hook asks, Claude Code's PermissionRequest keeps the
// approval, and the shim, given the command wrapped as Claude Code wraps
// it, runs it once; every other way to use or make that approval fails.

// claudeWrap is the script Claude Code gives its shell for cmd, with the
// shell snapshot snap and the file it reads the directory back from.
func claudeWrap(snap, cmd, cwdFile string) string {
	return "source " + snap + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" +
		strings.ReplaceAll(cmd, "'", `'"'"'`) + "' < /dev/null && pwd -P >| " + cwdFile
}

// hookJSON is Claude Code's hook input for the Bash tool (from its hooks
// reference): the common fields, then the tool's.
func hookJSON(t *testing.T, event, session, mode, cwd, command string) []byte {
	t.Helper()
	data, err := json.Marshal(map[string]any{
		"session_id": session, "transcript_path": "/home/dev/.claude/projects/app/" + session + ".jsonl",
		"cwd": cwd, "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
		"tool_input":  map[string]any{"command": command, "description": "Deploy to production"},
		"tool_use_id": "toolu_01ABC123",
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDialogApproval runs on both Linux backends: what keeps a
// sandboxed command from taking or making an approval is the sandbox.
func TestDialogApproval(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) { testDialogApproval(t, backend) })
	}
}

func testDialogApproval(t *testing.T, backend string) {
	e := newDecideEnv(t, backend, "")
	snap := filepath.Join(e.home, ".claude", "shell-snapshots", "snapshot-bash-1764547200000-q8x2lm.sh")
	os.MkdirAll(filepath.Dir(snap), 0o755)
	// Ubuntu's aliases, without the snapshot's PATH (deploy is on the
	// test's).
	mustWrite(t, snap, strings.Replace(ubuntuAliases, "export PATH=", "# PATH=", 1), 0o644)
	cwdFile := filepath.Join(t.TempDir(), "claude-4f1c-cwd")
	sub := filepath.Join(e.ws, "sub")
	os.MkdirAll(sub, 0o755)
	const cmd, session = "deploy --env prod", "9b2f6a40-session"
	granted := filepath.Join(e.state, "approvals", "granted")

	// hook runs cordon hook claude-code as Claude Code does: the JSON on
	// stdin, outside any sandbox.
	hook := func(input []byte) (string, string, int) {
		c := &exec.Cmd{Path: e.cordon, Args: []string{"cordon", "hook", "claude-code"}, Dir: e.ws, Env: e.env, Stdin: bytes.NewReader(input)}
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		c.Run()
		return out.String(), errb.String(), c.ProcessState.ExitCode()
	}
	// claude runs the shim as Claude Code's Bash tool does, in dir, with
	// the session's variable (none when session is "").
	claude := func(dir, session, cmd string) (string, int) {
		env := append([]string{}, e.env...)
		if session != "" {
			env = append(env, "CLAUDE_CODE_SESSION_ID="+session)
		}
		c := &exec.Cmd{Path: e.shim, Args: []string{"bash", "-c", claudeWrap(snap, cmd, cwdFile)}, Dir: dir, Env: env}
		var errb bytes.Buffer
		c.Stderr = &errb
		c.Run()
		if strings.Contains(errb.String(), "no sandbox (") {
			if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
				t.Fatalf("no sandbox:\n%s", errb.String())
			}
			t.Skipf("no sandbox:\n%s", errb.String())
		}
		return errb.String(), c.ProcessState.ExitCode()
	}
	deployed := func() int {
		n := e.deployed(t)
		if data, err := os.ReadFile(filepath.Join(sub, "deployed.txt")); err == nil {
			n += strings.Count(string(data), "\n")
		}
		return n
	}
	grants := func() int {
		names, _ := filepath.Glob(filepath.Join(granted, "*.json"))
		return len(names)
	}

	// PreToolUse: the ask is an ask with cordon's reason; nothing kept.
	out, stderr, code := hook(hookJSON(t, "PreToolUse", session, "default", e.ws, cmd))
	if code != 0 || !strings.Contains(out, `"permissionDecision":"ask"`) || !strings.Contains(out, "deploys to production") {
		t.Fatalf("PreToolUse: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if grants() != 0 {
		t.Fatal("PreToolUse kept an approval before any dialog was shown")
	}
	// Without the dialog (Claude Code ran it anyway), the shim refuses.
	if stderr, code := claude(e.ws, session, cmd); code != 126 || deployed() != 0 {
		t.Fatalf("with no dialog shown: exit %d, deployed %d\n%s", code, deployed(), stderr)
	}

	// The dialog is not put to a person in dontAsk: nothing kept.
	if _, stderr, code := hook(hookJSON(t, "PermissionRequest", session, "dontAsk", e.ws, cmd)); code == 0 || grants() != 0 {
		t.Fatalf("PermissionRequest in dontAsk: exit %d, %d approvals kept\n%s", code, grants(), stderr)
	}
	// The dialog is shown: the approval is kept, and the hook says nothing.
	if out, stderr, code := hook(hookJSON(t, "PermissionRequest", session, "default", e.ws, cmd)); code != 0 || out != "" || grants() != 1 {
		t.Fatalf("PermissionRequest: exit %d, stdout %q, %d approvals\n%s", code, out, grants(), stderr)
	}
	if out, stderr, code := hook(hookJSON(t, "PreToolUse", session, "default", e.ws, "${CLAUDE_CODE_SESSION_ID:+deploy} --env prod")); code != 0 || out != "" {
		t.Fatalf("PreToolUse of the disguised command: exit %d, stdout %q, stderr %q; want no opinion", code, out, stderr)
	}
	// Used for anything else, it is refused and stays.
	for _, try := range []struct{ name, dir, session, cmd string }{
		{"another session", e.ws, "other-session", cmd},
		{"no session", e.ws, "", cmd},
		{"another directory", sub, session, cmd},
		{"another command", e.ws, session, "deploy --env prod --force"},
		{"the command twice", e.ws, session, cmd + "; " + cmd},
		// The same refused piece, in a command the hook judges with
		// its own environment (no session variable) as no question:
		// Claude Code may run it without cordon's dialog.
		{"another text, the same piece", e.ws, session, "${CLAUDE_CODE_SESSION_ID:+deploy} --env prod"},
	} {
		if stderr, code := claude(try.dir, try.session, try.cmd); code != 126 || deployed() != 0 {
			t.Fatalf("%s: exit %d, deployed %d; want refused\n%s", try.name, code, deployed(), stderr)
		}
	}
	// A command running in the sandbox (a job an earlier command left
	// behind) cannot take it: the approvals are read-only there.
	mustWrite(t, filepath.Join(e.ws, "job.txt"), claudeWrap(snap, cmd, cwdFile), 0o644)
	mustWrite(t, filepath.Join(e.base, "bin", "runner"), "#!/bin/sh\nexec bash -c \"$(cat \"$1\")\"\n", 0o755)
	if stderr, code := claude(e.ws, session, "runner job.txt"); code == 0 || deployed() != 0 || grants() != 1 {
		t.Fatalf("from the sandbox: exit %d, deployed %d, %d approvals\n%s", code, deployed(), grants(), stderr)
	}
	// Claude Code runs the command the person approved: it runs, once.
	if stderr, code := claude(e.ws, session, cmd); code != 0 || deployed() != 1 {
		t.Fatalf("the approved command: exit %d, deployed %d\n%s", code, deployed(), stderr)
	}
	if stderr, code := claude(e.ws, session, cmd); code != 126 || deployed() != 1 {
		t.Fatalf("replayed: exit %d, deployed %d\n%s", code, deployed(), stderr)
	}
	out, _, _ = e.run(t, nil, "log", "--json")
	if !strings.Contains(out, `"approval":"dialog-`) {
		t.Errorf("the log does not say the dialog approved it:\n%s", out)
	}

	// The agent cannot give itself an approval: its hook, run from the
	// sandbox by a program the judge does not look into, keeps nothing,
	// and cannot write where approvals are kept.
	mustWrite(t, filepath.Join(e.ws, "req.json"), string(hookJSON(t, "PermissionRequest", session, "default", e.ws, cmd)), 0o644)
	mustWrite(t, filepath.Join(e.base, "bin", "selfapprove"), "#!/bin/sh\ncordon hook claude-code < req.json; echo hook=$?\nmkdir -p \"$1\" && touch \"$1/forged.json\" && echo wrote\n", 0o755)
	c := &exec.Cmd{Path: e.shim, Args: []string{"bash", "-c", claudeWrap(snap, "selfapprove "+granted, cwdFile)}, Dir: e.ws, Env: append(append([]string{}, e.env...), "CLAUDE_CODE_SESSION_ID="+session)}
	got, _ := c.CombinedOutput()
	if !strings.Contains(string(got), "hook=1") || strings.Contains(string(got), "wrote") || grants() != 0 {
		t.Fatalf("the hook from inside the sandbox: %d approvals kept\n%s", grants(), got)
	}
	if stderr, code := claude(e.ws, session, cmd); code != 126 || deployed() != 1 {
		t.Fatalf("after the agent's own hook: exit %d, deployed %d\n%s", code, deployed(), stderr)
	}
}
