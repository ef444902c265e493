//go:build linux

package battery

import (
	"bytes"
	"github.com/cordonsh/cordon/snapshot"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

// A version manager's layout in a fresh home, as pyenv makes it: each
// shim is a bash script (found by `#!/usr/bin/env bash`, so by the cordon
// shim first on PATH inside the sandbox) that execs pyenv, itself a bash
// script that works out the version and execs the real program.
var pyenvFiles = map[string]string{
	".pyenv/shims/python3": `#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="${0##*/}"

export PYENV_ROOT="{{HOME}}/.pyenv"
exec "{{HOME}}/.pyenv/libexec/pyenv" exec "$program" "$@"
`,
	".pyenv/libexec/pyenv": `#!/usr/bin/env bash
set -e
[ "$1" = exec ] && shift
command="$1"
shift
version="$("$PYENV_ROOT/libexec/pyenv-version-name")"
for hook in "$PYENV_ROOT"/pyenv.d/exec/*.bash; do
  [ -e "$hook" ] && source "$hook"
done
exec "$PYENV_ROOT/versions/$version/bin/$command" "$@"
`,
	".pyenv/libexec/pyenv-version-name": `#!/usr/bin/env bash
read -r v < "$PYENV_ROOT/version" || v=system
echo "$v"
`,
	".pyenv/version": "3.12.4\n",
	".pyenv/versions/3.12.4/bin/python3": `#!/bin/sh
[ "$1" = --version ] && echo "Python 3.12.4 (pyenv)" && exit 0
echo "python3 $*"
`,
}

// nvmSetup stands for nvm.sh: functions, some calling themselves, that
// put a version's bin directory on PATH.
const nvmSetup = `nvm_ls() { [ "$1" = 0 ] && return; nvm_ls $(( $1 - 1 )); }
nvm_bin() { printf '%s\n' "$NVM_DIR/versions/node/v20.11.1/bin"; }
nvm() {
  case "$1" in
  use) nvm_ls 3; PATH="$(nvm_bin):$PATH"; hash -r; echo "Now using node v20.11.1" ;;
  *) echo "nvm: $1: unknown command" >&2; return 1 ;;
  esac
}
NVM_DIR="${NVM_DIR:-$HOME/.nvm}"
`

// pyenvHome writes the pyenv layout into home (outside every place the
// sandbox lets commands write) and returns the PATH an agent's shell has:
// cordon's shims first, then pyenv's.
func pyenvHome(t *testing.T, home, shimDir string) string {
	t.Helper()
	for name, data := range pyenvFiles {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(data, "{{HOME}}", home)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return shimDir + ":" + filepath.Join(home, ".pyenv", "shims") + ":" + os.Getenv("PATH")
}

// settleInstalled waits until files written so far lie before the start
// of an agent started next, past platform's margin and the precision its
// start is read to.
func settleInstalled() {
	time.Sleep(platform.InstalledMargin + platform.StartPrecision + 100*time.Millisecond)
}

// TestInstalledScriptsRunAsPrograms runs python3 through a pyenv shim,
// through the cordon shim, in the sandbox of each backend: the version
// manager's scripts are installed software (the agent cannot have written
// them), so the nested shim runs them like programs instead of refusing
// what it cannot follow inside them. The same script copied into the
// workspace, or reached by a link from outside into the workspace, is the
// agent's and is still judged.
func TestInstalledScriptsRunAsPrograms(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		e := newHarness(t, backend)
		shimPath := linkShim(t, "bash")
		agent := linkShim(t, "agent")
		path := pyenvHome(t, e.home, filepath.Dir(shimPath))
		env := append(e.env, "PATH="+path)
		// The user's other installed scripts: a wrapper, and a
		// version manager's setup (nvm.sh) and program.
		wrapper := filepath.Join(e.home, ".local", "bin", "with-pyenv")
		// One that runs its arguments below a process that is no
		// shell (timeout forks and waits), as make or python would.
		timed := filepath.Join(e.home, ".local", "bin", "with-timeout")
		nvm := filepath.Join(e.home, ".nvm", "nvm.sh")
		node := filepath.Join(e.home, ".nvm", "versions", "node", "v20.11.1", "bin", "node")
		for _, f := range []struct {
			path, text string
			mode       os.FileMode
		}{
			{wrapper, "#!/usr/bin/env bash\nexport PYENV_ROOT=\"$HOME/.pyenv\"\n\"$@\"\necho \"rc=$?\"\n", 0o755},
			{timed, "#!/usr/bin/env bash\ntimeout 60 \"$@\"\necho \"rc=$?\"\n", 0o755},
			{nvm, nvmSetup, 0o644},
			{node, "#!/bin/sh\necho v20.11.1\n", 0o755},
		} {
			os.MkdirAll(filepath.Dir(f.path), 0o755)
			if err := os.WriteFile(f.path, []byte(f.text), f.mode); err != nil {
				t.Fatal(err)
			}
		}
		// All of it was there before the agent started.
		settleInstalled()
		// A home has credentials, hidden in the sandbox (under
		// Landlock their names can still be listed): the nested shim
		// must still know it runs confined.
		os.MkdirAll(filepath.Join(e.home, ".aws"), 0o700)
		if err := os.WriteFile(filepath.Join(e.home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		run := func(cmd string) (string, string, int) {
			t.Helper()
			c := &exec.Cmd{Path: agent, Args: []string{"agent", shimPath, "bash", "-c", cmd}, Dir: e.ws, Env: env}
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			c.Run()
			if msg := stderr.String(); strings.Contains(msg, "no sandbox (") {
				if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
					t.Fatalf("the %s sandbox cannot run here:\n%s", backend, msg)
				}
				t.Skipf("the %s sandbox cannot run here:\n%s", backend, msg)
			}
			return stdout.String(), stderr.String(), c.ProcessState.ExitCode()
		}
		if out, errs, code := run("python3 --version"); code != 0 || out != "Python 3.12.4 (pyenv)\n" || errs != "" {
			t.Errorf("python3 --version through pyenv's shim: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if out, errs, code := run("bash ~/.pyenv/shims/python3 x.py"); code != 0 || out != "python3 x.py\n" {
			t.Errorf("bash ~/.pyenv/shims/python3 x.py: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		// The agent's copy of pyenv's own script is judged: what it
		// runs cannot be known, so it is refused. An installed wrapper
		// that runs it (seen from outside as a program with
		// arguments) does not change that: the nested shim refuses
		// it inside the sandbox. Nor does a link from outside (which
		// the user made: the agent cannot) to the copy.
		pyenv := filepath.Join(e.home, ".pyenv", "libexec", "pyenv")
		if out, errs, code := run("PYENV_ROOT=~/.pyenv bash " + pyenv + " exec python3 --version"); code != 0 || out != "Python 3.12.4 (pyenv)\n" {
			t.Errorf("bash pyenv exec: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		data, err := os.ReadFile(pyenv)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.ws, "pyenv"), data, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, errs, code := run("./pyenv exec python3 --version"); code != 126 || !strings.Contains(errs, "cordon: refused") {
			t.Errorf("./pyenv in the workspace: exit %d, stdout %q, stderr %q; want refused", code, out, errs)
		}
		if out, errs, code := run(wrapper + " ./pyenv exec python3 --version"); code != 0 || out != "rc=126\n" || !strings.Contains(errs, "cordon: refused") {
			t.Errorf("the workspace's copy run by an installed wrapper: exit %d, stdout %q, stderr %q; want refused inside", code, out, errs)
		}
		bin := filepath.Join(e.home, "bin")
		os.MkdirAll(bin, 0o755)
		if err := os.Symlink(filepath.Join(e.ws, "pyenv"), filepath.Join(bin, "pyenv")); err != nil {
			t.Fatal(err)
		}
		if out, errs, code := run(wrapper + " ~/bin/pyenv exec python3 --version"); code != 0 || out != "rc=126\n" || !strings.Contains(errs, "cordon: refused") {
			t.Errorf("a link from outside into the workspace: exit %d, stdout %q, stderr %q; want refused inside", code, out, errs)
		}
		if out, errs, code := run(wrapper + " python3 --version"); code != 0 || out != "Python 3.12.4 (pyenv)\nrc=0\n" {
			t.Errorf("the wrapper around pyenv's shim: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if out, errs, code := run(timed + " python3 --version"); code != 0 || out != "Python 3.12.4 (pyenv)\nrc=0\n" {
			t.Errorf("pyenv's shim below timeout: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		// The same inside the sandbox: the shim there gets the agent's
		// start from the cordon outside (bwrap's file, a Landlock
		// session's manager), not one of long before (the machine's
		// start, by which nvm.sh would be the agent's).
		nested := timed + " bash -c 'source ~/.nvm/nvm.sh && nvm use 20 && node --version'"
		for _, warm := range []bool{false, true} {
			args := []string{"agent", shimPath, "bash", "-c", nested}
			if warm {
				args = slices.Insert(args, 1, "-warm")
			}
			c := &exec.Cmd{Path: agent, Args: args, Dir: e.ws, Env: env}
			var stderr bytes.Buffer
			c.Stderr = &stderr
			out, err := c.Output()
			if string(out) != "Now using node v20.11.1\nv20.11.1\nrc=0\n" {
				t.Errorf("nvm.sh sourced inside the sandbox (a later command: %v): %v, stdout %q, stderr %q", warm, err, out, stderr.String())
			}
		}
		// A version manager's setup, sourced: functions the judge
		// cannot follow (nvm's recurse), run like the user's ~/.bashrc.
		if out, errs, code := run("source ~/.nvm/nvm.sh && nvm use 20 && node --version"); code != 0 || out != "Now using node v20.11.1\nv20.11.1\n" {
			t.Errorf("source ~/.nvm/nvm.sh && nvm use 20: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		// The agent's own file tool (never through cordon) writes a
		// script outside every writable root, then the agent runs
		// it: written since the agent started, it is the agent's,
		// judged by what it holds (a git push --force, which the
		// judge asks about), not run like the user's programs.
		tidy := filepath.Join(e.home, ".local", "bin", "tidy.sh")
		text := "#!/usr/bin/env bash\ngit push --force origin main\n"
		// Run by one of the user's installed wrappers, it is the shim
		// inside the sandbox that judges it, which cannot see the
		// agent: the agent's start is carried in (a bound taken from
		// the sandbox's own processes, the wrapper's timeout or the
		// sandbox's first, lets it run).
		for _, cmd := range []string{"bash " + tidy, tidy, ". ~/.local/bin/tidy.sh", wrapper + " bash " + tidy, timed + " bash " + tidy} {
			c := &exec.Cmd{Path: agent, Args: []string{"agent", "-write", tidy + "=" + text, shimPath, "bash", "-c", cmd}, Dir: e.ws, Env: env}
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			c.Run()
			code, out := 126, ""
			if strings.HasPrefix(cmd, wrapper) || strings.HasPrefix(cmd, timed) {
				code, out = 0, "rc=126\n"
			}
			if c.ProcessState.ExitCode() != code || stdout.String() != out || !strings.Contains(stderr.String(), "cordon: refused") || !strings.Contains(stderr.String(), "push") {
				t.Errorf("%s, written by the agent's file tool since it started: exit %d, stdout %q, stderr %q; want refused for the push inside", cmd, c.ProcessState.ExitCode(), stdout.String(), stderr.String())
			}
		}
		// The agent runs its command through a wrapper of its own
		// (timeout, which started with the command): the bound is
		// still the agent's start, not the wrapper's.
		timeout, err := exec.LookPath("timeout")
		if err != nil {
			t.Fatal(err)
		}
		c := &exec.Cmd{Path: agent, Args: []string{"agent", "-write", tidy + "=" + text, timeout, "timeout", "60", shimPath, "-c", "bash " + tidy}, Dir: e.ws, Env: env}
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		c.Run()
		if c.ProcessState.ExitCode() != 126 || !strings.Contains(stderr.String(), "cordon: refused") {
			t.Errorf("run through the agent's timeout: exit %d, stdout %q, stderr %q; want refused for the push inside", c.ProcessState.ExitCode(), stdout.String(), stderr.String())
		}
	})
}

// TestInstalledScriptJudgedAsProgram judges scripts run by path on the
// host shim: one outside every writable place is judged like the program
// it is (its name and arguments), not by its content; one that sources a
// file of the workspace, or lies in the workspace, is judged by content.
func TestInstalledScriptJudgedAsProgram(t *testing.T) {
	e := newHarness(t, "auto")
	shimPath := linkShim(t, "bash")
	path := pyenvHome(t, e.home, filepath.Dir(shimPath))
	env := append(e.env, "PATH="+path)
	tool := filepath.Join(e.home, ".local", "share", "tool")
	os.MkdirAll(tool, 0o755)
	write := func(p, data string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(e.ws, "env.sh"), "rm -rf \"$HOME\"\n")
	write(filepath.Join(tool, "run.sh"), "#!/usr/bin/env bash\nexec \"$(tool-helper --which)\" \"$@\"\n")
	write(filepath.Join(tool, "sources-ws.sh"), "#!/usr/bin/env bash\nsource "+filepath.Join(e.ws, "env.sh")+"\nexec \"$(tool-helper --which)\" \"$@\"\n")
	write(filepath.Join(tool, "open.sh"), "#!/usr/bin/env bash\nchmod 666 \"$0\"\n")
	os.Chmod(filepath.Join(tool, "open.sh"), 0o757)
	settleInstalled()
	// cordon check, run by an agent started after all of it was written.
	agent, cordon := linkShim(t, "agent"), linkShim(t, "cordon")
	// Each check is an agent of its own, all at once: each waits out its
	// margin (agentMain) before its cordon check.
	check := func(argv []string) (string, error) {
		c := &exec.Cmd{Path: agent, Args: append([]string{"agent", cordon, "cordon", "check", "--"}, argv...), Dir: e.ws, Env: env}
		out, err := c.Output()
		verdict, _, _ := strings.Cut(string(out), " ")
		return strings.TrimSpace(verdict), err
	}
	py := filepath.Join(e.home, ".pyenv", "shims", "python3")
	pyenv := filepath.Join(e.home, ".pyenv", "libexec", "pyenv")
	cases := []struct {
		argv  []string
		allow bool
	}{
		{[]string{"bash", py, "--version"}, true},
		{[]string{"bash", "-c", py + " --version"}, true},
		{[]string{"bash", filepath.Join(tool, "run.sh"), "build"}, true},
		{[]string{"bash", "-c", "cd " + tool + " && ./run.sh build"}, true},
		// Judged like python3 -c: what the code does is seen.
		{[]string{"bash", py, "-c", "import shutil; shutil.rmtree('" + e.home + "')"}, false},
		{[]string{"bash", filepath.Join(tool, "sources-ws.sh")}, false},
		{[]string{"bash", filepath.Join(tool, "open.sh")}, false},
		{[]string{"bash", pyenv, "exec", "python3"}, true},
		{[]string{"bash", "-c", "cp " + pyenv + " ./pyenv && bash ./pyenv exec python3"}, false},
		{[]string{"bash", "-c", "bash < " + pyenv}, false},
		{[]string{"bash", "-c", "cat " + pyenv + " | bash -s exec python3"}, false},
	}
	verdicts, errs := make([]string, len(cases)), make([]error, len(cases))
	var wg sync.WaitGroup
	for i, tt := range cases {
		wg.Go(func() { verdicts[i], errs[i] = check(tt.argv) })
	}
	wg.Wait()
	for i, tt := range cases {
		if errs[i] != nil {
			t.Errorf("cordon check %q: %v", tt.argv, errs[i])
		} else if v := verdicts[i]; (v == "allow") != tt.allow {
			t.Errorf("%q: %s; want allowed %v", tt.argv, v, tt.allow)
		}
	}
}

// TestInstalledScriptUnconfined: with the sandbox off in the settings,
// every file the user can write could be the agent's, so no script is
// installed software: pyenv's scripts are judged by what they hold.
func TestInstalledScriptUnconfined(t *testing.T) {
	e := newHarness(t, "none")
	shimPath := linkShim(t, "bash")
	env := append(e.env, "PATH="+pyenvHome(t, e.home, filepath.Dir(shimPath)))
	pyenv := filepath.Join(e.home, ".pyenv", "libexec", "pyenv")
	j, err := decide.Check([]string{"bash", pyenv, "exec", "python3"}, e.ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if j.Verdict == rules.Allow {
		t.Errorf("bash %s exec python3 with the sandbox off: allowed, want judged by its content (refused)", pyenv)
	}
}

// TestAgentWrittenHostGit: the agent's file tool writes a script named
// git into a directory of the user's PATH that no sandboxed command can
// write (~/.local/bin, before /usr/bin), then runs git push. cordon runs
// the host's git outside every sandbox to read the repository's state
// while it judges: a git of the user's that changed since the agent
// started is never that git, so the script never runs outside (here it
// would remove a directory of the home, which every sandbox keeps
// read-only).
func TestAgentWrittenHostGit(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		e := newHarness(t, backend)
		shimPath := linkShim(t, "bash")
		agent := linkShim(t, "agent")
		if out, err := exec.Command("git", "init", "-q", e.ws).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		exec.Command("git", "-C", e.ws, "remote", "add", "origin", filepath.Join(e.home, "remote.git")).Run()
		bin := filepath.Join(e.home, ".local", "bin")
		os.MkdirAll(bin, 0o755)
		victim := filepath.Join(e.home, "victim")
		os.MkdirAll(victim, 0o755)
		realGit, err := exec.LookPath("git")
		if err != nil {
			t.Fatal(err)
		}
		// (The snapshot round after each command reads the repository:
		// done before the workspace is removed.)
		t.Cleanup(func() {
			snapshot.Open(filepath.Join(e.base, "state", "cordon"), snapshot.Budgets{}).WaitPending(e.ws)
		})
		settleInstalled()
		fake := filepath.Join(bin, "git")
		text := "#!/bin/sh\n/bin/rm -rf " + victim + "\nexec " + realGit + " \"$@\"\n"
		env := append(e.env, "PATH="+filepath.Dir(shimPath)+":"+bin+":"+os.Getenv("PATH"))
		for _, cmd := range []string{"git push origin main", "git commit -m x", "git status"} {
			c := &exec.Cmd{Path: agent, Args: []string{"agent", "-write", fake + "=" + text, shimPath, "bash", "-c", cmd}, Dir: e.ws, Env: env}
			out, _ := c.CombinedOutput()
			if strings.Contains(string(out), "no sandbox (") {
				t.Skipf("no %s sandbox here: %s", backend, out)
			}
			if _, err := os.Stat(victim); err != nil {
				t.Fatalf("%s: the agent's own ~/.local/bin/git ran outside the sandbox: %s is gone (%v); output %q", cmd, victim, err, out)
			}
		}
	})
}
