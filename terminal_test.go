//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Interactive shells on a terminal (docs/interactive.md): the shim run as
// bash or zsh on a pseudo-terminal, keys typed into it, its screen read.

// A ptyShell is a program on the other side of a pseudo-terminal.
type ptyShell struct {
	t      *testing.T
	master *os.File
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	mark   int // where the next expect looks from
	grew   chan struct{}
}

func startPTY(t *testing.T, path string, argv, env []string, dir string) *ptyShell {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 250})
	p := &ptyShell{t: t, master: master, grew: make(chan struct{}, 1)}
	p.cmd = &exec.Cmd{Path: path, Args: argv, Env: env, Dir: dir, Stdin: slave, Stdout: slave, Stderr: slave,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Setctty: true}}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		master.Close()
	})
	return p
}

// send types text (keys; "\r" is Enter).
func (p *ptyShell) send(text string) {
	p.t.Helper()
	if _, err := p.master.WriteString(text); err != nil {
		p.t.Fatalf("typing %q: %v", text, err)
	}
}

// expect waits until the screen, from the last match on, matches re,
// and returns the match's submatches.
func (p *ptyShell) expect(re string) []string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(15 * time.Second)
	for {
		p.mu.Lock()
		out := p.out.Bytes()[p.mark:]
		m := rx.FindSubmatchIndex(out)
		var subs []string
		if m != nil {
			for i := 0; i < len(m); i += 2 {
				if m[i] >= 0 {
					subs = append(subs, string(out[m[i]:m[i+1]]))
				} else {
					subs = append(subs, "")
				}
			}
			p.mark += m[1]
		}
		p.mu.Unlock()
		if m != nil {
			return subs
		}
		select {
		case <-p.grew:
		case <-deadline:
			p.noSandbox()
			p.t.Fatalf("the screen never matched %q; it shows:\n%q", re, p.screen())
		}
	}
}

// screen is what the program wrote since the last match.
func (p *ptyShell) screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out.Bytes()[p.mark:])
}

func (p *ptyShell) noSandbox() {
	p.t.Helper()
	p.mu.Lock()
	all := p.out.String()
	p.mu.Unlock()
	if strings.Contains(all, "no sandbox (") {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			p.t.Fatalf("the sandbox cannot run here:\n%s", all)
		}
		p.t.Skipf("the sandbox cannot run here:\n%s", all)
	}
}

// run types line and Enter, and waits for the output that follows the
// echoed line to match re.
func (p *ptyShell) run(line, re string) []string {
	p.t.Helper()
	p.send(line + "\r")
	return p.expect(re)
}

// TestTerminal drives an interactive bash and zsh through the shim on a
// pseudo-terminal: lines run as typed, a refused line does not run and
// the prompt comes back, multi-line input, Ctrl+C, job control and $?
// work, the rules of the moment judge each line, VS Code's shell
// integration still reports its commands, and a broken channel runs
// nothing.
func TestTerminal(t *testing.T) {
	for _, tc := range []struct{ shell, backend string }{{"bash", "bwrap"}, {"bash", "landlock"}, {"zsh", "bwrap"}} {
		t.Run(tc.shell+"/"+tc.backend, func(t *testing.T) {
			t.Parallel()
			needShell(t, tc.shell)
			e := newSessionEnv(t, tc.backend)
			os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("PS1='READY$ '\n"), 0o644)
			os.WriteFile(filepath.Join(e.home, ".zshrc"), []byte("PS1='READY$ '\nunsetopt PROMPT_SP\n"), 0o644)
			marker := filepath.Join(e.home, "marker")
			os.WriteFile(marker, []byte("keep"), 0o644)
			p := startPTY(t, linkShim(t, tc.shell), []string{tc.shell}, append(e.env, "TERM=xterm"), e.ws)
			p.expect(`READY\$ `)

			t.Run("echo", func(t *testing.T) {
				p.t = t
				p.run("echo hi", `[\r\n]hi\r\n`)
				p.expect(`READY\$ `)
			})
			t.Run("refused", func(t *testing.T) {
				p.t = t
				p.run("rm -rf ~", `cordon: refused \(deny, outside\): rm would delete the home directory`)
				p.expect(`READY\$ `)
				p.run(`echo "st=$?"`, `[\r\n]st=126\r\n`)
				if data, err := os.ReadFile(marker); err != nil || string(data) != "keep" {
					t.Fatalf("the refused rm ran: %q, %v", data, err)
				}
			})
			t.Run("status", func(t *testing.T) {
				p.t = t
				p.run("false", `READY\$ `)
				p.run(`echo "st=$?"`, `[\r\n]st=1\r\n`)
			})
			t.Run("multi-line", func(t *testing.T) {
				p.t = t
				p.send("for i in 1 2; do\r")
				p.send("echo \"i=$i\"\r")
				p.send("done\r")
				p.expect(`[\r\n]i=1\r\ni=2\r\n`)
				p.expect(`READY\$ `)
			})
			t.Run("ctrl-c", func(t *testing.T) {
				p.t = t
				// Printed by the command, in the terminal's foreground.
				p.run("sh -c 'echo started; exec sleep 100'", `[\r\n]started\r\n`)
				p.send("\x03")
				p.expect(`READY\$ `)
				p.run(`echo "st=$?"`, `[\r\n]st=130\r\n`)
			})
			t.Run("jobs", func(t *testing.T) {
				p.t = t
				// In the background the job stops as it reads the
				// terminal; brought to the foreground, it reads.
				p.run(`sh -c 'read x; echo "got $x"; exec sleep 100' &`, `\[1\] \d+`)
				p.expect(`READY\$ `)
				p.run("fg", `sh -c`)
				p.run("hello", `[\r\n]got hello\r\n`)
				p.send("\x03")
				p.expect(`READY\$ `)
				p.run(`echo "st=$?"`, `[\r\n]st=130\r\n`)
			})
			t.Run("rules-reload", func(t *testing.T) {
				p.t = t
				os.MkdirAll(e.rules, 0o755)
				if err := os.WriteFile(filepath.Join(e.rules, "user.yaml"), []byte(denyDeleteRule), 0o644); err != nil {
					t.Fatal(err)
				}
				// The watcher sees the change within a second: poll.
				for begin := time.Now(); ; {
					p.run("mkdir -p node_modules && rm -rf node_modules", `READY\$ `)
					got := p.run(`echo "rm=$?"`, `[\r\n]rm=(\d+)\r\n`)[1]
					if got == "126" {
						break
					}
					if time.Since(begin) > 2*time.Second {
						t.Fatalf("the new rule does not apply to the next lines (rm=%s)", got)
					}
				}
			})
			t.Run("broken-channel", func(t *testing.T) {
				p.t = t
				// A process other than the shell writes to the judge's
				// channel: the judge stops, and no line runs after.
				fd := p.run(`for f in /proc/$$/fd/*; do [ -S "$f" ] && n=${f##*/}; done; echo "fd=$n"`, `[\r\n]fd=(\d+)\r\n`)[1]
				_ = fd
				p.run(`env printf junk >&"$n"`, "the judge of this terminal stopped")
				p.run("touch ran", "the judge of this terminal is not reachable")
				p.expect(`READY\$ `)
				if _, err := os.Stat(filepath.Join(e.ws, "ran")); err == nil {
					t.Fatal("a line ran with the judge gone")
				}
			})
		})
	}
}
