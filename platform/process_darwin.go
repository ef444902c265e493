package platform

import (
	"time"

	"golang.org/x/sys/unix"
)

// process asks the kernel (sysctl kern.proc.pid).
func process(pid int) (Process, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return Process{}, false
	}
	name := k.Proc.P_comm[:]
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	start := time.Unix(k.Proc.P_starttime.Sec, int64(k.Proc.P_starttime.Usec)*1000)
	return Process{Pid: pid, Parent: int(k.Eproc.Ppid), Name: string(name), Start: start}, true
}

// sandboxMark: no sandbox of cordon's here carries a bound in a file.
func sandboxMark() (time.Time, bool) { return time.Time{}, false }
