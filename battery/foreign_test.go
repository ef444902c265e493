//go:build linux

package battery

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestForeignSandbox: a shell run inside another agent's sandbox (Codex
// runs its commands under bwrap with no_new_privs, a seccomp filter, no
// capabilities, / read-only and the workspace and /tmp writable) is
// still judged and confined, and cordon says once what it loses there,
// and with each refusal; inside cordon's own sandbox, in another
// workspace, it says nothing of the kind. The sandbox is told apart by
// testing it, never by a variable.
func TestForeignSandbox(t *testing.T) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal("bwrap is not installed")
		}
		t.Skip("bwrap is not installed")
	}
	e := newDecideEnv(t, "auto", "")
	os.MkdirAll(filepath.Join(e.home, ".ssh"), 0o700)
	mustWrite(t, filepath.Join(e.home, ".ssh", "id_ed25519"), "not a key\n", 0o600)
	tmp := t.TempDir()
	// codex runs the shim as Codex's sandbox would: bwrap with the
	// workspace and the temporary directory writable, all else
	// read-only, and what it always adds.
	codex := func(script string) (string, string, int) {
		args := []string{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			"--bind", e.ws, e.ws, "--bind", tmp, tmp, "--unshare-user", "--unshare-pid", "--unshare-net",
			"--cap-drop", "ALL", "--die-with-parent", "--chdir", e.ws, "--", e.shim, "-c", script}
		c := &exec.Cmd{Path: bwrap, Args: args, Env: append(append([]string{}, e.env...), "TMPDIR="+tmp)}
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		c.Run()
		if strings.Contains(errb.String(), "bwrap: ") {
			t.Skipf("no nested sandbox here: %s", errb.String())
		}
		return out.String(), errb.String(), c.ProcessState.ExitCode()
	}
	os.MkdirAll(filepath.Join(e.state), 0o700) // as after an earlier run
	out, stderr, code := codex("echo hello")
	if code != 0 || out != "hello\n" || !strings.Contains(stderr, "runs inside another sandbox than cordon's") ||
		!strings.Contains(stderr, "an ask gets no id for cordon approve") || !strings.Contains(stderr, "codex --sandbox danger-full-access") {
		t.Fatalf("first command: exit %d, stdout %q, stderr:\n%s", code, out, stderr)
	}
	if out, stderr, code := codex("echo again"); code != 0 || out != "again\n" || stderr != "" {
		t.Errorf("second command: exit %d, stdout %q, stderr %q: the notice is said once", code, out, stderr)
	}
	_, stderr, code = codex("deploy --env prod")
	if code != 126 || !strings.Contains(stderr, "deploys to production") || !strings.Contains(stderr, "can neither record this ask for cordon approve nor log it") {
		t.Errorf("an ask: exit %d, stderr:\n%s", code, stderr)
	}
	if e.deployed(t) != 0 {
		t.Error("the ask ran")
	}

	// Inside cordon's own sandbox, a nested shell in another workspace
	// (scratch) holds another policy: it is not another sandbox.
	other := filepath.Join(t.TempDir(), "scratch")
	os.MkdirAll(other, 0o755)
	stderr, code = e.sh(t, "cd "+other+" && bash -c 'echo nested'", "TMPDIR="+t.TempDir())
	if code != 0 || strings.Contains(stderr, "another sandbox") {
		t.Errorf("nested in cordon's sandbox: exit %d, stderr:\n%s", code, stderr)
	}
}
