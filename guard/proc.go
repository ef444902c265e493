package guard

import (
	"fmt"
	"os"
	"strings"
)

// ProcessStart is the start time of process pid, as /proc gives it, or
// "" when there is no such process, or no /proc.
func ProcessStart(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
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
