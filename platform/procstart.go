package platform

import (
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// ProcessStart is the start time of process pid, as /proc gives it (clock
// ticks since boot), or "" where there is no /proc or no such process,
// or the process has ended and is a zombie its parent has not reaped (an
// agent that is PID 1 of a container may never reap what it adopts). With
// the pid it names one process, not whichever reuses the pid later.
func ProcessStart(pid int) string {
	f := procStat(pid)
	if len(f) > 19 && !ended(f[0]) {
		return f[19]
	}
	return ""
}

// Zombie reports whether process pid has ended and is not yet reaped: a
// signal of 0 still reaches it, but it runs nothing. False where there is
// no /proc.
func Zombie(pid int) bool {
	f := procStat(pid)
	return len(f) > 0 && ended(f[0])
}

// ended reports whether a process state of /proc/PID/stat is that of a
// process that has ended: Z (zombie) or X (dead).
func ended(state string) bool { return state == "Z" || state == "X" }

// procStat returns the fields of /proc/PID/stat after the command name
// (which is in parentheses and may hold anything): the state first.
func procStat(pid int) []string {
	_, f := procStatNamed(pid)
	return f
}

// procStatNamed is procStat with the command name (comm).
func procStatNamed(pid int) (name string, fields []string) {
	data, err := smallfile.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", nil
	}
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", nil
	}
	return s[open+1 : end], strings.Fields(s[end+1:])
}
