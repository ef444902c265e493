//go:build linux

package battery

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
	t      testing.TB
	master *os.File
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	mark   int // where the next expect looks from
	grew   chan struct{}
}

func startPTY(t testing.TB, path string, argv, env []string, dir string) *ptyShell {
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
// nothing. bwrap, Landlock, and no sandbox (the hook is the same).
func TestTerminal(t *testing.T) {
	for _, tc := range []struct{ shell, backend string }{{"bash", "bwrap"}, {"bash", "landlock"}, {"bash", "none"}, {"zsh", "bwrap"}} {
		t.Run(tc.shell+"/"+tc.backend, func(t *testing.T) {
			t.Parallel()
			needShell(t, tc.shell)
			e := newHarness(t, tc.backend)
			os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("PS1='READY$ '\n"), 0o644)
			// A plugin's accept-line wrapper (as zsh-autosuggestions
			// and zsh-syntax-highlighting install) keeps being called.
			os.WriteFile(filepath.Join(e.home, ".zshrc"), []byte("PS1='READY$ '\nunsetopt PROMPT_SP\n"+
				"accepted=0\nmy-accept() { accepted=$((accepted+1)); zle .accept-line; }\nzle -N accept-line my-accept\n"), 0o644)
			marker := filepath.Join(e.home, "marker")
			os.WriteFile(marker, []byte("keep"), 0o644)
			p := startPTY(t, linkShim(t, tc.shell), []string{tc.shell}, append(e.env, "TERM=xterm"), e.ws)
			p.expect(`READY\$ `)

			t.Run("echo", func(t *testing.T) {
				p.t = t
				p.run("echo hi", `[\r\n]hi\r\n`)
				p.expect(`READY\$ `)
				if tc.shell == "zsh" {
					p.run(`echo "accepted=$accepted"`, `[\r\n]accepted=2\r\n`)
				}
			})
			t.Run("refused", func(t *testing.T) {
				p.t = t
				p.run("rm -rf ~", `cordon: refused \(deny, outside\): rm would delete the home directory`)
				p.expect(`READY\$ `)
				p.run(`echo "st=$?"`, `[\r\n]st=126\r\n`)
				if data, err := os.ReadFile(marker); err != nil || string(data) != "keep" {
					t.Fatalf("the refused rm ran: %q, %v", data, err)
				}
				// The history has the line as entered.
				p.run("fc -ln -2 -2", `[\r\n]\s*rm -rf ~\r\n`)
			})
			t.Run("paste", func(t *testing.T) {
				p.t = t
				// Bracketed paste: the lines are judged together.
				p.send("\x1b[200~echo p1\necho p2\x1b[201~\r")
				p.expect(`[\r\n]p1\r\np2\r\n`)
				p.expect(`READY\$ `)
				p.send("\x1b[200~echo p3\nrm -rf ~\x1b[201~\r")
				before := p.expect(`(?s)^(.*?)cordon: refused`)[1]
				if regexp.MustCompile(`[\r\n]p3\r\n`).MatchString(before) {
					t.Fatalf("a line of a refused paste ran: %q", before)
				}
				p.run(`echo "st=$?"`, `[\r\n]st=126\r\n`)
			})
			t.Run("hook-tamper", func(t *testing.T) {
				p.t = t
				off := map[string]string{"bash": `bind '"\C-m": accept-line'`, "zsh": `zle -A .accept-line accept-line`}[tc.shell]
				p.run(off, `\[rule terminal-hook\]`)
				p.run("rm -rf ~", `cordon: refused`)
				p.run(`echo "st=$?"`, `[\r\n]st=126\r\n`)
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
					os.MkdirAll(filepath.Join(e.ws, "node_modules"), 0o755)
					p.run("rm -rf node_modules", `READY\$ `)
					got := p.run(`echo "rm=$?"`, `[\r\n]rm=(\d+)\r\n`)[1]
					if got == "126" {
						// Refused whole: the rm did not run.
						if _, err := os.Stat(filepath.Join(e.ws, "node_modules")); err != nil {
							t.Fatalf("the refused line ran: %v", err)
						}
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

// TestTerminalVSCode: an editor's shell integration (a stand-in of ours
// using the same hooks, testdata/shellintegration, or the editor's real
// scripts from the directory CORDON_SHELL_INTEGRATION names), started as
// VS Code starts it (bash --init-file; zsh
// with ZDOTDIR pointing at VS Code's files and USER_ZDOTDIR at the
// user's), still marks the prompt and each command's start, command line
// and end (OSC 633 A, B, E, C, D) with cordon's hook in the shell, a
// refused line included.
func TestTerminalVSCode(t *testing.T) {
	scripts := os.Getenv("CORDON_SHELL_INTEGRATION")
	if scripts == "" {
		scripts = filepath.Join("testdata", "shellintegration")
	}
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			needShell(t, shell)
			e := newHarness(t, "bwrap")
			os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("PS1='READY$ '\n"), 0o644)
			os.WriteFile(filepath.Join(e.home, ".zshrc"), []byte("PS1='READY$ '\nunsetopt PROMPT_SP\n"), 0o644)
			env := append(e.env, "TERM=xterm", "VSCODE_INJECTION=1", "VSCODE_NONCE=n0nce", "VSCODE_STABLE=1")
			argv := []string{"bash"}
			if shell == "bash" {
				script, err := filepath.Abs(filepath.Join(scripts, "shellIntegration-bash.sh"))
				if err != nil {
					t.Fatal(err)
				}
				argv = append(argv, "--init-file", script)
			} else {
				// VS Code copies its zsh scripts into a directory of
				// its own as the start-up files.
				rc, err := os.ReadFile(filepath.Join(scripts, "shellIntegration-rc.zsh"))
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(e.base, "vscode-zsh")
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, ".zshrc"), rc, 0o644)
				argv = []string{"zsh", "-i"}
				env = append(env, "ZDOTDIR="+dir, "USER_ZDOTDIR="+e.home)
			}
			p := startPTY(t, linkShim(t, shell), argv, env, e.ws)
			const osc = "\x1b\\]633;"
			p.expect(osc + "A\a" + `READY\$ ` + osc + "B\a")
			p.run("echo vsc", osc+"E;echo vsc;n0nce\a"+osc+"C\a"+`[\r\n]*vsc\r\n`)
			p.expect(osc + `D;0` + "\a")
			p.expect(osc + "A\a" + `READY\$ ` + osc + "B\a")
			p.run("rm -rf ~", osc+"C\a"+"cordon: refused")
			p.expect(osc + `D;126` + "\a")
			p.expect(osc + "A\a" + `READY\$ ` + osc + "B\a")
		})
	}
}

// BenchmarkTerminalLine is the time from Enter to the next prompt for
// `true`, typed into an interactive bash: the real one, and through
// cordon (bwrap), where the hook asks the judge first. The prompt holds
// the command number, so each wait is for the next prompt.
func BenchmarkTerminalLine(b *testing.B) {
	for _, via := range []string{"real", "cordon"} {
		b.Run(via, func(b *testing.B) {
			e := newHarness(b, "bwrap")
			os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("PS1='READY\\#$ '\n"), 0o644)
			path := realShell("bash")
			if via == "cordon" {
				path = linkShim(b, "bash")
			}
			p := startPTY(b, path, []string{"bash"}, append(e.env, "TERM=xterm"), e.ws)
			n, _ := strconv.Atoi(p.expect(`READY(\d+)\$ `)[1])
			for b.Loop() {
				n++
				p.run("true", `READY`+strconv.Itoa(n)+`\$ `)
			}
		})
	}
}
