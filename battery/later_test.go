//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionScratchRepositoryLater: a later command of a session makes
// its policy without looking for the repositories in scratch space (the
// session's key leaves them out: docs/session.md). A person's repository
// made in scratch space ($TMPDIR) after the session began is still guarded in every
// sandbox made from then on: the session's next sandbox, once the first
// has ended, and a sandbox of a command's own (resource limits take a
// command out of the session), both made from such a policy. So a
// command there can plant no hook and no key that runs a program.
func TestSessionScratchRepositoryLater(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		// Scratch space of this test's own ($TMPDIR): a repository
		// in /tmp is guarded by every cordon run on the machine, and
		// another's could put back what this one's let through.
		tmpdir := filepath.Join(b.base, "tmp")
		if err := os.Mkdir(tmpdir, 0o700); err != nil {
			t.Fatal(err)
		}
		b.env = append(b.env, "TMPDIR="+tmpdir)
		b.settings("")
		if out, code := b.run("off", "echo first"); code != 0 || !strings.Contains(out, "first") {
			t.Fatalf("first command: exit %d\n%s", code, out)
		}
		repo, err := os.MkdirTemp(tmpdir, "cordon-later-repo-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(repo)
		b.host("git init -q " + repo + " && git -C " + repo + " commit -q --allow-empty -m one")
		marker := filepath.Join(b.base, "pwned")
		hook := filepath.Join(repo, ".git/hooks/pre-commit")
		plant := func(where string) {
			t.Helper()
			out, _ := b.run("off", "printf '#!/bin/sh\\ntouch "+marker+"\\n' > "+hook+"; chmod +x "+hook+"; git -C "+repo+" config core.fsmonitor 'touch "+marker+"'; echo done")
			if !strings.Contains(out, "done") {
				t.Fatalf("%s: the command did not run:\n%s", where, out)
			}
			b.host("git -C " + repo + " status >/dev/null 2>&1; git -C " + repo + " commit -q --allow-empty -m two; true")
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s: the person's git in %s ran what a command planted:\n%s", where, repo, out)
			}
			if _, err := os.Stat(hook); err == nil {
				t.Fatalf("%s: a hook was planted in %s:\n%s", where, repo, out)
			}
		}
		stopSessions(t, b.home)
		plant("the session's next sandbox")
		b.settings("  limits: {open_files: 512}\n")
		plant("a sandbox of its own")
	})
}

// TestSessionScratchRepositoryInSession: a person's repository made in
// scratch space while a session's sandbox runs (a clone in $TMPDIR, after
// the session's first command) has its configuration guarded in that
// same sandbox too: a key that runs a program, set by the next command,
// is undone when it ends, and the person's git there runs none of it.
// (Its hooks are not bound read-only in a sandbox already running:
// docs/security.md, "Open".)
func TestSessionScratchRepositoryInSession(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			tmpdir := filepath.Join(r.base, "tmp")
			if err := os.Mkdir(tmpdir, 0o700); err != nil {
				t.Fatal(err)
			}
			r.env = append(r.env, "TMPDIR="+tmpdir)
			r.battery.env = append(r.battery.env, "TMPDIR="+tmpdir)
			if out, errs, code := r.sh("echo first"); code != 0 || out != "first\n" {
				t.Fatalf("first command: exit %d, %q, %s", code, out, errs)
			}
			repo := filepath.Join(tmpdir, "clone")
			r.host("git init -q " + repo + " && git -C " + repo + " commit -q --allow-empty -m one")
			marker := filepath.Join(r.base, "pwned")
			plant := "git -C " + repo + " config core.fsmonitor 'touch " + marker + "'; git -C " + repo + " config alias.st '!touch " + marker + "'; echo done"
			out, errs, _ := r.sh(plant)
			if !strings.Contains(out, "done") {
				t.Fatalf("the command did not run:\n%s\n%s", out, errs)
			}
			r.host("git -C " + repo + " status >/dev/null 2>&1; git -C " + repo + " st 2>/dev/null; true")
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the person's git in %s ran what a command of the running session planted:\n%s\n%s", repo, out, errs)
			}
		})
	}
}

// TestNestedShellScratchRepositoryLater: a shell a command starts
// (npm's sh -c, make's) runs in the command's sandbox, though a
// repository appeared in scratch space since that sandbox started (an
// agent's clone, another test's): its hooks are not read-only in that
// sandbox, and a new sandbox cannot be made inside it. Before, the
// nested shell took itself for unconfined and refused to run (the
// replay's npm exec failed so under a loaded CI).
func TestNestedShellScratchRepositoryLater(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			tmpdir := filepath.Join(b.base, "tmp")
			if err := os.Mkdir(tmpdir, 0o700); err != nil {
				t.Fatal(err)
			}
			b.env = append(b.env, "TMPDIR="+tmpdir)
			b.settings("")
			go0 := filepath.Join(b.ws, "go")
			repo := filepath.Join(tmpdir, "clone")
			done := make(chan struct{})
			go func() {
				defer close(done)
				for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(go0); err == nil {
						break
					}
				}
				exec.Command("git", "init", "-q", repo).Run()
				os.WriteFile(go0+"2", nil, 0o644)
			}()
			out, code := b.run("off", "touch go; while [ ! -e go2 ]; do sleep 0.05; done; sh -c 'echo nested'")
			<-done
			if code != 0 || !strings.Contains(out, "nested") {
				t.Errorf("the nested shell did not run (exit %d):\n%s", code, out)
			}
		})
	}
}

// TestSessionPutBackBesideAnother: a command that plants an auto-run file
// (.envrc) while another command of its session still runs has it put
// back before its shim returns, and says so, though the session keeps
// its guard ticket for the other command (the shim reconciles once the
// manager has dealt with the command's end, not beside it). The writer
// is a script written before: the judge reads a file's content only
// when the same command wrote it.
func TestSessionPutBackBesideAnother(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		if err := os.WriteFile(filepath.Join(r.ws, "writer.py"), []byte("open('.envrc', 'w').write('touch pwned\\n')\nprint('planted')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		long := exec.Command(r.shim, "-c", "touch started; sleep 6")
		long.Args[0] = "bash"
		long.Dir, long.Env = r.ws, r.env
		if err := long.Start(); err != nil {
			t.Fatal(err)
		}
		ended := make(chan struct{})
		go func() { long.Wait(); close(ended) }()
		defer func() { <-ended }()
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(r.ws, "started")); err == nil {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("the long command never started")
			}
		}
		out, errs, code := r.sh(python + " writer.py")
		select {
		case <-ended:
			t.Skip("the long command ended before the writer: the machine is too slow for this test")
		default:
		}
		if out != "planted\n" || code != 0 {
			t.Fatalf("the writer: exit %d, %q, %s", code, out, errs)
		}
		if _, err := os.Stat(filepath.Join(r.ws, ".envrc")); err == nil {
			t.Errorf(".envrc planted beside another command of the session is on the host after its shim returned")
		}
		if !strings.Contains(errs, ".envrc") {
			t.Errorf("the command does not say what was put back: %q", errs)
		}
	})
}

// TestSessionLaterPlantedSaid: a later command of a session that plants
// an auto-run file (.envrc) with nothing else of the session running has
// it put back by the manager's release before its shim returns, and its
// shim says so (the manager's answer spares the shim its own reconcile
// only when there is nothing to say); the next command, which changes
// nothing, says nothing.
func TestSessionLaterPlantedSaid(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		if err := os.WriteFile(filepath.Join(r.ws, "writer.py"), []byte("open('.envrc', 'w').write('touch pwned\\n')\nprint('planted')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := r.sh("true"); code != 0 {
			t.Fatalf("the first command: exit %d, %s", code, errs)
		}
		out, errs, code := r.sh(python + " writer.py")
		if out != "planted\n" || code != 0 {
			t.Fatalf("the writer: exit %d, %q, %s", code, out, errs)
		}
		if _, err := os.Stat(filepath.Join(r.ws, ".envrc")); err == nil {
			t.Errorf(".envrc planted by a later command is on the host after its shim returned")
		}
		if !strings.Contains(errs, ".envrc") {
			t.Errorf("the later command does not say what was put back: %q", errs)
		}
		if _, errs, _ := r.sh("true"); strings.Contains(errs, ".envrc") {
			t.Errorf("the next command says it again: %q", errs)
		}
	})
}
