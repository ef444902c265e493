package battery

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"github.com/cordonsh/cordon/multicall"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/testenv"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/sessionbox"
	"github.com/cordonsh/cordon/shim"
)

var update = flag.Bool("u", false, "update testscript output files")

// shells are the shell names the scripts run cordon under.
var shells = []string{"bash", "sh", "dash", "zsh", "ksh"}

// requiredShells must be installed when CORDON_REQUIRE_SHELLS=1 (CI):
// there, a script skipped for want of one of them fails instead.
var requiredShells = []string{"bash", "sh", "dash", "zsh"}

func TestMain(m *testing.M) {
	cmds := map[string]func(){
		"cordon": func() { os.Exit(multicall.Main(os.Args)) },
		"same":   func() { os.Exit(sameMain(os.Args[1:])) },
		"status": func() { os.Exit(statusMain(os.Args[1:])) },
		"agent":  func() { os.Exit(agentMain(os.Args[1:])) },
		// The hidden roles the shim starts as /proc/self/exe.
		guard.Role:             func() { os.Exit(multicall.Main(os.Args)) },
		shim.SnapshotRole:      func() { os.Exit(multicall.Main(os.Args)) },
		sessionbox.ManagerRole: func() { os.Exit(multicall.Main(os.Args)) },
		sessionbox.KeeperRole:  func() { os.Exit(multicall.Main(os.Args)) },
		platform.NetRole:       func() { os.Exit(multicall.Main(os.Args)) },
	}
	for _, name := range shells {
		cmds[name] = func() { os.Exit(multicall.Main(os.Args)) }
	}
	if len(os.Args) > 1 && os.Args[1] == platform.SeatbeltRole {
		// sandbox-exec starts this binary by its path (macOS).
		os.Exit(multicall.Main(os.Args))
	}
	if _, command := cmds[filepath.Base(os.Args[0])]; command {
		testscript.Main(m, cmds)
	}
	// cordon refuses to run from a place sandboxed commands can write
	// (shim/selfcheck.go), and /tmp, where go test and testscript put
	// binaries, is one: the registered commands go elsewhere.
	base, err := outsideScratch()
	if err != nil && testenv.Nested() != "" {
		// Inside a sandbox (the suite run through cordon) only scratch
		// may be writable; the tests that need more skip as nested.
		base, err = os.MkdirTemp("", "cordon-test-")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testBase = base
	tmp, hadTmp := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", base)
	testscript.Main(runAndClean{m, func() {
		if hadTmp {
			os.Setenv("TMPDIR", tmp)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}, base}, cmds)
}

// testBase is a directory outside scratch space, made for this run: what
// cordon must find unwritable from inside the sandbox (its binary, its
// state and settings) is put there.
var testBase string

// ownBases holds, by test name, the directory that a subtest run beside
// its siblings (eachBackend) makes its directories in, instead of
// testBase.
var ownBases sync.Map

// ownBase is where t makes directories outside scratch space: its own
// directory if t or a parent test has one, else testBase.
func ownBase(t testing.TB) string {
	for name := t.Name(); ; {
		if dir, ok := ownBases.Load(name); ok {
			return dir.(string)
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return testBase
		}
		name = name[:i]
	}
}

// runAndClean runs the tests with TMPDIR as it was (testscript has made
// its commands' directory in testBase by then), then removes testBase.
type runAndClean struct {
	m       *testing.M
	restore func()
	base    string
}

func (r runAndClean) Run() int {
	r.restore()
	code := r.m.Run()
	os.RemoveAll(r.base)
	return code
}

func inScratch(dir string) bool {
	for _, s := range []string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/tmp", "/private/var/folders"} {
		if dir == s || strings.HasPrefix(dir, s+"/") {
			return true
		}
	}
	return false
}

// outsideScratch makes a directory outside /tmp, /var/tmp and /dev/shm:
// in the home directory, else in the package directory (a clone may be
// under /tmp too).
func outsideScratch() (string, error) {
	var candidates []string
	if home, err := os.UserHomeDir(); err == nil {
		candidates = append(candidates, home)
	}
	if wd, err := os.Getwd(); err == nil {
		candidates = append(candidates, wd)
	}
	for _, dir := range candidates {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || inScratch(real) {
			continue
		}
		if base, err := os.MkdirTemp(real, ".cordon-test-"); err == nil {
			return base, nil
		}
	}
	return "", fmt.Errorf("no directory outside /tmp, /var/tmp and /dev/shm to put the test binaries in (tried %q)", candidates)
}

// TestScripts runs testdata/script/*.txtar. Besides testscript's own, the
// scripts have these commands (registered binaries, run with exec):
//
//	same SHELL ARGS...       run SHELL ARGS through the cordon shim and through
//	                         the real /bin or /usr/bin SHELL with the same argv,
//	                         stdin, environment and directory; print the shim's
//	                         stdout and stderr; fail unless stdout, stderr and
//	                         exit status are byte-for-byte the same
//	status WANT PROG ARGS... run PROG ARGS with this process's stdio; fail unless
//	                         it ends with WANT: an exit code, or signal:NAME
//
// and these conditions:
//
//	[judge]       cordon's judge is real: rm -rf / is not allowed
//	[shell:NAME]  the real shell NAME is installed in /bin or /usr/bin
//	[root]        the tests run as root
//	[sandbox]     a sandbox backend runs here (CORDON_REQUIRE_SANDBOX=1: must)
func TestScripts(t *testing.T) {
	testenv.SkipNested(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup:               setupScript,
		Condition:           condition,
	})
}

// setupScript gives each script a home in $WORK, XDG directories of its
// own outside scratch space (cordon refuses settings and state that
// sandboxed commands could write), a fixed locale, and $SHIMBIN, the
// directory of the registered shims (first on PATH).
func setupScript(e *testscript.Env) error {
	own, err := os.MkdirTemp(testBase, "script-")
	if err != nil {
		return err
	}
	e.Defer(func() { os.RemoveAll(own) })
	dirs := map[string]string{
		"HOME":            filepath.Join(e.WorkDir, "home"),
		"XDG_CONFIG_HOME": filepath.Join(own, "config"),
		"XDG_STATE_HOME":  filepath.Join(own, "state"),
	}
	for key, p := range dirs {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		e.Setenv(key, p)
	}
	e.Setenv("OUTSIDE", own) // a directory outside scratch space
	e.Setenv("LC_ALL", "C")
	cordon, err := exec.LookPath("cordon")
	if err != nil {
		return fmt.Errorf("registered commands not on PATH: %v", err)
	}
	e.Setenv("SHIMBIN", filepath.Dir(cordon))
	return nil
}

func condition(cond string) (bool, error) {
	name, arg, _ := strings.Cut(cond, ":")
	switch name {
	case "judge":
		return judgeIsReal(), nil
	case "shell":
		return hasShell(arg)
	case "root":
		return os.Geteuid() == 0, nil
	case "sandbox":
		return hasSandbox()
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// hasSandbox reports whether a sandbox backend can run here; one that
// cannot is an error under CORDON_REQUIRE_SANDBOX=1 (CI).
func hasSandbox() (bool, error) {
	if why := testenv.Nested(); why != "" {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			return false, fmt.Errorf("%s (CORDON_REQUIRE_SANDBOX is set)", why)
		}
		return false, nil
	}
	_, err := decide.Confine(os.TempDir(), os.Environ(), &decide.ConfineOptions{Inspect: true})
	switch {
	case err == nil:
		return true, nil
	case os.Getenv("CORDON_REQUIRE_SANDBOX") != "":
		return false, fmt.Errorf("no sandbox here and CORDON_REQUIRE_SANDBOX is set: %v", err)
	}
	return false, nil
}

var judgeIsReal = sync.OnceValue(func() bool {
	j, err := decide.Check([]string{"rm", "-rf", "/"}, os.TempDir(), os.Environ())
	return err == nil && j.Verdict != rules.Allow
})

// hasShell reports whether the real shell name is installed. A required
// shell that is missing is an error in CI.
func hasShell(name string) (bool, error) {
	if realShell(name) != "" {
		return true, nil
	}
	if os.Getenv("CORDON_REQUIRE_SHELLS") == "1" && contains(requiredShells, name) {
		return false, fmt.Errorf("%s is not installed and CORDON_REQUIRE_SHELLS=1", name)
	}
	return false, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// realShell is the real shell called name, found independently of the
// code under test, or "".
func realShell(name string) string {
	for _, dir := range []string{"/bin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// A result is what a process did, for comparing two runs.
type result struct {
	stdout, stderr []byte
	status         string // "exit status 3", "signal: terminated"
}

// runArgv runs the program at path with argv (argv[0] as given), stdin,
// and this process's environment and directory.
func runArgv(path string, argv []string, stdin []byte) (result, error) {
	var out, errOut bytes.Buffer
	cmd := &exec.Cmd{Path: path, Args: argv, Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errOut}
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return result{}, err
	}
	return result{out.Bytes(), errOut.Bytes(), cmd.ProcessState.String()}, nil
}

// agentMain is the "agent" command (agent [-write FILE=TEXT] [-warm] PATH
// ARGV0 ARGS...): it stands for an agent process started at a moment a
// test chooses, running one command through PATH as its child once past
// the margin of its own start (an agent is older than its commands), and
// exits as that command did. With -write, its own file tool writes FILE
// (mode 0755) first, as an agent's editor tool does: never through cordon; the
// command then starts later than the margin the judge allows, so only
// the agent's own start tells the file from the user's. With -warm, it
// runs the command once before, its output and status dropped, so that
// the second is a later command of a session (whose manager is no longer
// a child of the first shim).
func agentMain(args []string) int {
	// An agent is older than its commands: a process that started within
	// the margin before one is passed over as the wrapper it ran the
	// command through (platform.AgentSince).
	time.Sleep(platform.InstalledMargin + 200*time.Millisecond)
	if len(args) > 1 && args[0] == "-write" {
		file, text, _ := strings.Cut(args[1], "=")
		if err := os.WriteFile(file, []byte(text), 0o755); err != nil {
			return fail("agent: %v", err)
		}
		os.Chmod(file, 0o755)
		time.Sleep(platform.InstalledMargin + 200*time.Millisecond)
		args = args[2:]
	}
	if len(args) > 0 && args[0] == "-warm" {
		args = args[1:]
		if len(args) < 2 {
			return fail("usage: agent [-write FILE=TEXT] [-warm] PATH ARGV0 ARGS...")
		}
		warm := &exec.Cmd{Path: args[0], Args: args[1:]}
		if err := warm.Run(); err != nil {
			return fail("agent: the first command: %v", err)
		}
	}
	if len(args) < 2 {
		return fail("usage: agent [-write FILE=TEXT] [-warm] PATH ARGV0 ARGS...")
	}
	cmd := &exec.Cmd{Path: args[0], Args: args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return fail("agent: %v", err)
	}
	return 0
}

// sameMain is the "same" command. The shim is given argv[0] as it is
// here, a bare name, because testscript passes registered commands their
// base name anyway.
func sameMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: same SHELL ARGS...")
		return 2
	}
	stdin, err := io.ReadAll(os.Stdin)
	if err != nil {
		return fail("same: reading stdin: %v", err)
	}
	shimPath, err := exec.LookPath(args[0])
	if err != nil {
		return fail("same: the shim: %v", err)
	}
	realPath := realShell(args[0])
	if realPath == "" {
		return fail("same: no real %s in /bin or /usr/bin", args[0])
	}
	viaShim, err := runArgv(shimPath, args, stdin)
	if err != nil {
		return fail("same: running the shim: %v", err)
	}
	real, err := runArgv(realPath, args, stdin)
	if err != nil {
		return fail("same: running %s: %v", realPath, err)
	}
	os.Stdout.Write(viaShim.stdout)
	os.Stderr.Write(viaShim.stderr)
	return compare(viaShim, real)
}

func compare(viaShim, real result) int {
	code := 0
	if viaShim.status != real.status {
		fmt.Fprintf(os.Stderr, "same: status differs: shim %s, real shell %s\n", viaShim.status, real.status)
		code = 1
	}
	if !bytes.Equal(viaShim.stdout, real.stdout) {
		fmt.Fprintf(os.Stderr, "same: stdout differs:\nshim: %q\nreal: %q\n", viaShim.stdout, real.stdout)
		code = 1
	}
	if !bytes.Equal(viaShim.stderr, real.stderr) {
		fmt.Fprintf(os.Stderr, "same: stderr differs:\nshim: %q\nreal: %q\n", viaShim.stderr, real.stderr)
		code = 1
	}
	return code
}

// statusMain is the "status" command.
func statusMain(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: status WANT PROG ARGS...")
		return 2
	}
	want, argv := args[0], args[1:]
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return fail("status: %v", err)
	}
	if got := statusOf(cmd.ProcessState); got != want {
		return fail("status: %s ended with %s, want %s", argv[0], got, want)
	}
	return 0
}

// statusOf is "3" for an exit status, "signal:TERM" for a death by signal.
func statusOf(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return "signal:" + strings.TrimPrefix(signalName(ws.Signal()), "SIG")
	}
	return strconv.Itoa(ps.ExitCode())
}

func signalName(sig syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGTERM: "TERM", syscall.SIGKILL: "KILL", syscall.SIGINT: "INT",
		syscall.SIGHUP: "HUP", syscall.SIGQUIT: "QUIT", syscall.SIGABRT: "ABRT",
	}
	if n, ok := names[sig]; ok {
		return n
	}
	return strconv.Itoa(int(sig))
}

func fail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	return 1
}

// shimLinks holds, by test and name, the links linkShim made.
var (
	shimLinksMu sync.Mutex
	shimLinks   = map[shimKey]string{}
)

type shimKey struct {
	t    testing.TB
	name string
}

// linkShim makes the test binary reachable as a shell called name, in a
// directory of its own, and returns its path: the same path for every
// call of a test with that name. A new directory per command, made in
// the directory that holds the test's home, would change a Landlock
// session's key (it holds the names on the way to the hidden paths) and
// so replace the session at every command.
func linkShim(t testing.TB, name string) string {
	t.Helper()
	testenv.SkipNested(t)
	shimLinksMu.Lock()
	defer shimLinksMu.Unlock()
	key := shimKey{t, name}
	if p, ok := shimLinks[key]; ok {
		return p
	}
	// testscript's copy, outside scratch space like p: cordon refuses
	// to run from a place sandboxed commands can write.
	self, err := exec.LookPath("cordon")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(ownBase(t), "shim-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := filepath.Join(dir, name)
	if err := os.Link(self, p); err != nil {
		t.Skipf("cannot link the test binary: %v", err)
	}
	shimLinks[key] = p
	t.Cleanup(func() {
		shimLinksMu.Lock()
		delete(shimLinks, key)
		shimLinksMu.Unlock()
	})
	return p
}

func needShell(t testing.TB, name string) string {
	t.Helper()
	ok, err := hasShell(name)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skipf("%s is not installed", name)
	}
	return realShell(name)
}

// fdResult is what a shell printed and wrote to fd 4, given fd 3.
func runWithFDs(t *testing.T, path string, argv []string) string {
	t.Helper()
	r3, w3, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r4, w4, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w3.WriteString("from fd 3\n")
	w3.Close()
	cmd := &exec.Cmd{Path: path, Args: argv, ExtraFiles: []*os.File{r3, w4}}
	out, err := cmd.CombinedOutput()
	r3.Close()
	w4.Close()
	fd4, _ := io.ReadAll(r4)
	r4.Close()
	return fmt.Sprintf("output: %q\nerr: %v\nfd 4: %q", out, err, fd4)
}

// TestInheritedFDs checks that fds beyond stdio reach the real shell with
// their numbers, as Cursor's fd 3/fd 4 protocol needs.
func TestInheritedFDs(t *testing.T) {
	real := needShell(t, "bash")
	shimPath := linkShim(t, "bash")
	argv := []string{"bash", "-c", `read -r line <&3; echo "got: $line"; echo "to fd 4: $0 $1" >&4`, "zero", "one"}
	got := runWithFDs(t, shimPath, argv)
	want := runWithFDs(t, real, argv)
	if got != want {
		t.Fatalf("through the shim:\n%s\nreal bash:\n%s", got, want)
	}
	if !strings.Contains(got, "from fd 3") || !strings.Contains(got, "to fd 4: zero one") {
		t.Fatalf("fds not passed:\n%s", got)
	}
}
