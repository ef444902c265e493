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

	"github.com/cordonsh/cordon/snapshot"
)

// shim runs script through the cordon shim as bash -c, in the battery's
// workspace, and returns its output and exit status.
func (b *battery) shim(script string, extraEnv ...string) (string, int) {
	b.t.Helper()
	cmd := exec.Command(linkShim(b.t, "bash"), "-c", script)
	cmd.Args[0] = "bash"
	cmd.Dir, cmd.Env = b.ws, append(append([]string{}, b.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run()
	b.noSandbox(out.String())
	return out.String(), cmd.ProcessState.ExitCode()
}

// TestJudgeSaysFirst: what the judge allows the sandbox lets through, and
// what the sandbox would stop the judge refuses first, with the reason.
// Each refusal is checked against the sandbox alone (cordon run), which
// must indeed fail: a refusal of something that would work is a false
// refusal, not a fix.
func TestJudgeSaysFirst(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.settings("")
			bare := filepath.Join(b.base, "outside", "bare.git")
			b.host(git + " init -q --bare " + bare + " && git remote add origin " + bare + " && git init -q --bare inner.git && git remote add inner ./inner.git && git remote add gh git@github.com:cordonsh/cordon.git")

			// A push to a repository the sandbox keeps read-only.
			out, code := b.shim("git push -q origin HEAD:refs/heads/main")
			if code != 126 || !strings.Contains(out, "push-read-only") || !strings.Contains(out, bare) {
				t.Errorf("git push to %s: want a refusal naming it (exit %d):\n%s", bare, code, out)
			}
			if out, code := b.run("on", "git push -q origin HEAD:refs/heads/main"); code == 0 {
				t.Errorf("the sandbox let git push write %s, which the judge refuses:\n%s", bare, out)
			}
			// Fetching from it reads only: allowed, and it works.
			b.host("cd " + bare + " && git --git-dir=. fetch -q " + b.ws + " HEAD:refs/heads/main")
			if out, code := b.shim("git fetch -q origin && git log --oneline origin/main | wc -l"); code != 0 || strings.TrimSpace(out) != "1" {
				t.Errorf("git fetch from %s (exit %d):\n%s", bare, code, out)
			}
			// Pushing to a repository in the workspace works.
			if out, code := b.shim("git push -q inner HEAD:refs/heads/main && git --git-dir=inner.git log --oneline main | wc -l"); code != 0 || strings.TrimSpace(out) != "1" {
				t.Errorf("git push into the workspace (exit %d):\n%s", code, out)
			}
			// The person's own bare repository directly in the workspace
			// stays theirs after the round (the push changed its
			// objects/: once taken for a command's, moved aside).
			snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(b.ws)
			if out := b.host("git --git-dir=inner.git log --oneline main | wc -l"); strings.TrimSpace(out) != "1" {
				t.Errorf("inner.git after the push's round: %s", out)
			}
			// Over SSH: the keys and the agent are hidden.
			if out, code := b.shim("git fetch gh"); code != 126 || !strings.Contains(out, "over SSH") {
				t.Errorf("git fetch over SSH: want a refusal with why (exit %d):\n%s", code, out)
			}

			// A program directory: refused with why, and the sandbox
			// would indeed stop it.
			out, code = b.shim("mkdir -p ~/go/bin && echo x > ~/go/bin/tool")
			if code != 126 || !strings.Contains(out, "where programs are installed") {
				t.Errorf("writing ~/go/bin: want a refusal with why (exit %d):\n%s", code, out)
			}
			b.mustFail("writing ~/go/bin in the sandbox", "mkdir -p ~/go/bin && echo x > ~/go/bin/tool")
			b.absent(filepath.Join(b.home, "go", "bin"))

			// go install into the workspace works for a brand-new user:
			// the build and module caches are made on the way.
			goBin, err := exec.LookPath("go")
			if err != nil {
				return
			}
			goroot := strings.TrimSpace(b.host(goBin + " env GOROOT"))
			// A build cache in scratch space, kept between runs: a fresh
			// one builds the runtime (half a minute).
			gocache := filepath.Join(os.TempDir(), fmt.Sprintf("cordon-test-gocache-%d", os.Geteuid()))
			b.host("mkdir -p hello && printf 'package main\\nfunc main() { println(\"hello\") }\\n' > hello/main.go && printf 'module hello\\ngo 1.21\\n' > hello/go.mod")
			out, code = b.shim("cd hello && go install .", "GOROOT="+goroot, "GOCACHE="+gocache)
			if code != 126 || !strings.Contains(out, "write-program-dir") {
				t.Errorf("go install to ~/go/bin: want a refusal with why (exit %d):\n%s", code, out)
			}
			out, code = b.shim("cd hello && GOBIN=$PWD/bin go install . && ./bin/hello 2>&1", "GOROOT="+goroot, "GOCACHE="+gocache)
			if code != 0 || out != "hello\n" {
				t.Errorf("GOBIN=$PWD/bin go install (exit %d):\n%s", code, out)
			}
		})
	}
}

// TestNewProjectStarts: an agent starts a project from nothing in an empty
// directory where the person keeps projects (~/src/app): git init, files
// written, and the next command goes on there after the directory is no
// longer empty. A plain directory elsewhere is refused first, saying how
// to make it a workspace, and nothing is written.
func TestNewProjectStarts(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.settings("")
			app := filepath.Join(b.home, "src", "app")
			os.MkdirAll(app, 0o755)
			b.ws = app
			if out, code := b.shim("echo '{\"name\": \"app\"}' > package.json && mkdir src && echo ok"); code != 0 || !strings.Contains(out, "ok") {
				t.Fatalf("the first command in the new project: exit %d:\n%s", code, out)
			}
			if out, code := b.shim("echo 'x' > src/index.js && git init -q && git add -A && echo ok"); code != 0 || !strings.Contains(out, "ok") {
				t.Fatalf("the next command: exit %d:\n%s", code, out)
			}
			for _, name := range []string{"package.json", "src/index.js", ".git/HEAD"} {
				if _, err := os.Stat(filepath.Join(app, name)); err != nil {
					t.Errorf("%s was not made: %v", name, err)
				}
			}
			docs := filepath.Join(b.home, "Documents")
			os.MkdirAll(docs, 0o755)
			b.ws = docs
			out, code := b.shim("echo x > notes.txt")
			if code != 126 || !strings.Contains(out, "git init") || !strings.Contains(out, "workspaces:") {
				t.Errorf("a write in a plain directory: want a refusal saying how (exit %d):\n%s", code, out)
			}
			if _, err := os.Stat(filepath.Join(docs, "notes.txt")); err == nil {
				t.Error("notes.txt was written")
			}
		})
	}
}
