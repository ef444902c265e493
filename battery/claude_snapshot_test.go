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

// ubuntuAliases is what Claude Code's shell snapshot holds for a user
// with Ubuntu's default ~/.bashrc: it sources it before every command.
const ubuntuAliases = `# Snapshot file
# Unset all aliases to avoid conflicts with functions
unalias -a 2>/dev/null || true
# Functions
mkcd () 
{ 
    mkdir -p "$1" && cd "$1"
}
# Shell Options
shopt -u autocd
shopt -s checkwinsize
shopt -s expand_aliases
shopt -s histappend
# Aliases
alias -- egrep='egrep --color=auto'
alias -- grep='grep --color=auto'
alias -- l='ls -CF'
alias -- la='ls -A'
alias -- ll='ls -alF'
alias -- ls='ls --color=auto'
alias -- sudo='sudo '
export PATH=/usr/local/bin:/usr/bin:/bin
`

// TestClaudeSnapshotThroughShim runs Claude Code's command lines, through
// a snapshot of Ubuntu's aliases, through the shim in each sandbox and
// through bash itself: the same output and status (they were refused:
// ls='ls --color=auto' was expanded until the depth limit).
func TestClaudeSnapshotThroughShim(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			e := newHarness(t, backend)
			shimPath := linkShim(t, "bash")
			snap := filepath.Join(e.home, ".claude", "shell-snapshots", "snapshot-bash-1764547200000-q8x2lm.sh")
			os.MkdirAll(filepath.Dir(snap), 0o755)
			if err := os.WriteFile(snap, []byte(ubuntuAliases), 0o644); err != nil {
				t.Fatal(err)
			}
			for name, data := range map[string]string{"main.go": "package main\n// TODO: flags\n", "README.md": "# app\n", ".env.example": "X=1\n", "cmd/run.sh": "echo run\n"} {
				os.MkdirAll(filepath.Join(e.ws, filepath.Dir(name)), 0o755)
				os.WriteFile(filepath.Join(e.ws, name), []byte(data), 0o644)
			}
			cwdFile := filepath.Join(t.TempDir(), "claude-4f1c-cwd")
			for _, cmd := range []string{"ls", "l", "la cmd", "ll | wc -l", "grep -rn TODO .", "ls | grep -c md", "egrep -l app *.md", "mkcd build && pwd"} {
				argv := []string{"bash", "-c", "source " + snap + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" + cmd + "' < /dev/null && pwd -P >| " + cwdFile}
				run := func(path string) (string, string, int) {
					c := &exec.Cmd{Path: path, Args: argv, Dir: e.ws, Env: e.env}
					var stdout, stderr bytes.Buffer
					c.Stdout, c.Stderr = &stdout, &stderr
					c.Run()
					return stdout.String(), stderr.String(), c.ProcessState.ExitCode()
				}
				wantOut, _, wantCode := run(realShell("bash"))
				os.RemoveAll(filepath.Join(e.ws, "build"))
				out, errs, code := run(shimPath)
				os.RemoveAll(filepath.Join(e.ws, "build"))
				if strings.Contains(errs, "no sandbox (") {
					if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
						t.Fatalf("the %s sandbox cannot run here:\n%s", backend, errs)
					}
					t.Skipf("the %s sandbox cannot run here:\n%s", backend, errs)
				}
				if out != wantOut || code != wantCode || errs != "" {
					t.Errorf("%q through the shim: exit %d, stdout %q, stderr %q; bash: exit %d, stdout %q", cmd, code, out, errs, wantCode, wantOut)
				}
			}
		})
	}
}
