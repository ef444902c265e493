//go:build linux

package battery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/snapshot"
)

// The decision point end to end, with the real binary: approvals, the
// audit log, the reviewer and the messages of refusals.

// A decideEnv is a fake home, settings and state outside every writable
// path, a git workspace, a `deploy` program on PATH that appends a line
// to deployed.txt in the directory it runs in, and a user rule that asks
// about `deploy --env prod`.
type decideEnv struct {
	*harness
	shim, cordon, state string
}

const deployRule = `version: 1
commands:
  deploy:
    value_options: [--env]
    effects:
      - {effect: exec, targets: none, value_of: [--env], when_value: [prod]}
    operands: none
policies:
  - id: deploy-prod
    effect: [exec]
    target: [none]
    verdict: ask
    category: outside
    message: "{line} deploys to production"
`

func newDecideEnv(t *testing.T, backend, settings string) *decideEnv {
	t.Helper()
	s := newHarness(t, backend)
	e := &decideEnv{harness: s, shim: linkShim(t, "bash"), cordon: linkShim(t, "cordon"), state: filepath.Join(s.base, "state", "cordon")}
	bin := filepath.Join(s.base, "bin")
	os.MkdirAll(bin, 0o755)
	os.MkdirAll(s.rules, 0o755)
	mustWrite(t, filepath.Join(bin, "deploy"), "#!/bin/sh\necho \"deployed $*\" >> deployed.txt\n", 0o755)
	mustWrite(t, filepath.Join(s.rules, "deploy.yaml"), deployRule, 0o644)
	if settings != "" {
		f, _ := os.OpenFile(filepath.Join(s.config, "cordon", "config.yaml"), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(settings)
		f.Close()
	}
	for i, kv := range s.env {
		if strings.HasPrefix(kv, "PATH=") {
			s.env[i] = "PATH=" + filepath.Dir(e.shim) + ":" + filepath.Dir(e.cordon) + ":" + bin + ":" + kv[5:]
		}
	}
	git := exec.Command("git", "init", "-q")
	git.Dir = s.ws
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	// The continuous snapshot saver outlives the shim; the workspace is
	// removed only once it is done with it.
	t.Cleanup(func() { snapshot.Open(e.state, snapshot.Budgets{}).WaitPending(s.ws) })
	return e
}

func mustWrite(t *testing.T, name, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// sh runs the shim as bash -c script in the workspace; it returns stderr
// and the exit status. A sandbox that cannot run skips or fails the test
// as the battery does.
func (e *decideEnv) sh(t *testing.T, script string, extraEnv ...string) (string, int) {
	t.Helper()
	cmd := &exec.Cmd{Path: e.shim, Args: []string{"bash", "-c", script}, Dir: e.ws, Env: append(append([]string{}, e.env...), extraEnv...)}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Run()
	if strings.Contains(errb.String(), "no sandbox (") {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox:\n%s", errb.String())
		}
		t.Skipf("no sandbox:\n%s", errb.String())
	}
	return errb.String(), cmd.ProcessState.ExitCode()
}

// run runs cordon with args, stdin (nil: /dev/null) and the env.
func (e *decideEnv) run(t *testing.T, stdin *os.File, args ...string) (string, string, int) {
	t.Helper()
	cmd := &exec.Cmd{Path: e.cordon, Args: append([]string{"cordon"}, args...), Dir: e.ws, Env: e.env, Stdin: stdin}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func (e *decideEnv) deployed(t *testing.T) int {
	data, err := os.ReadFile(filepath.Join(e.ws, "deployed.txt"))
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}

var approveID = regexp.MustCompile("`cordon approve ([0-9a-f]{8})`")

// askID runs the ask and returns the id its refusal printed.
func (e *decideEnv) askID(t *testing.T, script string) string {
	t.Helper()
	stderr, code := e.sh(t, script)
	m := approveID.FindStringSubmatch(stderr)
	if code != 126 || m == nil {
		t.Fatalf("%s: exit %d, want 126 with an approval id; stderr:\n%s", script, code, stderr)
	}
	return m[1]
}

// openPTY opens a pseudo-terminal and returns its terminal side (the
// one a program reads as its stdin) and the controlling side.
func openPTY(t *testing.T) (tty, ptmx *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	ptmx = os.NewFile(uintptr(fd), "/dev/ptmx")
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close(); ptmx.Close() })
	return tty, ptmx
}

// TestApproveOnce: an ask prints its id; cordon approve ID, from a
// terminal, lets the retried command run once: of two retries racing,
// one runs; the next asks again.
func TestApproveOnce(t *testing.T) {
	e := newDecideEnv(t, "auto", "")
	id := e.askID(t, "deploy --env prod")
	if n := e.deployed(t); n != 0 {
		t.Fatalf("the ask ran %d times", n)
	}
	out, _, code := e.run(t, nil, "pending")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "deploy --env prod") {
		t.Fatalf("cordon pending: exit %d:\n%s", code, out)
	}
	tty, _ := openPTY(t)
	out, stderr, code := e.run(t, tty, "approve", id)
	if code != 0 || !strings.Contains(out, "approved once") {
		t.Fatalf("cordon approve from a terminal: exit %d\n%s%s", code, out, stderr)
	}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, codes[i] = e.sh(t, "deploy --env prod")
		}()
	}
	wg.Wait()
	if n := e.deployed(t); n != 1 {
		t.Fatalf("after one approval the command ran %d times (exits %v), want once", n, codes)
	}
	if !(codes[0] == 0 && codes[1] == 126 || codes[0] == 126 && codes[1] == 0) {
		t.Fatalf("racing retries exited %v, want one 0 and one 126", codes)
	}
	if _, code := e.sh(t, "deploy --env prod"); code != 126 || e.deployed(t) != 1 {
		t.Fatalf("a third retry exited %d, ran %d times in all; an approval is used once", code, e.deployed(t))
	}
	// The log says which approval ran it.
	out, _, _ = e.run(t, nil, "log", "--json")
	if !strings.Contains(out, `"approval":"`+id+`"`) {
		t.Errorf("the log does not record approval %s:\n%s", id, out)
	}
}

// TestApproveOnlyByAPerson: approve is refused without a terminal,
// through the shim, and inside the sandbox (with a terminal); the ask
// stays pending and nothing runs.
func TestApproveOnlyByAPerson(t *testing.T) {
	e := newDecideEnv(t, "auto", "")
	id := e.askID(t, "deploy --env prod")
	if _, stderr, code := e.run(t, nil, "approve", id); code == 0 || !strings.Contains(stderr, "not a terminal") {
		t.Errorf("approve without a terminal: exit %d: %s", code, stderr)
	}
	if stderr, code := e.sh(t, "cordon approve "+id); code != 126 || !strings.Contains(stderr, "self-policy") {
		t.Errorf("approve through the shim: exit %d: %s", code, stderr)
	}
	tty, _ := openPTY(t)
	_, stderr, code := e.run(t, tty, "run", "--", e.cordon, "approve", id)
	if strings.Contains(stderr, "no sandbox (") {
		t.Skipf("no sandbox: %s", stderr)
	}
	if code == 0 || !strings.Contains(stderr, "inside a sandbox") {
		t.Errorf("approve inside the sandbox with a terminal: exit %d: %s", code, stderr)
	}
	if _, code := e.sh(t, "deploy --env prod"); code != 126 || e.deployed(t) != 0 {
		t.Fatalf("after refused approvals the command exited %d and ran %d times", code, e.deployed(t))
	}
}

// TestDenyNotApprovable: a deny prints no id, is not pending, and no id
// approves it.
func TestDenyNotApprovable(t *testing.T) {
	e := newDecideEnv(t, "auto", "")
	stderr, code := e.sh(t, "rm -rf ~")
	if code != 126 || approveID.MatchString(stderr) || !strings.Contains(stderr, "refused (deny") {
		t.Fatalf("rm -rf ~: exit %d, want a deny without an approval id:\n%s", code, stderr)
	}
	out, _, _ := e.run(t, nil, "pending")
	if strings.Contains(out, "rm -rf") {
		t.Fatalf("a deny is pending:\n%s", out)
	}
	entries, _ := filepath.Glob(filepath.Join(e.state, "approvals", "pending", "*.json"))
	tty, _ := openPTY(t)
	for _, f := range entries {
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		e.run(t, tty, "approve", id)
	}
	if _, stderr, code := e.run(t, tty, "approve", "00000000"); code == 0 {
		t.Errorf("approve of an unknown id succeeded: %s", stderr)
	}
	if stderr, code := e.sh(t, "rm -rf ~"); code != 126 || !strings.Contains(stderr, "refused (deny") {
		t.Fatalf("the deny did not stand: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(e.home); err != nil {
		t.Fatalf("the home directory is gone: %v", err)
	}
}

// TestApproveAlwaysHere: --always-here writes a user rule, shows it, and
// the command then runs every time in that directory, and still asks in
// another.
func TestApproveAlwaysHere(t *testing.T) {
	e := newDecideEnv(t, "auto", "")
	id := e.askID(t, "deploy --env prod")
	tty, _ := openPTY(t)
	out, stderr, code := e.run(t, tty, "approve", "--always-here", id)
	rule := filepath.Join(e.rules, "approved.yaml")
	if code != 0 || !strings.Contains(out, rule) || !strings.Contains(out, "deploy --env prod") {
		t.Fatalf("approve --always-here: exit %d\n%s%s", code, out, stderr)
	}
	data, err := os.ReadFile(rule)
	if err != nil || !strings.Contains(string(data), "approved:") {
		t.Fatalf("%s: %v\n%s", rule, err, data)
	}
	for range 2 {
		if stderr, code := e.sh(t, "deploy --env prod"); code != 0 {
			t.Fatalf("after --always-here: exit %d\n%s", code, stderr)
		}
	}
	if n := e.deployed(t); n != 2 {
		t.Fatalf("ran %d times, want 2", n)
	}
	out, _, code = e.run(t, nil, "rules", "lint")
	if code != 0 {
		t.Errorf("cordon rules lint fails on the written rule:\n%s", out)
	}
	sub := filepath.Join(e.ws, "sub")
	os.Mkdir(sub, 0o755)
	cmd := &exec.Cmd{Path: e.shim, Args: []string{"bash", "-c", "deploy --env prod"}, Dir: sub, Env: e.env}
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 126 {
		t.Errorf("the rule allowed the command in another directory: %v", err)
	}
}

// TestAuditLogConcurrent: 200 shims at once leave 200 whole records, one
// per line, which cordon log shows; credential values are masked.
func TestAuditLogConcurrent(t *testing.T) {
	e := newDecideEnv(t, "none", "")
	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out []byte
			var err error
			for try := 0; try < 100; try++ {
				cmd := &exec.Cmd{Path: e.shim, Args: []string{"bash", "-c", fmt.Sprintf("DB_PASSWORD=hunter2-%d true # shim %d", i, i)}, Dir: e.ws, Env: e.env}
				if out, err = cmd.CombinedOutput(); !errors.Is(err, syscall.EAGAIN) {
					break // EAGAIN: the machine's process limit, not cordon
				}
				time.Sleep(50 * time.Millisecond)
			}
			// On a loaded machine the judge's time budget may turn
			// some into asks: the log must hold them all the same.
			if err != nil && !strings.Contains(string(out), "[rule budget]") {
				t.Errorf("shim %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(filepath.Join(e.state, "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	lines, allowed := 0, 0
	for sc.Scan() {
		lines++
		var d decision.Decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("line %d is not a whole record: %v\n%s", lines, err, sc.Text())
		}
		if d.Verdict == decision.Allow {
			allowed++
		}
		if d.Verdict == decision.Allow && d.Backend != "none" {
			t.Errorf("line %d: backend %q, want none", lines, d.Backend)
		}
		if d.Shell != "bash" || d.Dir != e.ws || d.Parent.PID != os.Getpid() || !strings.Contains(d.Command, "DB_PASSWORD=*** true") {
			t.Errorf("line %d: %+v", lines, d)
		}
		seen[d.Command] = true
	}
	if lines != n || len(seen) != n {
		t.Fatalf("%d lines, %d distinct commands; want %d", lines, len(seen), n)
	}
	if bytes.Contains(data, []byte("hunter2")) {
		t.Fatal("a credential value is in the log")
	}
	out, _, code := e.run(t, nil, "log", "--since", "1h")
	if code != 0 || strings.Count(out, "\n") != n+1 || !strings.Contains(out, "DB_PASSWORD=*** true # shim 7'") {
		t.Fatalf("cordon log: exit %d, %d lines:\n%.2000s", code, strings.Count(out, "\n"), out)
	}
	out, _, code = e.run(t, nil, "log", "--verdict", "allow")
	if code != 0 || strings.Count(out, "\n") != allowed+1 {
		t.Fatalf("cordon log: exit %d, %d lines:\n%.2000s", code, strings.Count(out, "\n"), out)
	}
	if out, _, _ := e.run(t, nil, "log", "--verdict", "deny"); strings.Count(out, "\n") != 1 {
		t.Fatalf("cordon log --verdict deny shows allowed records:\n%.500s", out)
	}
}

// TestReviewer: the reviewer named in the settings settles an ask: allow
// runs the command, deny refuses it, and garbage keeps the ask.
func TestReviewer(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		code, runs   int
	}{
		{"allow", `{"verdict": "allow", "reason": "staging only"}`, 0, 1},
		{"deny", `{"verdict": "deny", "reason": "not today"}`, 126, 0},
		{"garbage", `sure, go ahead`, 126, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newDecideEnv(t, "auto", "")
			reviewer := filepath.Join(e.base, "bin", "reviewer")
			seen := filepath.Join(e.base, "request.json")
			mustWrite(t, reviewer, "#!/bin/sh\ncat > "+seen+"\necho '"+tt.answer+"'\n", 0o755)
			f, _ := os.OpenFile(filepath.Join(e.config, "cordon", "config.yaml"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("reviewer:\n  command: [" + reviewer + "]\n  timeout: 5s\n")
			f.Close()
			os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("x"), 0o644)
			stderr, code := e.sh(t, "deploy --env prod")
			if code != tt.code || e.deployed(t) != tt.runs {
				t.Fatalf("exit %d, ran %d times; want %d, %d\n%s", code, e.deployed(t), tt.code, tt.runs, stderr)
			}
			req, err := os.ReadFile(seen)
			if err != nil || !strings.Contains(string(req), `"command":"bash -c 'deploy --env prod'"`) || !strings.Contains(string(req), `?? notes.txt`) {
				t.Fatalf("the reviewer's request: %v\n%s", err, req)
			}
			out, _, _ := e.run(t, nil, "log", "--json")
			if !strings.Contains(out, `"reviewer":{"verdict":`) {
				t.Errorf("the log lacks the reviewer's answer:\n%s", out)
			}
		})
	}
}

// TestNestedRefusalMessage: a shell started by an allowed, running
// command says that the command around it ran.
func TestNestedRefusalMessage(t *testing.T) {
	e := newDecideEnv(t, "auto", "")
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("needs perl")
	}
	// A program the judge does not read, which starts bash from PATH:
	// the shim, nested.
	mustWrite(t, filepath.Join(e.ws, "inner.pl"), `system("bash", "-c", "rm -rf ~");`+"\n", 0o644)
	stderr, code := e.sh(t, "echo outer > outer.txt; perl inner.pl")
	if _, err := os.Stat(filepath.Join(e.ws, "outer.txt")); err != nil {
		t.Fatalf("the outer command did not run (exit %d): %v\n%s", code, err, stderr)
	}
	if strings.Contains(stderr, "nothing was run") || !strings.Contains(stderr, "this inner command was not run; the command around it did run") {
		t.Fatalf("the nested refusal does not tell the truth:\n%s", stderr)
	}
	if !strings.Contains(stderr, filepath.Join(e.config, "cordon", "rules")+"/") {
		t.Errorf("the refusal does not name the rules directory:\n%s", stderr)
	}
}
