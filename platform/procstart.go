package platform

import (
	"os"
	"strconv"
	"strings"
)

// ProcessStart is the start time of process pid, as /proc gives it (clock
// ticks since boot), or "" where there is no /proc or no such process.
// With the pid it names one process, not whichever reuses the pid later.
func ProcessStart(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The fields after the command name, which is in parentheses.
	rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
	f := strings.Fields(rest)
	if len(f) > 19 {
		return f[19]
	}
	return ""
}
