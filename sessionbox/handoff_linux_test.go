package sessionbox

import (
	"os"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkHandOff guards the cost of a command's hand-off to the keeper
// (the stage between the session's socket and the shell): the request
// encoded with its descriptors (standard input, output and error) over a
// Unix socket, decoded by the keeper, the shell forked and exec'd
// (/bin/true here) in a process group of its own, and its end waited
// for. The manager's ticket and the judging are benchmarked in their own
// packages (guard's BenchmarkHoldRelease, decide's BenchmarkConfineCached
// and BenchmarkShimJudgeTypical).
func BenchmarkHandOff(b *testing.B) {
	shell := "/bin/true"
	if _, err := os.Stat(shell); err != nil {
		b.Skip(err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	fd := int(null.Fd())
	env := append(os.Environ(), "CORDON_BENCH=1")
	// The keeper forks from one thread (see KeeperMain).
	k := &keeper{forks: make(chan func())}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		runtime.LockOSThread()
		for {
			select {
			case fork := <-k.forks:
				fork()
			case <-stop:
				return
			}
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			b.Fatal(err)
		}
		req := &request{Path: shell, Argv: []string{"bash", "-c", "true"}, Env: env, Dir: "/", Umask: 0o022, FDs: []int{0, 1, 2}}
		if err := sendRequest(pair[0], req, []int{fd, fd, fd}); err != nil {
			b.Fatal(err)
		}
		got, fds, err := recvRequest(pair[1])
		if err != nil {
			b.Fatal(err)
		}
		pid, err := k.start(got, fds)
		closeAll(fds)
		if err != nil {
			b.Fatal(err)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
			b.Fatalf("the shell: %v, %v", ws, err)
		}
		unix.Close(pair[0])
		unix.Close(pair[1])
	}
}
