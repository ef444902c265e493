package sessionbox

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/platform"
	"golang.org/x/sys/unix"
)

// KeeperMain is the keeper, inside the sandbox: args are [KeeperRole (or
// a path ending in it), the descriptor of its control socket to the
// manager]. Each message on the control socket carries one connection
// from a shim; the keeper serves each on a goroutine of its own and
// tells the manager "+" when a command starts, "-N" when the one of
// the N-th connection ends, and "xN" when it never started.
func KeeperMain(args []string) int {
	ctl := -1
	if len(args) == 2 {
		ctl, _ = strconv.Atoi(args[1])
	}
	if ctl < 3 {
		os.Stderr.WriteString("cordon: the session keeper is started by cordon itself, not by hand\n")
		return 126
	}
	// A command gets the descriptors its shim sent, and nothing else
	// this process holds: whatever it was started with (from bwrap, or
	// the process it goes on from) is closed at every exec.
	for _, fd := range guard.InheritedFDs() {
		if fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
	// Not dumpable: the commands it starts run as the same user, and
	// must not ptrace it or open its descriptors (its connections to the
	// shims and the manager) through /proc.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 126
	}
	k := &keeper{ctl: ctl, forks: make(chan func())}
	// Started through the network forwarder's role (the allowlist: a
	// network of the sandbox's own), the keeper has the forwarder in
	// ALL_PROXY, which the role always sets.
	if all, ok := strings.CutPrefix(os.Getenv("ALL_PROXY"), "socks5h://127.0.0.1:"); ok && platform.LoopbackOnly() {
		k.proxy = "127.0.0.1:" + all
	}
	if k.tell("ready") != nil {
		return 126
	}
	// The commands are started from this goroutine's thread, the one
	// the keeper started on: the caches' layers' process that goes on as
	// the keeper (platform.LayerRole) made its mount namespace, with the
	// layers, on that thread alone (a thread's mount namespace is its
	// own); its runtime's other threads may be in bwrap's. The control
	// socket is read on another goroutine.
	runtime.LockOSThread()
	// Under bwrap (its first process is the keeper's parent), the
	// commands in a Landlock domain of their own: none can take over a
	// process of the sandbox at rest ([platform.NestCommands]).
	if os.Getppid() == 1 {
		if comm, _ := smallfile.ReadFile("/proc/1/comm"); string(comm) == "bwrap\n" {
			platform.NestCommands()
		}
	}
	done := make(chan int, 1)
	go func() { done <- k.receive() }()
	for {
		select {
		case code := <-done:
			return code
		case fork := <-k.forks:
			fork()
		}
	}
}

// receive reads the manager's messages on the control socket until it
// is gone: the connections to serve.
func (k *keeper) receive() int {
	ctl := k.ctl
	oob := make([]byte, unix.CmsgSpace(4))
	buf := make([]byte, 128)
	for {
		n, oobn, _, _, err := unix.Recvmsg(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0 // the manager is gone; it ends the sandbox
		}
		fds, _ := rights(oob[:oobn])
		for _, fd := range fds {
			// Numbered as the manager numbers what it sends, in order.
			k.seq++
			go k.serve(fd, k.seq)
		}
	}
}

// A keeper starts commands in the sandbox it runs in.
type keeper struct {
	ctl int
	mu  sync.Mutex // one write to ctl at a time
	// forks runs each function on the thread the keeper started on
	// (see KeeperMain).
	forks chan func()
	// proxy is the forwarder's address with the network allowlist.
	proxy string
	seq   int // the connections received
}

// tell sends the manager one message.
func (k *keeper) tell(msg string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, err := unix.Write(k.ctl, []byte(msg))
	return err
}

// serve runs the command a shim sends on conn and reports its end: the
// lines "pid N" once it runs (or "error MESSAGE" when it could not be
// started), then "exit STATUS", the raw wait status. From the shim come
// "sig N" lines, passed on to the command's process group. The shim's
// end before the command's (the agent killed it, giving up on the
// command) kills that group, and then the whole session ("!" to the
// manager): what the command started in other groups or sessions
// (setsid) may hold the agent's pipes, and cannot be told from what
// earlier commands left running.
func (k *keeper) serve(conn int, seq int) {
	defer unix.Close(conn)
	req, fds, err := recvRequest(conn)
	if err != nil {
		writeLine(conn, "error %s", oneLine(err.Error()))
		k.tell("x" + strconv.Itoa(seq))
		return
	}
	pid, err := k.start(req, fds)
	closeAll(fds)
	if err != nil {
		writeLine(conn, "error cannot run %s: %s", req.Path, oneLine(err.Error()))
		k.tell("x" + strconv.Itoa(seq))
		return
	}
	k.tell("+")
	writeLine(conn, "pid %d", pid)
	done, read := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(read)
		r := bufio.NewReader(fdReader(conn))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				select {
				case <-done:
				default:
					unix.Kill(-pid, unix.SIGKILL)
					k.tell("!")
				}
				return
			}
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "sig "); ok {
				if sig, err := strconv.Atoi(n); err == nil && sig > 0 && sig < 65 {
					unix.Kill(-pid, syscall.Signal(sig))
				}
			}
		}
	}()
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	close(done)
	if err != nil {
		ws = syscall.WaitStatus(126 << 8)
	}
	writeLine(conn, "exit %d", uint32(ws))
	// The manager may now give back the session's guard ticket (while
	// the shim reads the status), and answers the shim itself on its own
	// copy of the connection ([manager.answer]): the shim goes on
	// (reconciling, unless the answer spares it) only at the
	// connection's end, so only once the manager has: the next command
	// sees the ledger as it must. conn is closed only after the reader
	// has ended (the shim closed its end), so that it cannot read
	// another connection's descriptor of the same number.
	k.tell("-" + strconv.Itoa(seq))
	<-read
}

// start starts the command in a process group of its own, with fds at
// the numbers req names and every other descriptor closed, in req.Dir,
// with req.Umask.
func (k *keeper) start(req *request, fds []int) (int, error) {
	files := make([]uintptr, slices.Max(append(slices.Clone(req.FDs), 2))+1)
	for i := range files {
		files[i] = ^uintptr(0) // closed in the child
	}
	for i, n := range req.FDs {
		if n < 0 || n >= len(files) {
			return 0, syscall.EBADF
		}
		files[n] = uintptr(fds[i])
		// The shim sends none (see platform.ScreenInherited); one it
		// did anyway stays out all the same.
		if platform.UnsafeFD(fds[i]) {
			null, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return 0, err
			}
			defer unix.Close(null)
			files[n] = uintptr(null)
		}
	}
	env := req.Env
	if k.proxy != "" {
		// The sandbox has the network allowlist: each command gets the
		// proxy variables the keeper got from the forwarder's role.
		env = platform.WithProxyEnv(env, k.proxy, filepath.Join(filepath.Dir(os.Args[0]), platform.NetRole))
	}
	var pid int
	var err error
	forked := make(chan struct{})
	k.forks <- func() {
		defer close(forked)
		// (The umask is the thread's too, with its mount namespace.)
		old := syscall.Umask(req.Umask)
		defer syscall.Umask(old)
		pid, err = syscall.ForkExec(req.Path, req.Argv, &syscall.ProcAttr{
			Dir: req.Dir, Env: env, Files: files,
			Sys: &syscall.SysProcAttr{Setpgid: true},
		})
	}
	<-forked
	return pid, err
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }
