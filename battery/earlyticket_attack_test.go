//go:build linux

package battery

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// heldTickets counts the tickets held in the ledgers of state directory
// state.
func heldTickets(state string) int {
	ledgers, _ := filepath.Glob(filepath.Join(state, "guard", "*.json"))
	n := 0
	for _, l := range ledgers {
		data, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		var v struct {
			Active []json.RawMessage `json:"active"`
		}
		if json.Unmarshal(data, &v) == nil {
			n += len(v.Active)
		}
	}
	return n
}

// TestSessionEarlyTicketPersonWhileJudged: a person's edit at a guarded
// place made while a later command is still being judged (its reviewer
// takes a while, as a program asked about an ask does) is the person's:
// no command of the session ran when it was made. Taking the ticket
// before the judge must not turn that moment into one "while a command
// runs": with the reviewer's deny no command runs at all, and with its
// allow the command starts a second after the edit.
func TestSessionEarlyTicketPersonWhileJudged(t *testing.T) {
	for _, verdict := range []string{"deny", "allow"} {
		t.Run(verdict, func(t *testing.T) {
			atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
				marks := t.TempDir()
				r := newSessionRig(t, backend)
				// The reviewer outside every place sandboxed commands write.
				bin := filepath.Join(r.base, "bin")
				os.MkdirAll(bin, 0o755)
				reviewer := filepath.Join(bin, "reviewer")
				mustWrite(t, reviewer, "#!/bin/sh\ncat >/dev/null\ntouch "+marks+"/asked\n"+
					"i=0; while [ ! -e "+marks+"/edited ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\n"+
					"sleep 1\n"+
					`echo '{"verdict": "`+verdict+`", "reason": "test"}'`+"\n", 0o755)
				conf, err := os.OpenFile(filepath.Join(r.home, ".config", "cordon", "config.yaml"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				conf.WriteString("reviewer:\n  command: [" + reviewer + "]\n  timeout: 20s\n")
				conf.Close()
				rules := filepath.Join(r.home, ".config", "cordon", "rules")
				os.MkdirAll(rules, 0o755)
				mustWrite(t, filepath.Join(rules, "deploy.yaml"), deployRule, 0o644)
				mustWrite(t, filepath.Join(bin, "deploy"), "#!/bin/sh\necho \"deployed $*\" >> deployed.txt\n", 0o755)
				for i, kv := range r.env {
					if strings.HasPrefix(kv, "PATH=") {
						r.env[i] = "PATH=" + bin + ":" + kv[5:]
					}
				}
				r.inSession(true)
				state := filepath.Join(r.home, ".local", "state", "cordon")
				if pres, _ := filepath.Glob(filepath.Join(state, "sessions", "*.pre")); len(pres) != 1 {
					t.Fatalf("want the session's one prepare socket, got %q", pres)
				}
				for start := time.Now(); heldTickets(state) != 0; time.Sleep(20 * time.Millisecond) {
					if time.Since(start) > 5*time.Second {
						t.Fatal("a ticket is held between commands")
					}
				}
				done := make(chan string, 1)
				go func() {
					cmd := exec.Command(r.shim, "-c", "deploy --env prod")
					cmd.Args[0] = "bash"
					cmd.Dir, cmd.Env = r.ws, r.env
					out, _ := cmd.CombinedOutput()
					done <- string(out)
				}()
				for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
					if _, err := os.Stat(filepath.Join(marks, "asked")); err == nil {
						break
					}
					select {
					case out := <-done:
						t.Fatalf("the reviewer was never asked:\n%s", out)
					default:
					}
					if time.Since(start) > 15*time.Second {
						t.Fatal("the reviewer was never asked")
					}
				}
				held := heldTickets(state)
				// The person, meanwhile, in their editor.
				envrc := filepath.Join(r.ws, ".envrc")
				if err := os.WriteFile(envrc, []byte("export A=person\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond)
				os.WriteFile(filepath.Join(marks, "edited"), nil, 0o644)
				var out string
				select {
				case out = <-done:
				case <-time.After(20 * time.Second):
					t.Fatal("the command did not end")
				}
				_, ranErr := os.Stat(filepath.Join(r.ws, "deployed.txt"))
				if ran := ranErr == nil; ran != (verdict == "allow") {
					t.Fatalf("the command ran: %v, want %v\n%s", ran, verdict == "allow", out)
				}
				for start := time.Now(); heldTickets(state) != 0; time.Sleep(20 * time.Millisecond) {
					if time.Since(start) > 8*time.Second {
						t.Fatal("the ticket was not given back")
					}
				}
				if data, err := os.ReadFile(envrc); err != nil || string(data) != "export A=person\n" {
					t.Errorf("the person's .envrc, made while the command was judged (%d tickets held then), was put back: %q, %v\n%s",
						held, data, err, out)
				}
			})
		})
	}
}

// TestSessionEarlyTicketPersonWhilePrepared: a shim that prepared and
// ends with no command (refused) leaves a person's edit made meanwhile
// as it is: the ticket it took early held nothing that ran.
func TestSessionEarlyTicketPersonWhilePrepared(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		r.inSession(true)
		state, pre := prepareSocket(t, r)
		envrc := filepath.Join(r.ws, ".envrc")
		// Until the edit was made while the ticket was held (a loaded
		// machine may see it given back first).
		for try := 0; ; try++ {
			for start := time.Now(); heldTickets(state) != 0; time.Sleep(10 * time.Millisecond) {
				if time.Since(start) > 5*time.Second {
					t.Fatal("a ticket is held between commands")
				}
			}
			c, err := net.Dial("unix", pre)
			if err != nil {
				t.Fatal(err)
			}
			for start := time.Now(); heldTickets(state) != 1 && time.Since(start) < 2*time.Second; {
				time.Sleep(2 * time.Millisecond)
			}
			content := fmt.Sprintf("export A=person%d\n", try)
			os.WriteFile(envrc, []byte(content), 0o644)
			during := heldTickets(state) == 1
			c.Close()
			for start := time.Now(); heldTickets(state) != 0; time.Sleep(10 * time.Millisecond) {
				if time.Since(start) > 5*time.Second {
					t.Fatal("the ticket was not given back")
				}
			}
			if data, err := os.ReadFile(envrc); err != nil || string(data) != content {
				t.Fatalf("the person's .envrc, made while a shim had prepared (held then: %v), was put back: %q, %v", during, data, err)
			}
			if during {
				break
			}
			if try == 20 {
				t.Skip("never wrote while the ticket was held")
			}
		}
	})
}

// TestSessionPrepareFromInside: a process of the session's sandbox given
// the prepare socket's name cannot reach it (the sessions' directory is
// hidden: here both backends say it is not there), and one that did
// (Landlock below ABI 9 does not keep a process from connecting to a host
// socket it can name) would not be taken for a shim: the manager checks
// every peer and closes its connection at once, instead of keeping it as
// a prepare until its timeout.
func TestSessionPrepareFromInside(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		python := needPython(t)
		r.inSession(true)
		state := filepath.Join(r.home, ".local", "state", "cordon")
		pres, _ := filepath.Glob(filepath.Join(state, "sessions", "*.pre"))
		if len(pres) != 1 {
			t.Fatalf("want the session's one prepare socket, got %q", pres)
		}
		script := "import os, socket, sys, time\n" +
			"try:\n" +
			"    os.chdir(os.path.dirname(sys.argv[1]))\n" +
			"    s = socket.socket(socket.AF_UNIX)\n" +
			"    s.connect(os.path.basename(sys.argv[1]))\n" +
			"    start = time.time()\n" +
			"    s.settimeout(5)\n" +
			"    s.recv(1)\n" +
			"    print('closed after %d ms' % ((time.time() - start) * 1000))\n" +
			"except OSError as e:\n" +
			"    print('refused', e)\n"
		if err := os.WriteFile(filepath.Join(r.ws, "pre.py"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, _ := r.sh(python + " pre.py " + pres[0])
		t.Logf("from inside: %s%s", out, errs)
		var ms int
		if _, err := fmt.Sscanf(out, "closed after %d ms", &ms); err == nil && ms >= 100 {
			t.Errorf("a connection from inside the sandbox was kept as a shim's prepare (%d ms)", ms)
		}
	})
}
