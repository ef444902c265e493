//go:build linux

package battery

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Piped shells: the shim fed by a pipe, as pipe-driven agents run
// a shell, with real processes, on every backend.

// pipedBackends are the settings' backends the piped shell tests run with.
var pipedBackends = []string{"none", "bwrap", "landlock"}

// A pipedShell is the shim run as bash with its stdin a pipe.
type pipedShell struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string // stdout, line by line
	stderr *syncBuffer
}

func (e *harness) start(t *testing.T, argv ...string) *pipedShell {
	t.Helper()
	s := &pipedShell{t: t, lines: make(chan string, 1000), stderr: &syncBuffer{}}
	s.cmd = &exec.Cmd{Path: linkShim(t, "bash"), Args: argv, Dir: e.ws, Env: e.env, Stderr: s.stderr}
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	return s
}

func (s *pipedShell) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			s.t.Fatalf("writing %q: %v\nstderr: %s", l, err, s.stderr)
		}
	}
}

// expect waits for the next line of output, which must be want.
func (s *pipedShell) expect(want string) {
	s.t.Helper()
	select {
	case got, ok := <-s.lines:
		if !ok {
			s.cmd.Wait()
			s.noSandbox()
			s.t.Fatalf("output ended, want %q\nstderr: %s", want, s.stderr)
		}
		if got != want {
			s.t.Fatalf("output %q, want %q\nstderr: %s", got, want, s.stderr)
		}
	case <-time.After(10 * time.Second):
		s.t.Fatalf("no output, want %q\nstderr: %s", want, s.stderr)
	}
}

// end closes stdin and returns the exit status.
func (s *pipedShell) end() int {
	s.in.Close()
	s.cmd.Wait()
	return s.cmd.ProcessState.ExitCode()
}

// noSandbox ends the test when the shim said the backend cannot run
// here: a failure under CORDON_REQUIRE_SANDBOX (CI), else a skip.
func (s *pipedShell) noSandbox() {
	s.t.Helper()
	if msg := s.stderr.String(); strings.Contains(msg, "no sandbox (") {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			s.t.Fatalf("the sandbox cannot run here:\n%s", msg)
		}
		s.t.Skipf("the sandbox cannot run here:\n%s", msg)
	}
}

// TestPipedStatePersists: cd, variables and functions persist from one
// statement to the next; a refused statement prints the refusal, sets $?
// to 126, runs nothing, and the piped shell goes on; exit's status is ours.
func TestPipedStatePersists(t *testing.T) {
	for _, backend := range pipedBackends {
		t.Run(backend, func(t *testing.T) {
			e := newHarness(t, backend)
			marker := filepath.Join(e.home, "marker")
			os.WriteFile(marker, []byte("keep"), 0o644)
			s := e.start(t, "bash", "-s", "one", "two")
			s.send("echo ready")
			s.expect("ready")
			s.send(`echo "$0 $# $*"`)
			s.expect("bash 2 one two")
			s.send("cd /tmp", "pwd")
			s.expect("/tmp")
			s.send("X=hello", `echo "$X"`)
			s.expect("hello")
			s.send(`f() { echo "fn $1 $X"; }`, "f arg")
			s.expect("fn arg hello")
			s.send("if true; then", "  echo inside", "fi")
			s.expect("inside")
			s.send("rm -rf ~", `echo "status $?"`)
			s.expect("status 126")
			s.send("echo still here")
			s.expect("still here")
			if data, err := os.ReadFile(marker); err != nil || string(data) != "keep" {
				t.Fatalf("the refused rm ran: %q, %v", data, err)
			}
			if got := s.stderr.String(); !strings.Contains(got, "cordon: refused (deny, outside): rm would delete the home directory "+e.home) ||
				!strings.Contains(got, "`cordon explain -- bash -c 'rm -rf ~'`") {
				t.Errorf("stderr:\n%s", got)
			}
			s.send("exit 7")
			if code := s.end(); code != 7 {
				t.Errorf("exit status %d, want 7", code)
			}
		})
	}
}

// TestPipedFollowsCd: a relative path after cd is judged where the
// shell is.
func TestPipedFollowsCd(t *testing.T) {
	e := newHarness(t, "none")
	keep := filepath.Join(e.home, "keep")
	os.MkdirAll(keep, 0o755)
	s := e.start(t, "bash")
	s.send("cd ~", "rm -rf keep", `echo "status $?"`)
	s.expect("status 126")
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("rm -rf keep after cd ~ ran: %v", err)
	}
	s.end()
}

// TestPipedHardening: what a review found, each tried again: a
// refusal cannot be made to run the agent's own function, a carriage
// return cannot join two lines, a cd inside a compound statement is
// followed, history expansion is refused in an interactive shell, and
// none of the refused commands ran.
func TestPipedHardening(t *testing.T) {
	e := newHarness(t, "none")
	marker := filepath.Join(e.ws, "pwned")
	s := e.start(t, "bash")
	s.send(
		"exit() { touch "+marker+"; }",
		`echo "status $?"`,
		"printf() { touch "+marker+"; }",
		`echo "status $?"`,
		"alias command='touch "+marker+"; command'",
		`echo "status $?"`,
		"enable -n printf",
		`echo "status $?"`,
		"rm -rf ~",
		`echo "status $?"`,
	)
	for range 5 {
		s.expect("status 126")
	}
	io.WriteString(s.in, "echo x \\\r\ntouch "+marker+"\n")
	s.send(`echo "status $?"`)
	s.expect("status 126")
	if _, err := os.Lstat(marker); err == nil {
		t.Fatalf("a refused statement ran the agent's code\nstderr: %s", s.stderr)
	}
	// A cd inside a compound statement moves the shell: the judge follows.
	os.MkdirAll(filepath.Join(e.ws, "sub", ".git"), 0o755)
	os.WriteFile(filepath.Join(e.ws, "sub", ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	s.send("true && cd sub", "rm -rf .git", `echo "status $?"`)
	s.expect("status 126")
	if _, err := os.Stat(filepath.Join(e.ws, "sub", ".git", "HEAD")); err != nil {
		t.Fatalf("rm -rf .git after true && cd sub ran: %v", err)
	}
	s.end()

	// Interactive: ! from the history is refused.
	s = e.start(t, "bash", "-i")
	s.send("echo touch "+marker, "!! 2>/dev/null; echo \"status $?\"")
	time.Sleep(300 * time.Millisecond)
	s.end()
	if _, err := os.Lstat(marker); err == nil {
		t.Fatal("history expansion ran an unjudged command")
	}
	if !strings.Contains(s.stderr.String(), "expand from its history") {
		t.Errorf("no refusal for !!:\n%s", s.stderr)
	}
}

// TestPipedEnvFunctions: a function handed in by the environment under
// a builtin's name stops the piped shell before anything runs.
func TestPipedEnvFunctions(t *testing.T) {
	e := newHarness(t, "none")
	e.env = append(e.env, "BASH_FUNC_exit%%=() { echo hijacked; }")
	cmd := &exec.Cmd{Path: linkShim(t, "bash"), Args: []string{"bash"}, Dir: e.ws, Env: e.env}
	cmd.Stdin = strings.NewReader("echo ran\n")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 126 || strings.Contains(string(out), "ran") || !strings.Contains(string(out), "BASH_FUNC_exit") {
		t.Fatalf("exit %d, output:\n%s", cmd.ProcessState.ExitCode(), out)
	}
}

// TestPipedProjectRules: a workspace with rule files of its own (read-
// only in the sandbox) still gets piped shells.
func TestPipedProjectRules(t *testing.T) {
	e := newHarness(t, "bwrap")
	os.MkdirAll(filepath.Join(e.ws, ".cordon"), 0o755)
	os.WriteFile(filepath.Join(e.ws, ".cordon", "x.yaml"), []byte("version: 1\n"), 0o644)
	s := e.start(t, "bash")
	s.send("echo ok")
	s.expect("ok")
	s.end()
}

// pipedScript is run through the shim and through bash: the same
// bytes must come out.
const pipedScript = `echo start
for i in 1 2 3; do
  printf '%s,' "$i"
done; echo
cat <<'EOF'
here $doc
EOF
x='multi
line'
echo "$x" | wc -l
# a comment
echo "$LINENO"
g() {
  echo "g: $*"
}
g a b
echo "last"`

func TestPipedSameOutput(t *testing.T) {
	real := needShell(t, "bash")
	for _, backend := range pipedBackends {
		t.Run(backend, func(t *testing.T) {
			e := newHarness(t, backend)
			run := func(path string) (string, string) {
				cmd := &exec.Cmd{Path: path, Args: []string{"bash"}, Dir: e.ws, Env: e.env, Stdin: strings.NewReader(pipedScript)}
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				// A pipe, not a file: strings.Reader makes exec copy
				// through one.
				cmd.Run()
				return out.String(), errb.String()
			}
			got, stderr := run(linkShim(t, "bash"))
			if strings.Contains(stderr, "no sandbox (") {
				if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
					t.Fatal(stderr)
				}
				t.Skip(stderr)
			}
			want, _ := run(real)
			// backend: none says so, once per parent process.
			stderr = strings.TrimPrefix(stderr, "cordon: commands run unconfined (sandbox backend: none in your settings); they are judged, not contained\n")
			if got != want || stderr != "" {
				t.Errorf("through the shim:\n%q\nstderr %q\nreal bash:\n%q", got, stderr, want)
			}
		})
	}
}

// TestPipedSignal: SIGTERM to the shim's process group reaches the
// shell's trap once, and the shell's status is ours.
func TestPipedSignal(t *testing.T) {
	for _, backend := range pipedBackends {
		t.Run(backend, func(t *testing.T) {
			e := newHarness(t, backend)
			s := e.start(t, "bash")
			s.cmd.SysProcAttr = nil
			s.send(`trap 'echo got TERM; exit 3' TERM`, "echo ready")
			s.expect("ready")
			s.send("while :; do sleep 0.05; done")
			time.Sleep(200 * time.Millisecond)
			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			s.expect("got TERM")
			if code := s.end(); code != 3 {
				t.Errorf("exit status %d, want 3", code)
			}
		})
	}
}

// TestPipedRulesWritableRefused: rules an agent could edit from inside
// the sandbox are not used.
func TestPipedRulesWritableRefused(t *testing.T) {
	e := newHarness(t, "none")
	cfg := filepath.Join(t.TempDir(), "config") // under /tmp: scratch
	os.MkdirAll(filepath.Join(cfg, "cordon", "rules"), 0o755)
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			e.env[i] = "XDG_CONFIG_HOME=" + cfg
		}
	}
	cmd := &exec.Cmd{Path: linkShim(t, "bash"), Args: []string{"bash"}, Dir: e.ws, Env: e.env}
	cmd.Stdin = strings.NewReader("echo ran\n")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 126 || strings.Contains(string(out), "ran") ||
		!strings.Contains(string(out), "can be written by sandboxed commands") {
		t.Fatalf("exit %d, output:\n%s", cmd.ProcessState.ExitCode(), out)
	}
}

// denyDeleteRule makes deleting in the workspace refused.
const denyDeleteRule = `version: 1
policies:
  - id: test-no-delete
    effect: [delete]
    target: [workspace]
    verdict: deny
    category: destroy-ws
    message: "{cmd} would delete {target}: test rule"
`

// TestPipedRulesReload: an edit of the user's rules takes effect in a
// running piped shell on the next statement, within a second of the save,
// for the three ways editors save.
func TestPipedRulesReload(t *testing.T) {
	for _, backend := range pipedBackends {
		t.Run(backend, func(t *testing.T) {
			e := newHarness(t, backend)
			file := filepath.Join(e.rules, "user.yaml")
			s := e.start(t, "bash")
			s.send("echo ready")
			s.expect("ready")
			probe := func() string {
				s.send("mkdir -p node_modules", "rm -rf node_modules", `echo "rm $?"`)
				select {
				case l, ok := <-s.lines:
					if !ok {
						t.Fatalf("output ended\nstderr: %s", s.stderr)
					}
					return l
				case <-time.After(10 * time.Second):
					t.Fatalf("no output\nstderr: %s", s.stderr)
				}
				return ""
			}
			if got := probe(); got != "rm 0" {
				t.Fatalf("before any rule: %q\nstderr: %s", got, s.stderr)
			}
			waitFor := func(how, want string, save func()) {
				t.Helper()
				save()
				begin := time.Now()
				for {
					got := probe()
					if got == want {
						t.Logf("%s: %v", how, time.Since(begin))
						break
					}
					if time.Since(begin) > time.Second {
						t.Fatalf("%s: after %v the piped shell still says %q, want %q\nstderr: %s", how, time.Since(begin), got, want, s.stderr)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			write := func(path, data string) {
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// The directory does not exist when the piped shell starts.
			waitFor("new-directory", "rm 126", func() {
				os.MkdirAll(e.rules, 0o755)
				write(file, denyDeleteRule)
			})
			waitFor("in-place", "rm 0", func() { write(file, "version: 1\n") })
			waitFor("rename-over", "rm 126", func() {
				write(file+".tmp", denyDeleteRule)
				os.Rename(file+".tmp", file)
			})
			waitFor("delete-create", "rm 0", func() {
				os.Remove(file)
				write(file, "version: 1\n# nothing\n")
			})
			waitFor("delete-create-deny", "rm 126", func() {
				os.Remove(file)
				write(file, denyDeleteRule)
			})
			// A broken edit keeps the last good rules, and says so once.
			write(file, "version: 1\npolicies: [\n")
			time.Sleep(300 * time.Millisecond)
			if got := probe(); got != "rm 126" {
				t.Fatalf("after a broken edit: %q", got)
			}
			n := 0
			for _, line := range strings.Split(s.stderr.String(), "\n") {
				if strings.Contains(line, "rules rejected: ") && strings.Contains(line, file+":") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("the broken edit was reported %d times, want once:\n%s", n, s.stderr)
			}
			if !strings.Contains(s.stderr.String(), "test rule") {
				t.Errorf("the refusal does not give the rule's message:\n%s", s.stderr)
			}
			s.end()
		})
	}
}

// TestPipedAgentStart: a piped shell's sandbox carries the agent's start
// for the shims inside (/dev/.cordon-agent-since under bwrap), as a
// command's own sandbox does: the policy the shim makes for a session
// leaves it unset, and a sandbox made from it must set it (left 0, every
// file of the user's counted as written since the agent started, and a
// shim inside took none for installed software).
func TestPipedAgentStart(t *testing.T) {
	e := newHarness(t, "bwrap")
	s := e.start(t, "bash", "-s")
	s.send(`read -r since < /dev/.cordon-agent-since; echo "since=${since:-none}"`)
	var got string
	select {
	case got = <-s.lines:
	case <-time.After(10 * time.Second):
		t.Fatalf("no output\nstderr: %s", s.stderr)
	}
	s.noSandbox()
	v, ok := strings.CutPrefix(got, "since=")
	if !ok || v == "none" || v == "0" {
		t.Fatalf("the piped shell's sandbox carries %q as the agent's start\nstderr: %s", got, s.stderr)
	}
	if code := s.end(); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, s.stderr)
	}
}
