package platform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A trampJob is what trampHelper runs: N one-shot commands under bwrap
// (path, with argv, "{i}" in it replaced by the command's number), each
// with a policy made afresh, in this process's standard streams.
type trampJob struct {
	Root, WS, State string
	Path            string
	Argv            []string
	N               int
	// Starts, when set, is a file the number of bwrap's starts is
	// written to.
	Starts string
	// Tramp, when set, is the trampoline's path ([testTrampoline]).
	Tramp string
	// Release lets go of standard output once the command has started
	// for good ([Child.Settled]), as cordon's guard process does: it is
	// /dev/null from then on, until the command has ended.
	Release bool
	// Limits are the policy's.
	Limits Limits
}

// trampHelper is this test binary run by runTramp (CORDON_TEST_TRAMP
// holds the job): it ends the way the last command ended.
func trampHelper() int {
	var j trampJob
	if err := json.Unmarshal([]byte(os.Getenv("CORDON_TEST_TRAMP")), &j); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 200
	}
	starts := 0
	bwrapStarting = func() { starts++ }
	testTrampoline = j.Tramp
	var ws uint32
	for i := range max(j.N, 1) {
		p := &Policy{Workspace: j.WS, Scratch: []string{j.Root}, Writable: []string{j.WS}, Network: NetworkOff, Limits: j.Limits}
		b, err := newBwrap(p, j.State)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 201
		}
		argv := make([]string, len(j.Argv))
		for k, a := range j.Argv {
			argv[k] = strings.ReplaceAll(a, "{i}", strconv.Itoa(i))
		}
		c, err := b.Start(j.Path, argv, []string{"PATH=/usr/bin:/bin"}, os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 202
		}
		out := -1
		if j.Release {
			<-c.Settled()
			out, _ = unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
			null, _ := unix.Open(os.DevNull, unix.O_WRONLY|unix.O_CLOEXEC, 0)
			unix.Dup2(null, 1)
			unix.Close(null)
		}
		c.Wait()
		if out >= 0 {
			unix.Dup2(out, 1)
			unix.Close(out)
		}
		ws = c.WaitStatus()
	}
	if j.Starts != "" {
		os.WriteFile(j.Starts, []byte(strconv.Itoa(starts)), 0o600)
	}
	ExitLike(ws)
	return 203
}

// bwrapOrSkip skips the test where bwrap cannot run.
func bwrapOrSkip(t *testing.T) {
	t.Helper()
	if _, err := newBwrap(&Policy{Network: NetworkOff}, t.TempDir()); err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// runTramp runs job j in a process of its own whose standard error is
// stderr and other descriptors extra (3 on); it returns the process's
// standard output and its end.
func runTramp(t *testing.T, j trampJob, stderr *os.File, extra ...*os.File) (string, *os.ProcessState) {
	t.Helper()
	data, _ := json.Marshal(j)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CORDON_TEST_TRAMP="+string(data))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = &out, stderr, extra
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), cmd.ProcessState
}

// trampDirs makes a root in /tmp with a workspace in it, and a state
// directory.
func trampDirs(t *testing.T) trampJob {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return trampJob{Root: root, WS: ws, State: t.TempDir()}
}

// TestBwrapStderrThroughChurn runs one-shot commands while directories
// holding Unix sockets come and go in the scratch directory, a few
// milliseconds each (another program's in /tmp): bwrap fails to set up
// the sandbox when one goes while it mounts, and is started again. Every
// command must run once, and the standard error must hold exactly what
// the commands wrote: none of bwrap's lines about a missing path. The
// caller lets go of its standard output once the command has started
// for good, as the guard process does: a command started again must
// still have it.
func TestBwrapStderrThroughChurn(t *testing.T) {
	bwrapOrSkip(t)
	j := trampDirs(t)
	var stop atomic.Bool
	var wg sync.WaitGroup
	// One at a time, 3 ms each, as docs/sandbox.md's measurement.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; !stop.Load(); n++ {
			dir := filepath.Join(j.Root, fmt.Sprintf("churn-%d", n))
			if os.Mkdir(dir, 0o700) != nil {
				continue
			}
			l, err := net.Listen("unix", filepath.Join(dir, "s.sock"))
			time.Sleep(3 * time.Millisecond)
			if err == nil {
				l.Close()
			}
			os.RemoveAll(dir)
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	j.Path, j.Argv = "/bin/sh", []string{"sh", "-c", "echo out-{i}; echo err-{i} >&2"}
	j.Starts = filepath.Join(t.TempDir(), "starts")
	j.Release = true
	total, again := 0, 0
	var wantOut, wantErr strings.Builder
	var gotOut string
	var gotErr []byte
	// Batches until bwrap had to be started again a few times (it
	// usually is in the first).
	for batch := 0; batch < 5 && again < 5; batch++ {
		j.N = 60
		errFile, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		out, st := runTramp(t, j, errFile)
		errFile.Close()
		if st.ExitCode() != 0 {
			data, _ := os.ReadFile(errFile.Name())
			t.Fatalf("exit %v\n%s", st, data)
		}
		data, _ := os.ReadFile(errFile.Name())
		gotOut += out
		gotErr = append(gotErr, data...)
		for i := range j.N {
			fmt.Fprintf(&wantOut, "out-%d\n", i)
			fmt.Fprintf(&wantErr, "err-%d\n", i)
		}
		s, _ := os.ReadFile(j.Starts)
		n, _ := strconv.Atoi(string(s))
		total += j.N
		again += n - j.N
	}
	t.Logf("%d commands, bwrap started again %d times", total, again)
	if gotOut != wantOut.String() {
		t.Errorf("standard output:\n%s\nwant:\n%s", gotOut, wantOut.String())
	}
	if string(gotErr) != wantErr.String() {
		var stray []string
		for _, l := range strings.Split(string(gotErr), "\n") {
			if !strings.HasPrefix(l, "err-") && l != "" {
				stray = append(stray, l)
			}
		}
		t.Errorf("standard error has %d lines that are not the commands' (bwrap started again %d times of %d):\n%s", len(stray), again, total, strings.Join(stray, "\n"))
	}
	if again == 0 {
		t.Log("no start of bwrap failed: the churn did not hit the set-up this time")
	}
}

// TestBwrapProgramStreams checks what the program gets through the
// trampoline, the same as without it: the caller's standard error itself
// (a file, a terminal), the caller's other descriptors and none more,
// argv[0] exactly, its exit status or death by signal; and a program that
// cannot run says so.
func TestBwrapProgramStreams(t *testing.T) {
	bwrapOrSkip(t)
	j := trampDirs(t)
	if trampoline(j.State) == "" {
		t.Fatal("no trampoline in the state directory")
	}
	newErr := func() *os.File {
		f, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	readErr := func(f *os.File) string {
		data, _ := os.ReadFile(f.Name())
		return string(data)
	}
	devIno := func(f *os.File) string {
		var st unix.Stat_t
		unix.Fstat(int(f.Fd()), &st)
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	// The descriptors the program has, as the shell sees them, with the
	// trampoline and without (no state directory).
	fds := func(state string) string {
		j := j
		j.State = state
		// (No pipe: the shell would hold its descriptors meanwhile.)
		j.Path, j.Argv = "/bin/sh", []string{"sh", "-c", `ls -1 /proc/$$/fd`}
		null, _ := os.Open(os.DevNull)
		defer null.Close()
		out, st := runTramp(t, j, newErr(), null, nil, null) // 3 and 5: the agent's
		if st.ExitCode() != 0 {
			t.Fatalf("exit %v", st)
		}
		n := strings.Fields(out)
		slices.SortFunc(n, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
		return strings.Join(n, " ")
	}
	// (This process's own inherited descriptors, not close-on-exec,
	// are the program's too: compared with and without.)
	with, without := fds(j.State), fds("")
	if with != without || !strings.HasPrefix(with, "0 1 2 3 5") {
		t.Errorf("the program's descriptors: %q, without the trampoline %q; want 0 1 2 3 5 and this process's", with, without)
	}

	// Standard error: the caller's file, and what the program writes.
	f := newErr()
	j.Path, j.Argv = "/bin/sh", []string{"sh", "-c", `stat -L -c %d:%i /proc/self/fd/2; echo to-stderr >&2`}
	out, st := runTramp(t, j, f)
	if st.ExitCode() != 0 || out != devIno(f)+"\n" || readErr(f) != "to-stderr\n" {
		t.Errorf("exit %v, the program's fd 2 %q (want %s), stderr %q", st, out, devIno(f), readErr(f))
	}

	// The same through this binary setting resource limits first.
	f = newErr()
	j.Limits = Limits{Files: 512}
	j.Argv = []string{"sh", "-c", `stat -L -c %d:%i /proc/self/fd/2; ulimit -n; echo to-stderr >&2`}
	out, st = runTramp(t, j, f)
	if st.ExitCode() != 0 || out != devIno(f)+"\n512\n" || readErr(f) != "to-stderr\n" {
		t.Errorf("with limits: exit %v, output %q (want %s and 512), stderr %q", st, out, devIno(f), readErr(f))
	}
	j.Limits = Limits{}

	// A terminal as standard error stays the program's terminal.
	master, slave, err := openTerminal()
	if err != nil {
		t.Logf("no terminal: %v", err)
	} else {
		defer master.Close()
		defer slave.Close()
		j.Argv = []string{"sh", "-c", `stat -L -c %d:%i /proc/self/fd/2; [ -t 2 ] && echo terminal`}
		out, st := runTramp(t, j, slave)
		if st.ExitCode() != 0 || out != devIno(slave)+"\nterminal\n" {
			t.Errorf("with a terminal: exit %v, output %q, want %s and terminal", st, out, devIno(slave))
		}
	}

	// argv[0] exactly: a login shell's, a name that is not the path's.
	for _, argv0 := range []string{"-sh", "a-name"} {
		j.Argv = []string{argv0, "-c", `tr '\0' ' ' </proc/$$/cmdline`, "x"}
		out, st := runTramp(t, j, newErr())
		if want := argv0 + " -c " + j.Argv[2] + " x "; st.ExitCode() != 0 || out != want {
			t.Errorf("argv %q: exit %v, the program saw %q", j.Argv, st, out)
		}
	}

	// Exit status, and death by signal.
	j.Argv = []string{"sh", "-c", "exit 3"}
	if _, st := runTramp(t, j, newErr()); st.ExitCode() != 3 {
		t.Errorf("exit 3: %v", st)
	}
	j.Argv = []string{"sh", "-c", "kill -TERM $$"}
	if _, st := runTramp(t, j, newErr()); st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("killed by SIGTERM: %v", st)
	}

	// A program that is not there.
	f = newErr()
	j.Path, j.Argv = "/no/such/program", []string{"program"}
	if _, st := runTramp(t, j, f); st.ExitCode() != 127 || readErr(f) != "cordon: /no/such/program: not found\n" {
		t.Errorf("a missing program: %v, stderr %q", st, readErr(f))
	}
}

// TestBwrapTrampolineNotExecuted gives bwrap a trampoline it cannot
// execute in the sandbox: the program runs all the same, without it,
// and bwrap's line about it is not on the standard error.
func TestBwrapTrampolineNotExecuted(t *testing.T) {
	bwrapOrSkip(t)
	j := trampDirs(t)
	j.Path, j.Argv, j.Tramp = "/bin/sh", []string{"sh", "-c", "echo ran; echo to-stderr >&2"}, "/etc/passwd"
	j.Starts = filepath.Join(t.TempDir(), "starts")
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, st := runTramp(t, j, f)
	data, _ := os.ReadFile(f.Name())
	starts, _ := os.ReadFile(j.Starts)
	if st.ExitCode() != 0 || out != "ran\n" || string(data) != "to-stderr\n" || string(starts) != "2" {
		t.Errorf("exit %v, stdout %q, stderr %q, %s starts of bwrap (want 2)", st, out, data, starts)
	}
}

// TestTrampolineFallsBack checks when bwrap runs the program itself: no
// state directory, a trampoline the sandbox hides, a file system that
// executes nothing; and that a changed file is written again.
func TestTrampolineFallsBack(t *testing.T) {
	if trampolineELF(runtime.GOARCH) == nil {
		t.Skip("no trampoline for this architecture")
	}
	if trampoline("") != "" || trampoline("relative") != "" {
		t.Error("a trampoline without a state directory")
	}
	state := t.TempDir()
	p := trampoline(state)
	if p == "" {
		t.Fatal("no trampoline")
	}
	os.Chmod(p, 0o755)
	os.WriteFile(p, []byte("changed"), 0o755)
	if q := trampoline(state); q != p || !holdsExactly(p, trampolineELF(runtime.GOARCH)) {
		t.Errorf("a changed trampoline was not written again: %q", q)
	}
	pol := &Policy{Hidden: []string{state}}
	if !pol.hides(p) {
		t.Error("a trampoline in a hidden directory is not hidden")
	}
	pol = &Policy{Scratch: []string{"/tmp"}, PrivateTmp: true}
	if !pol.hides("/tmp/x/cordon-stderr") || pol.hides(p) && !strings.HasPrefix(p, "/tmp/") {
		t.Error("a private /tmp")
	}
	if (&Policy{Scratch: []string{"/tmp"}}).hides("/tmp/x/cordon-stderr") {
		t.Error("a shared /tmp hides")
	}
	// noexec: /dev/shm usually is; skipped where it is not.
	var sfs unix.Statfs_t
	if unix.Statfs("/dev/shm", &sfs) == nil && sfs.Flags&unix.ST_NOEXEC != 0 {
		dir, err := os.MkdirTemp("/dev/shm", "cordon-tramp")
		if err == nil {
			defer os.RemoveAll(dir)
			if q := trampoline(dir); q != "" {
				t.Errorf("a trampoline on a noexec file system: %s", q)
			}
		}
	}
}

// openTerminal returns a new pseudo-terminal's two ends.
func openTerminal() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(master.Fd())
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	}
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}
