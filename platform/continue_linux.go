package platform

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inProcess is set by LayerMain once every thread of this process has
// dropped its capabilities: it may go on as the keeper without an exec.
var inProcess bool

// keeperHere reports whether path runs this very binary as the session
// keeper: its base name is [KeeperRole] and it is the file of
// /proc/self/exe. Only then may this process go on as it.
func keeperHere(path string) bool {
	if filepath.Base(path) != KeeperRole {
		return false
	}
	var a, b unix.Stat_t
	return unix.Stat(path, &a) == nil && unix.Stat("/proc/self/exe", &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

// errNoAllThreads: the runtime cannot reach every thread of this
// process (a binary with cgo): the program is executed instead.
var errNoAllThreads = errors.New("cannot act on every thread")

// dropCapabilitiesEverywhere is [dropCapabilities](true) on every
// thread of this process, for a process that goes on without an exec:
// Go's runtime started several threads, each with the capabilities the
// process started with, and an exec is what would have left one. Each
// step runs on all of them at once (syscall.AllThreadsSyscall), which
// also keeps a thread from being made meanwhile; the threads made later
// are copies of these. Then every thread is read back from /proc. It
// returns errNoAllThreads, having changed nothing, where the runtime
// cannot do that (cgo).
func dropCapabilitiesEverywhere() error {
	all := func(trap, a1, a2 uintptr, a3 ...uintptr) error {
		var a3v uintptr
		if len(a3) > 0 {
			a3v = a3[0]
		}
		_, _, errno := syscall.AllThreadsSyscall6(trap, a1, a2, a3v, 0, 0, 0)
		if errno == syscall.ENOTSUP {
			return errNoAllThreads
		}
		if errno != 0 {
			return errno
		}
		return nil
	}
	bits, err := unix.PrctlRetInt(unix.PR_GET_SECUREBITS, 0, 0, 0, 0)
	if err != nil {
		return fmt.Errorf("cannot read the securebits: %w", err)
	}
	// First: with cgo this fails before anything changed.
	if err := all(unix.SYS_PRCTL, unix.PR_SET_SECUREBITS, uintptr(bits|lockedSecurebits), 0); err != nil {
		if errors.Is(err, errNoAllThreads) {
			return err
		}
		return fmt.Errorf("cannot set the securebits: %w", err)
	}
	// Every thread has the same bounding set: the one this thread has.
	last := lastCap()
	for c := 0; c <= last; c++ {
		in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil {
			return fmt.Errorf("cannot read the bounding set: %w", err)
		}
		if in == 0 {
			continue
		}
		if err := all(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, uintptr(c)); err != nil {
			return fmt.Errorf("cannot drop capability %d from the bounding set: %w", c, err)
		}
	}
	// Kernels before 4.3 have no ambient set.
	if _, err := unix.PrctlRetInt(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET, 0, 0, 0); !errors.Is(err, unix.EINVAL) {
		if err := all(unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL); err != nil {
			return fmt.Errorf("cannot clear the ambient capabilities: %w", err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none capSets
	if err := all(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&none[0]))); err != nil {
		return fmt.Errorf("cannot drop the capabilities: %w", err)
	}
	return threadsHoldNone()
}

// threadsHoldNone checks that no thread of this process holds any
// capability, in any set (the bounding set included), as /proc says.
func threadsHoldNone() error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil || len(tasks) == 0 {
		return fmt.Errorf("the capabilities were not dropped (cannot list the threads: %v)", err)
	}
	for _, t := range tasks {
		f, err := os.Open("/proc/self/task/" + t.Name() + "/status")
		if err != nil {
			return fmt.Errorf("the capabilities were not dropped (thread %s: %v)", t.Name(), err)
		}
		seen := 0
		s := bufio.NewScanner(f)
		for s.Scan() {
			name, value, ok := strings.Cut(s.Text(), ":")
			switch name {
			case "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb":
				seen++
				if !ok || strings.Trim(strings.TrimSpace(value), "0") != "" {
					f.Close()
					return fmt.Errorf("the capabilities were not dropped (thread %s: %s)", t.Name(), s.Text())
				}
			}
		}
		f.Close()
		if seen != 5 {
			return fmt.Errorf("the capabilities were not dropped (thread %s: its sets are not all in /proc)", t.Name())
		}
	}
	return nil
}

// continueAs makes this process the program argv (this binary as the
// session keeper, see keeperHere) with env and the limits l, without an
// exec: what the exec would change is changed here. The capabilities
// are gone from every thread already (inProcess); the descriptors this
// process opened are closed (the mounts' and the policy's, as before
// an exec; the keeper marks its control socket close-on-exec itself);
// the resource limits are set as [execLimited] sets them, and the open
// files' one is left to the program's children as it is (Go's runtime
// would otherwise give them back the soft limit this process started
// with, which an exec'd keeper's runtime never saw); the environment
// and os.Args become the program's, and so does the process's name
// (/proc's comm, by which cordon's processes are told apart). Not
// under a memory limit, which a runtime already running could not
// meet. The mount namespace with the layers is this thread's alone (a
// thread's own; an exec would have made it the process's): the keeper
// starts its commands from this thread, its first, which the main
// goroutine stays locked to. The caller returns to the binary's main,
// which runs argv's role.
func continueAs(argv, env []string, l Limits) error {
	if !inProcess || len(argv) == 0 || l.Memory != 0 {
		return errors.New("cordon: not in this process")
	}
	if err := setLimits(l); err != nil {
		return err
	}
	var files syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &files); err != nil {
		return err
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &files); err != nil {
		return err
	}
	setEnviron(env)
	name := filepath.Base(argv[0])
	if len(name) > 15 {
		name = name[:15]
	}
	b, err := unix.BytePtrFromString(name)
	if err != nil {
		return err
	}
	// The process's name (/proc/PID/comm) is its first thread's: this
	// one, in the package's init (locked to it until main runs). The
	// runtime's other threads keep the layers' name, seen only in
	// /proc/PID/task.
	if unix.Gettid() != os.Getpid() {
		return errors.New("cannot name the keeper: not on the process's first thread")
	}
	if err := unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(b)), 0, 0, 0); err != nil {
		return fmt.Errorf("cannot name the keeper: %w", err)
	}
	os.Args = argv
	return nil
}

// setEnviron makes env this process's environment, changing only the
// variables that differ.
func setEnviron(env []string) {
	want := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			want[k] = v
		}
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if w, ok := want[k]; !ok && k != "" {
			os.Unsetenv(k)
		} else if w == v {
			delete(want, k)
		}
	}
	for k, v := range want {
		os.Setenv(k, v)
	}
}
