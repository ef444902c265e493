//go:build linux

package battery

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionEarlyTicket: a later command's shim tells its session's
// manager, before it judges the command, that a command is coming
// (sessionbox.Prepare), and the manager takes the workspace's guard
// ticket then. Checked from outside, as a shim does it:
//   - a connection to the session's prepare socket takes the ticket, and
//     closing it with no command gives it back (and so does the timeout);
//   - it never gives back a ticket the session keeps for a process a
//     command left running: what that process writes at a guarded place
//     is still put back;
//   - a person's .envrc made between commands is theirs (the disk as it
//     is when the ticket is taken), a command's is put back.
func TestSessionEarlyTicket(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		python := needPython(t)
		r.inSession(true)
		state, pre := prepareSocket(t, r)
		tickets := func() int { return heldTickets(state) }
		wait := func(what string, want int, within time.Duration) {
			t.Helper()
			for start := time.Now(); tickets() != want; time.Sleep(20 * time.Millisecond) {
				if time.Since(start) > within {
					t.Fatalf("%s: %d tickets held, want %d", what, tickets(), want)
				}
			}
		}
		wait("between commands", 0, 5*time.Second)
		c, err := net.Dial("unix", pre)
		if err != nil {
			t.Fatal(err)
		}
		wait("once a shim prepared", 1, 5*time.Second)
		c.Close()
		wait("once the shim went without a command", 0, 5*time.Second)
		c, err = net.Dial("unix", pre)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wait("once a shim prepared", 1, 5*time.Second)
		wait("once no command came in time", 0, 8*time.Second)

		// A person's .envrc, made between commands: theirs.
		envrc := filepath.Join(r.ws, ".envrc")
		if err := os.WriteFile(envrc, []byte("export A=person\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := r.sh("true"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if data, err := os.ReadFile(envrc); err != nil || string(data) != "export A=person\n" {
			t.Errorf("the person's .envrc made between commands was not kept: %q, %v", data, err)
		}
		// A command's .npmrc: put back.
		if err := os.WriteFile(filepath.Join(r.ws, "w.py"), []byte("open('.npmrc', 'w').write('script-shell=/tmp/x\\n')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := r.sh(python + " w.py"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if data, err := os.ReadFile(filepath.Join(r.ws, ".npmrc")); err == nil {
			t.Errorf("the .npmrc a command wrote is on the host after it: %q", data)
		}

		// A process a command left running keeps the ticket: a shim's
		// prepare and its end give back nothing.
		writer := "import os, time\n" +
			"open('wrote', 'w').close()\n" +
			"time.sleep(1.5)\n" +
			"os.makedirs('.vscode', exist_ok=True)\n" +
			"open('.vscode/tasks.json', 'w').write('{}')\n" +
			"open('wrote2', 'w').close()\n"
		r.background(python, writer)
		wait("while a command's process runs", 1, 5*time.Second)
		for range 3 {
			c, err := net.Dial("unix", pre)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
			c.Close()
		}
		time.Sleep(200 * time.Millisecond)
		if n := tickets(); n != 1 {
			t.Errorf("a shim's prepare gave back the ticket kept for a running process: %d held", n)
		}
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(r.ws, "wrote2")); err == nil {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("the background writer did not finish")
			}
		}
		time.Sleep(time.Second)
		if _, err := os.Stat(filepath.Join(r.ws, ".vscode", "tasks.json")); err == nil {
			t.Error("a tasks.json written by the session's background process after a prepare is on the host")
		}
		if _, errs, _ := r.sh("true"); !strings.Contains(errs, "tasks.json") {
			t.Logf("the next command did not say what was put back: %q", errs)
		}
	})
}

// prepareSocket returns the state directory of the session rig r, whose
// session runs, and a path to connect to its one prepare socket by (the
// socket's own is longer than a socket's address takes: through its
// directory's descriptor, open until the test ends).
func prepareSocket(t *testing.T, r *sessionRig) (state, pre string) {
	t.Helper()
	state = filepath.Join(r.home, ".local", "state", "cordon")
	pres, _ := filepath.Glob(filepath.Join(state, "sessions", "*.pre"))
	if len(pres) != 1 {
		t.Fatalf("want the session's one prepare socket, got %q", pres)
	}
	dir, err := os.Open(filepath.Dir(pres[0]))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dir.Close() })
	return state, fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(pres[0]))
}
