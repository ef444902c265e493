//go:build linux

package battery

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// subreaper runs a program as the child of a python3 process that is
// the subreaper of everything it leaves (prctl PR_SET_CHILD_SUBREAPER),
// and then says what of it is still running once the program has ended
// and what ends with it has had a moment: each process's argv[0] and
// whether its environment at its start was empty.
const subreaper = `
import ctypes, json, os, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
def children():
    out = []
    for t in os.listdir('/proc/self/task'):
        with open('/proc/self/task/%s/children' % t) as f:
            out += [int(p) for p in f.read().split()]
    return out
left = []
for _ in range(60):
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass
    left = []
    for pid in children():
        try:
            argv0 = open('/proc/%d/cmdline' % pid, 'rb').read().split(b'\0')[0].decode()
            env = open('/proc/%d/environ' % pid, 'rb').read()
        except OSError:
            continue
        left.append({'argv0': argv0, 'env_empty': env == b''})
    if not left:
        break
    time.sleep(0.05)
print(json.dumps({'code': code, 'left': left}))
`

type leftBehind struct {
	Code int `json:"code"`
	Left []struct {
		Argv0    string `json:"argv0"`
		EnvEmpty bool   `json:"env_empty"`
	} `json:"left"`
}

// underSubreaper runs script with the rig's shim under [subreaper].
func (r *sessionRig) underSubreaper(python, script string) leftBehind {
	r.t.Helper()
	cmd := exec.Command(python, "-c", subreaper, r.shim, "-c", script)
	cmd.Dir, cmd.Env = r.ws, r.env
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("%v: %s", err, out)
	}
	var got leftBehind
	if err := json.Unmarshal(bytes.TrimSpace(out), &got); err != nil {
		r.t.Fatalf("%v: %s", err, out)
	}
	return got
}

// TestSessionManagerStartedEarly: a shim that finds no session to
// prepare starts the session's manager while it judges the command
// (sessionbox.Prepare, docs/session.md). The manager it started early:
//   - leaves nothing running when the command is refused, or runs in a
//     sandbox of its own (resource limits are set per command);
//   - is the session's manager when the command starts the session, and
//     was started with no environment (what the command's environment
//     holds is given to it by the spec, never in /proc/PID/environ).
func TestSessionManagerStartedEarly(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		python := needPython(t)
		r := newSessionRig(t, backend)
		// The sessions' secret is made by the first command, which the
		// early start needs.
		r.inSession(true)
		stopSessions(t, r.home)

		got := r.underSubreaper(python, "rm -rf ~")
		if got.Code == 0 {
			t.Fatalf("rm -rf ~ ran: %+v", got)
		}
		if _, err := os.Stat(r.home); err != nil {
			t.Fatalf("the home directory: %v", err)
		}
		if len(got.Left) > 0 {
			t.Errorf("a refused command left processes running: %+v", got.Left)
		}

		got = r.underSubreaper(python, "echo ok > early.txt")
		if got.Code != 0 {
			t.Fatalf("a first command: exit %d", got.Code)
		}
		if data, err := os.ReadFile(filepath.Join(r.ws, "early.txt")); err != nil || string(data) != "ok\n" {
			t.Fatalf("the first command did not run: %q, %v", data, err)
		}
		managers := 0
		for _, p := range got.Left {
			if p.Argv0 != "cordon-session" {
				t.Errorf("a first command left %q running outside its session", p.Argv0)
				continue
			}
			managers++
			if !p.EnvEmpty {
				t.Errorf("the session's manager was started with an environment")
			}
		}
		if managers != 1 {
			t.Errorf("%d session managers after a first command, want 1: %+v", managers, got.Left)
		}
		stopSessions(t, r.home)

		// Per-command limits: the command runs in a sandbox of its own.
		conf := filepath.Join(r.home, ".config", "cordon", "config.yaml")
		data, err := os.ReadFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(conf, append(data, "  limits: {open_files: 512}\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		got = r.underSubreaper(python, "echo limited > limited.txt")
		if data, err := os.ReadFile(filepath.Join(r.ws, "limited.txt")); got.Code != 0 || err != nil || strings.TrimSpace(string(data)) != "limited" {
			t.Fatalf("with limits: exit %d, %q, %v", got.Code, data, err)
		}
		if len(got.Left) > 0 {
			t.Errorf("a command run in a sandbox of its own left processes running: %+v", got.Left)
		}
	})
}

// TestSessionPrepareSocketRetaken: a session whose prepare socket's name
// is gone (a newer session of the same agent in the workspace took it,
// and ended) makes it again at its next command: else every later
// command's shim found no manager listening, and started one early for
// nothing.
func TestSessionPrepareSocketRetaken(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		r.inSession(true)
		state := filepath.Join(r.home, ".local", "state", "cordon")
		pres, _ := filepath.Glob(filepath.Join(state, "sessions", "*.pre"))
		if len(pres) != 1 {
			t.Fatalf("want the session's one prepare socket, got %q", pres)
		}
		if err := os.Remove(pres[0]); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := r.sh("true"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if _, err := os.Stat(pres[0]); err != nil {
			t.Errorf("the prepare socket was not made again: %v", err)
		}
		// And it is listened on: a shim's prepare connects.
		if _, errs, code := r.sh("true"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		_, pre := prepareSocket(t, r)
		c, err := net.Dial("unix", pre)
		if err != nil {
			t.Fatalf("no manager listens on the prepare socket made again: %v", err)
		}
		c.Close()
	})
}
