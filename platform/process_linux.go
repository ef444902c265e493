package platform

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// userHZ is the unit of /proc's process start times: the kernel reports
// them in USER_HZ ticks, which is 100 on every architecture Go supports.
const userHZ = 100

// process reads /proc/PID/stat. A process that has ended is not found.
func process(pid int) (Process, bool) {
	name, f := procStatNamed(pid)
	if len(f) < 20 || ended(f[0]) {
		return Process{}, false
	}
	parent, err1 := strconv.Atoi(f[1])
	ticks, err2 := strconv.ParseUint(f[19], 10, 64)
	boot, err3 := bootTime()
	if err1 != nil || err2 != nil || err3 != nil {
		return Process{}, false
	}
	// The start is ticks since boot. From the boot's time the kernel
	// keeps (whole seconds, earlier than the true one by under a second:
	// a stricter bound), it is the same at every read, so a session's key
	// that holds it stays the same (Policy.AgentSince).
	start := boot.Add(time.Duration(ticks) * (time.Second / userHZ))
	pr := Process{Pid: pid, Parent: parent, Name: name, Start: start, Sandboxed: sandboxed(pid)}
	// cordon's own processes run from /proc/self/exe (comm "exe") under
	// a role's name (cordon-guard, cordon-session): named by it, and,
	// outside a sandbox, what one carries.
	if name == "exe" {
		if args := cmdline(pid); len(args) > 0 && strings.HasPrefix(filepath.Base(args[0]), "cordon-") {
			pr.Name = filepath.Base(args[0])
			if !pr.Sandboxed {
				pr.Carried = carried(args)
			}
		}
	}
	return pr, true
}

// sandboxed reports whether process pid runs under no_new_privs and a
// seccomp filter (/proc/PID/status, which any process may read).
func sandboxed(pid int) bool {
	var buf [4096]byte
	data := readProc(pid, "status", buf[:])
	return statusField(data, "NoNewPrivs", "1") && statusField(data, "Seccomp", "2")
}

// readProc reads /proc/PID/name into buf, as much as fits (a process's
// status is under 2 kB); nil when it cannot be read.
func readProc(pid int, name string, buf []byte) []byte {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return buf[:n]
}

// cmdline is process pid's arguments (/proc/PID/cmdline, which any process
// may read; only the process itself, or one that may trace it, can change
// them).
func cmdline(pid int) []string {
	var buf [4096]byte
	data := readProc(pid, "cmdline", buf[:])
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// sandboxMark reads [SinceFile] when it is a mount of its own (its file
// system is not /dev's): what bwrap laid there for cordon.
func sandboxMark() (time.Time, bool) {
	fd, err := unix.Open(SinceFile, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return time.Time{}, false
	}
	defer unix.Close(fd)
	var f, dev unix.Stat_t
	if unix.Fstat(fd, &f) != nil || f.Mode&unix.S_IFMT != unix.S_IFREG || unix.Stat("/dev", &dev) != nil || f.Dev == dev.Dev {
		return time.Time{}, false
	}
	buf := make([]byte, 32)
	n, _ := unix.Read(fd, buf)
	if n <= 0 {
		return time.Time{}, false
	}
	return sinceTime(string(buf[:n]))
}

// bootTime is when the machine started, by the wall clock: /proc/stat's
// btime, read once.
var bootTime = sync.OnceValues(func() (time.Time, error) {
	data, err := smallfile.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, err
			}
			return time.Unix(sec, 0), nil
		}
	}
	return time.Time{}, errors.New("no btime in /proc/stat")
})
