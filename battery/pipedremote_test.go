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
	"time"
)

// TestGitPushBesideRunning: a remote that a command adds while it runs
// is the command's for a command started meanwhile too (a piped shell,
// bash -c, or cordon run), sessions on or off: the new command's policy must not
// take it for the person's, so git there gets no credential for it, even
// through a script the judge cannot read (found by an attacker: the
// policy was made from a ledger that learns a command's remotes only at
// its end; a piped shell, and any command without sessions, did not
// reconcile first).
func TestGitPushBesideRunning(t *testing.T) {
	atOnce(t, []string{"session-on/piped", "session-on/command", "session-on/run", "session-off/piped", "session-off/command", "session-off/run"}, func(t *testing.T, name string) {
		session, how, _ := strings.Cut(strings.TrimPrefix(name, "session-"), "/")
		r := newSessionRig(t, "bwrap", "  session: "+session+"\n")
		port, seen, bare, _, _ := gitPushSetup(t, r.battery)
		r.env = append(r.env, "SSL_CERT_FILE="+filepath.Join(r.base, "certs", "test-ca.pem"))
		drop := filepath.Join(filepath.Dir(bare), "drop.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", drop).CombinedOutput(); err != nil {
			t.Fatalf("git init --bare: %v %s", err, out)
		}
		r.host("git -c user.name=p -c user.email=p@p commit -q --allow-empty -m mine && cp /bin/sh xsh")
		os.WriteFile(filepath.Join(r.ws, ".q"), []byte("git push -q x HEAD:refs/heads/stolen 2>&1; echo \"push exit $?\"\n"), 0o644)
		// The command that adds the remote runs on.
		running := exec.Command(r.shim, "-c", fmt.Sprintf("sleep 1; git remote add x https://127.0.0.1:%d/drop.git && touch added; sleep 6", port))
		running.Args[0] = "bash"
		running.Dir, running.Env = r.ws, r.env
		if err := running.Start(); err != nil {
			t.Fatal(err)
		}
		defer running.Wait()
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(r.ws, "added")); err == nil {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("the running command did not add its remote")
			}
		}
		before := len(seen())
		// (In a script the judge cannot read: the broker alone decides.)
		cmd := exec.Command(r.shim, "-c", "./xsh < .q")
		cmd.Args[0] = "bash"
		switch how {
		case "piped":
			cmd = exec.Command(r.shim)
			cmd.Args[0] = "bash"
			cmd.Stdin = strings.NewReader("./xsh < .q\n")
		case "run":
			cmd = exec.Command(r.cordon, "run", "--backend", "bwrap", "--network", "allowlist", "--workspace", r.ws, "--", r.bash, "-c", "./xsh < .q")
		}
		cmd.Dir, cmd.Env = r.ws, r.env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run()
		r.noSandbox(out.String())
		if strings.Contains(out.String(), "push exit 0") {
			t.Errorf("a push to the remote a running command added worked:\n%s", out.String())
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("the command's remote got %s", got)
		}
		for _, s := range seen()[before:] {
			if s == "person:"+realGitPass {
				t.Errorf("the person's credential went to the command's remote: %q", seen()[before:])
				break
			}
		}
	})
}
