package platform

import (
	"strconv"
	"time"

	"golang.org/x/sys/unix"
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
	var boot unix.Timespec
	if err1 != nil || err2 != nil || unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot) != nil {
		return Process{}, false
	}
	// The start is ticks since boot: now, less the time since it.
	since := time.Duration(boot.Nano()) - time.Duration(ticks)*(time.Second/userHZ)
	return Process{Pid: pid, Parent: parent, Name: name, Start: time.Now().Add(-since)}, true
}
