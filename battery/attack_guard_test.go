//go:build linux

package battery

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The auto-run attack suite: each test plants, from inside the sandbox,
// a file that a host tool would later run or obey (git's commondir and
// hooks, direnv's .envrc, Claude Code's settings, cordon's own project
// rules), in one of the ways that defeated an end-of-command cleanup, and
// fails if the planted file is still there once the command is over. It
// runs on both backends, as root and (scripts/test.sh) as an ordinary
// user. It only looks at the host's files, never at how the guard works.

// start starts script in the sandbox through `cordon run`, in its own
// process group as an agent would, and returns once the script printed
// its first line.
func (b *battery) start(script string) (*exec.Cmd, *bytes.Buffer) {
	b.t.Helper()
	cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "off", "--workspace", b.ws, "--", b.bash, "-c", script)
	cmd.Dir, cmd.Env = b.ws, b.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		b.noSandbox(stderr.String())
		b.t.Fatalf("the command ended before its first line: %v\n%s", err, stderr.String())
	}
	_ = line
	return cmd, &stderr
}

// gone waits up to five seconds for every path to be absent, and fails
// the test for each one that is still there.
func (b *battery) gone(paths ...string) {
	b.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		for _, p := range paths {
			if _, err := os.Lstat(p); err == nil {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				data, _ := os.ReadFile(p)
				b.t.Errorf("planted %s survived the command: %q", p, data)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// noneLeft fails the test if a process whose command line holds marker
// is still alive five seconds after the command.
func noneLeft(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := countOwn(func(data []byte) bool { return bytes.Contains(data, []byte(marker)) })
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d processes of the killed command (%s) still run", n, marker)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func uniqueMarker() string {
	// (The count tells apart markers made at once: eachBackend.)
	return fmt.Sprintf("%d.%04d%03d", 4000+os.Getpid()%1000, time.Now().UnixNano()%10000, markers.Add(1)%1000)
}

var markers atomic.Int64

func TestAttackCommondir(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			evil := filepath.Join(os.TempDir(), "cordon-attack-"+uniqueMarker())
			t.Cleanup(func() { os.RemoveAll(evil) })
			b.run("off", "mkdir -p "+evil+"/hooks && printf '[core]\\n\\trepositoryformatversion = 0\\n' > "+evil+"/config && echo "+evil+" > .git/commondir; true")
			b.gone(filepath.Join(b.ws, ".git/commondir"))
			if out := b.host("git status --porcelain"); strings.Contains(out, "fatal") {
				t.Errorf("git status on the host after the attack: %s", out)
			}
		})
	}
}

// Two commands at once: the second starts while the first has planted
// and is still running, and ends after it.
func TestAttackParallel(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		first, _ := b.start("echo x > .envrc; mkdir -p .vscode; echo '{}' > .vscode/tasks.json; echo planted; sleep 1")
		second, _ := b.start("echo started; sleep 2; echo y > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout 2>/dev/null; true")
		first.Wait()
		second.Wait()
		b.gone(filepath.Join(b.ws, ".envrc"), filepath.Join(b.ws, ".vscode/tasks.json"), filepath.Join(b.ws, ".git/hooks/post-checkout"))
	})
}

// The agent's timeout kills the shim with SIGKILL while a process of the
// command, double-forked into a session of its own, plants after the
// kill.
func TestAttackKilledShim(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		m := uniqueMarker()
		cmd, _ := b.start("echo x > .envrc; (setsid bash -c 'sleep " + m + "; true' &); " +
			"(setsid bash -c 'sleep 0.7; mkdir -p .claude; echo {\"hooks\":1} > .claude/settings.json; sleep " + m + "' &); echo ready; sleep " + m)
		time.Sleep(200 * time.Millisecond)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		time.Sleep(1200 * time.Millisecond) // past the late plant, had it lived
		noneLeft(t, "sleep\x00"+m)
		b.gone(filepath.Join(b.ws, ".envrc"), filepath.Join(b.ws, ".claude/settings.json"))
	})
}

// The shell stops itself (or its tree is stopped), then the shim is
// killed: nothing may hang, nothing planted may stay.
func TestAttackStoppedThenKilled(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			m := uniqueMarker()
			cmd, _ := b.start("echo x > .envrc; echo ready; sleep " + m + " & kill -STOP $$; wait")
			time.Sleep(300 * time.Millisecond)
			cmd.Process.Kill()
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the killed shim did not end")
			}
			noneLeft(t, "sleep\x00"+m)
			b.gone(filepath.Join(b.ws, ".envrc"))
		})
	}
}

// Existing guarded files changed in place (on Landlock as an ordinary
// user no mount keeps them read-only) are put back.
func TestAttackChangedInPlace(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			config, err := os.ReadFile(filepath.Join(b.ws, ".git/config"))
			if err != nil {
				t.Fatal(err)
			}
			b.run("off", "printf '[core]\\n\\tfsmonitor = /tmp/x\\n' >> .git/config; printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; true")
			b.unchanged(filepath.Join(b.ws, ".git/config"), string(config))
			b.gone(filepath.Join(b.ws, ".git/hooks/pre-commit"))
		})
	}
}

// A guarded place reached through a symbolic link the command made.
func TestAttackSymlinkedParent(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.run("off", `mkdir cfg && printf '{"hooks":{}}' > cfg/settings.json && ln -s cfg .claude; `+
				`mkdir -p /tmp/`+filepath.Base(b.base)+`-hooks && ln -s /tmp/`+filepath.Base(b.base)+`-hooks .cursor; true`)
			if fi, err := os.Lstat(filepath.Join(b.ws, ".claude")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				t.Errorf(".claude is still a link made by the command")
			}
			if fi, err := os.Lstat(filepath.Join(b.ws, ".cursor")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				t.Errorf(".cursor is still a link made by the command")
			}
			b.gone(filepath.Join(b.ws, ".claude/settings.json"))
		})
	}
}

// A broken project rule file planted by a command does not lock the
// workspace: the next command runs.
func TestAttackBrokenProjectRules(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.run("off", "mkdir -p .cordon && printf 'policies: [[[\\n' > .cordon/x.yaml; true")
			b.gone(filepath.Join(b.ws, ".cordon/x.yaml"))
			if out, code := b.run("off", "echo still-works"); code != 0 || !strings.Contains(out, "still-works") {
				t.Errorf("the next command after a planted rule file: exit %d: %s", code, out)
			}
		})
	}
}
