//go:build linux

package battery

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An approval is bound to the command the agent's model wrote, found in
// the agent's known wrapper (rules/builtin/70-agents.yaml), not to the
// wrapper's temporary names: the agent's retry, in a wrapper of its own,
// is the command a person approved. Everything else the agent could
// change around that command gets a key of its own.

// geminiWrap is the script Gemini CLI gives bash for cmd, with the
// temporary directory it made for the run.
func geminiWrap(tmp, cmd string) string {
	return "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=" + tmp + "/bgpids.tmp\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n" +
		cmd + "\n)\n__code=$?\nexit $__code"
}

// codexWrap is the script Codex runs for cmd once its shell snapshot
// (snap) is made: a prologue that saves and puts back its variables
// around sourcing the snapshot, its codex-path directory (bin) first on
// PATH, then exec bash -c 'CMD'. Shortened: Codex 0.171 saves 7 of its
// own variables and 49 proxy ones.
func codexWrap(snap, bin, cmd string) string {
	block := func(p, i, name string) string {
		o := "__CODEX_SNAPSHOT_" + p + "OVERRIDE_"
		return "if [ -n \"${" + o + "SET_" + i + "}\" ]; then\n" +
			"  if [ -z \"${" + name + "+x}\" ] || [ \"${" + name + "-}\" != \"${" + o + i + "}\" ]; then export " + name + "=\"${" + o + i + "}\"; else export " + name + "; fi\n" +
			"else builtin unset " + name + " 2>/dev/null || command unset " + name + "; fi\n" +
			"builtin unset " + o + "SET_" + i + " " + o + i + " 2>/dev/null || command unset " + o + "SET_" + i + " " + o + i + "\n"
	}
	return "__CODEX_SNAPSHOT_OVERRIDE_SET_0=\"${CODEX_THREAD_ID+x}\"\n__CODEX_SNAPSHOT_OVERRIDE_0=\"${CODEX_THREAD_ID-}\"\n" +
		"__CODEX_SNAPSHOT_PROXY_OVERRIDE_SET_0=\"${HTTPS_PROXY+x}\"\n__CODEX_SNAPSHOT_PROXY_OVERRIDE_0=\"${HTTPS_PROXY-}\"\n" +
		"__CODEX_SNAPSHOT_PROXY_ENV_SET=\"${CODEX_NETWORK_PROXY_ACTIVE+x}\"\n\n" +
		"if . '" + snap + "' >/dev/null 2>&1; then :; fi\n\n" +
		block("", "0", "CODEX_THREAD_ID") +
		"if [ -n \"$__CODEX_SNAPSHOT_PROXY_ENV_SET\" ] || [ -n \"${CODEX_NETWORK_PROXY_ACTIVE+x}\" ]; then\n" +
		block("PROXY_", "0", "HTTPS_PROXY") + "fi\n" +
		"if [ -n \"${PATH:-}\" ]; then export PATH='" + bin + "':\"$PATH\"; else export PATH='" + bin + "'; fi\n\n" +
		"exec '/bin/bash' -c " + shellQuote(cmd)
}

// TestAgentRetryApproval runs on both Linux backends.
func TestAgentRetryApproval(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) { testAgentRetryApproval(t, backend) })
	}
}

func testAgentRetryApproval(t *testing.T, backend string) {
	e := newDecideEnv(t, backend, "")
	snap := filepath.Join(e.home, ".claude", "shell-snapshots", "snapshot-bash-1764547200000-q8x2lm.sh")
	os.MkdirAll(filepath.Dir(snap), 0o755)
	mustWrite(t, snap, strings.Replace(ubuntuAliases, "export PATH=", "# PATH=", 1), 0o644)
	tmp := t.TempDir()
	const cmd = "deploy --env prod"
	tty, _ := openPTY(t)
	// shell runs the shim as an agent does: argv, in dir.
	shell := func(dir string, argv ...string) (string, int) {
		c := &exec.Cmd{Path: e.shim, Args: argv, Dir: dir, Env: e.env}
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
	n := 0
	claude := func(cmd string) []string {
		n++
		return []string{"bash", "-c", claudeWrap(snap, cmd, filepath.Join(tmp, "claude-"+strings.Repeat("a", n)+"0f-cwd"))}
	}
	gemini := func(cmd string) []string {
		n++
		dir := filepath.Join(tmp, "gemini-shell-Ab"+strings.Repeat("c", n))
		os.MkdirAll(dir, 0o700)
		return []string{"bash", "-c", geminiWrap(dir, cmd)}
	}
	codex := func(cmd string) []string {
		n++
		snap := filepath.Join(e.home, ".codex", "shell_snapshots", fmt.Sprintf("01a242f5-79c1.%d.sh", n))
		os.MkdirAll(filepath.Dir(snap), 0o755)
		mustWrite(t, snap, "export CODEX_SNAPSHOT_TEST=1\n", 0o644)
		return []string{"bash", "-c", codexWrap(snap, filepath.Join(tmp, "vendor", "codex-path"), cmd)}
	}
	askID := func(argv []string) string {
		t.Helper()
		stderr, code := shell(e.ws, argv...)
		m := approveID.FindStringSubmatch(stderr)
		if code != 126 || m == nil {
			t.Fatalf("%q: exit %d, want 126 with an approval id\n%s", argv, code, stderr)
		}
		return m[1]
	}
	approve := func(id string) {
		t.Helper()
		if out, stderr, code := e.run(t, tty, "approve", id); code != 0 {
			t.Fatalf("cordon approve %s: exit %d\n%s%s", id, code, out, stderr)
		}
	}

	for _, agent := range []struct {
		name string
		wrap func(string) []string
	}{{"claude-code", claude}, {"gemini", gemini}, {"codex", codex}} {
		// Every retry names other temporary files: the same id.
		id := askID(agent.wrap(cmd))
		if again := askID(agent.wrap(cmd)); again != id {
			t.Fatalf("%s: the retry got id %s, the first try %s", agent.name, again, id)
		}
		out, _, _ := e.run(t, nil, "pending")
		if i := strings.Index(out, id); i < 0 || !strings.HasPrefix(out[i:], id+"  ") || !strings.Contains(out[i:], "\n  "+cmd+"\n") {
			t.Errorf("%s: cordon pending does not show %s as the command inside the wrapper:\n%s", agent.name, id, out)
		} else if next := out[i+strings.Index(out[i:], "\n")+1:]; !strings.HasPrefix(next, "  "+cmd+"\n") {
			t.Errorf("%s: cordon pending shows the wrapper, not the command:\n%s", agent.name, out)
		}
		approve(id)
		// What the agent could change around the command gets a key of
		// its own: refused, and the approval stays for the retry.
		for _, try := range []struct {
			name string
			dir  string
			argv []string
		}{
			{"appended", e.ws, agent.wrap(cmd + "; deploy --env prod")},
			{"another directory", filepath.Join(e.ws, "sub"), agent.wrap(cmd)},
			{"an argument after the script", e.ws, append(agent.wrap(cmd), "x", "y")},
			{"a shell option", e.ws, append([]string{"bash", "-O", "extglob"}, agent.wrap(cmd)[1:]...)},
			{"around the wrapper", e.ws, []string{"bash", "-c", "deploy --env prod; " + agent.wrap(cmd)[2]}},
			{"sh", e.ws, append([]string{"sh"}, agent.wrap(cmd)[1:]...)},
		} {
			os.MkdirAll(try.dir, 0o755)
			if stderr, code := shell(try.dir, try.argv...); code != 126 || e.deployed(t) != 0 {
				t.Fatalf("%s, %s: exit %d, deployed %d; want refused\n%s", agent.name, try.name, code, e.deployed(t), stderr)
			}
		}
		if stderr, code := shell(e.ws, agent.wrap(cmd)...); code != 0 || e.deployed(t) != 1 {
			t.Fatalf("%s: the retry of the approved command: exit %d, deployed %d\n%s", agent.name, code, e.deployed(t), stderr)
		}
		if stderr, code := shell(e.ws, agent.wrap(cmd)...); code != 126 || e.deployed(t) != 1 {
			t.Fatalf("%s: approved once, ran again: exit %d\n%s", agent.name, code, stderr)
		}
		os.Remove(filepath.Join(e.ws, "deployed.txt"))
	}

	// One agent's approval is not another's, though the command is.
	approve(askID(claude(cmd)))
	if stderr, code := shell(e.ws, gemini(cmd)...); code != 126 || e.deployed(t) != 0 {
		t.Fatalf("Gemini took Claude Code's approval: exit %d\n%s", code, stderr)
	}
	// A cwd file outside what the sandbox writes is a refused piece of
	// its own: not the approved command.
	outside := []string{"bash", "-c", claudeWrap(snap, cmd, filepath.Join(e.home, "claude-1f-cwd"))}
	if stderr, code := shell(e.ws, outside...); code != 126 || e.deployed(t) != 0 {
		t.Fatalf("a cwd file outside the workspace took the approval: exit %d\n%s", code, stderr)
	}
	if stderr, code := shell(e.ws, claude(cmd)...); code != 0 || e.deployed(t) != 1 {
		t.Fatalf("Claude Code's retry: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := e.run(t, tty, "approve", "--always-here", askID(claude(cmd))); code == 0 || !strings.Contains(stderr, "claude-code wraps each command") {
		t.Errorf("--always-here of a wrapped command: exit %d, %s", code, stderr)
	}
}

// TestHookAskHasNextStep: when Claude Code shows no dialog (claude -p),
// the hook's ask is the refusal the model and the person see; it names
// an id, and approving that id lets the agent's retry, hook and then
// Claude Code's wrapper, run. In bypass-permissions mode, the dialog Claude Code
// shows for a hook's ask does keep the person's yes.
func TestHookAskHasNextStep(t *testing.T) {
	e := newDecideEnv(t, "auto", "")
	snap := filepath.Join(e.home, ".claude", "shell-snapshots", "snapshot-bash-1764547200000-q8x2lm.sh")
	os.MkdirAll(filepath.Dir(snap), 0o755)
	mustWrite(t, snap, strings.Replace(ubuntuAliases, "export PATH=", "# PATH=", 1), 0o644)
	const cmd, session = "deploy --env prod", "4c1e-session"
	hook := func(input []byte) (string, int) {
		c := &exec.Cmd{Path: e.cordon, Args: []string{"cordon", "hook", "claude-code"}, Dir: e.ws, Env: e.env, Stdin: bytes.NewReader(input)}
		out, _ := c.Output()
		return string(out), c.ProcessState.ExitCode()
	}
	claude := func(cwdFile string) (string, int) {
		return e.sh(t, claudeWrap(snap, cmd, filepath.Join(t.TempDir(), cwdFile)), "CLAUDE_CODE_SESSION_ID="+session)
	}
	out, code := hook(hookJSON(t, "PreToolUse", session, "bypassPermissions", e.ws, cmd))
	m := approveID.FindStringSubmatch(out)
	if code != 0 || m == nil || !strings.Contains(out, "claude -p") {
		t.Fatalf("PreToolUse's ask names no id and no next step: exit %d, %s", code, out)
	}
	stderr, code := claude("claude-51-cwd")
	if code != 126 || !strings.Contains(stderr, "cordon approve "+m[1]) {
		t.Fatalf("the shim's refusal of the same command has another id than the hook's %s: exit %d\n%s", m[1], code, stderr)
	}
	tty, _ := openPTY(t)
	if out, stderr, code := e.run(t, tty, "approve", m[1]); code != 0 {
		t.Fatalf("cordon approve %s: exit %d\n%s%s", m[1], code, out, stderr)
	}
	// Claude Code runs the hook again before its retry: the approved
	// command goes on to the shim, which takes the approval (the hook
	// asked again, with the same id, and the retry never ran).
	if out, code := hook(hookJSON(t, "PreToolUse", session, "bypassPermissions", e.ws, cmd)); code != 0 || out != "" {
		t.Fatalf("PreToolUse of the approved retry: exit %d, %q; want no opinion", code, out)
	}
	if stderr, code := claude("claude-52-cwd"); code != 0 || e.deployed(t) != 1 {
		t.Fatalf("the retry after cordon approve: exit %d, deployed %d\n%s", code, e.deployed(t), stderr)
	}
	if out, _ := hook(hookJSON(t, "PreToolUse", session, "bypassPermissions", e.ws, cmd)); !strings.Contains(out, `"permissionDecision":"ask"`) {
		t.Fatalf("PreToolUse after the approval for once was taken: %q; want an ask", out)
	}

	// bypassPermissions: PermissionRequest fires because the dialog is
	// shown; the yes reaches the shim once.
	if out, code := hook(hookJSON(t, "PermissionRequest", session, "bypassPermissions", e.ws, cmd)); code != 0 || out != "" {
		t.Fatalf("PermissionRequest in bypassPermissions: exit %d, %q", code, out)
	}
	if stderr, code := claude("claude-53-cwd"); code != 0 || e.deployed(t) != 2 {
		t.Fatalf("after the dialog's yes in bypassPermissions: exit %d, deployed %d\n%s", code, e.deployed(t), stderr)
	}
	out, _, _ = e.run(t, nil, "pending")
	if strings.Contains(out, m[1]) {
		t.Errorf("the ask the dialog answered is still pending:\n%s", out)
	}
	if stderr, code := claude("claude-54-cwd"); code != 126 || e.deployed(t) != 2 {
		t.Fatalf("the dialog's approval ran twice: exit %d\n%s", code, stderr)
	}
}

// TestGeminiTmpdirOutsideScratch: Gemini CLI's wrapper writes its list of
// background jobs to $TMPDIR/gemini-shell-*/bgpids.tmp after every
// command. With TMPDIR outside /tmp the sandbox makes it writable, and
// the judge must agree: it asked about every command (a write outside
// the workspace), seen with the real agent (scripts/e2e).
func TestGeminiTmpdirOutsideScratch(t *testing.T) {
	e := newDecideEnv(t, "auto", "")
	tmpdir, err := os.MkdirTemp(testBase, "agent-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmpdir) })
	dir := filepath.Join(tmpdir, "gemini-shell-Ab1cD2")
	os.MkdirAll(dir, 0o700)
	stderr, code := e.sh(t, geminiWrap(dir, "echo hi"), "TMPDIR="+tmpdir)
	if code != 0 {
		t.Fatalf("Gemini's wrapper with TMPDIR=%s: exit %d\n%s", tmpdir, code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bgpids.tmp")); err != nil {
		t.Errorf("the wrapper's job list was not written: %v", err)
	}
	// TMPDIR naming the home makes nothing there writable.
	stderr, code = e.sh(t, "echo x >> ~/.bashrc", "TMPDIR="+e.home)
	if code == 0 {
		t.Errorf("TMPDIR=$HOME let a command write ~/.bashrc:\n%s", stderr)
	}
}
