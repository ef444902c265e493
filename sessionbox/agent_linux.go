package sessionbox

import (
	"os"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/platform"
)

// An agentProc is the process a session belongs to.
type agentProc struct {
	Pid   int
	Start string // platform.ProcessStart
}

// passedOver are the process names (comm) the walk up from the shim
// goes past: shells, and cordon under its own names.
var passedOver = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "cordon": true, ManagerRole: true}

// findAgent is the first ancestor of this process that is not a shell
// (the agent runs bash -c, which may run bash again), or nil.
func findAgent() *agentProc {
	pid := os.Getppid()
	for range 64 {
		if pid <= 1 {
			return nil
		}
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return nil
		}
		s := string(data)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			return nil
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 20 {
			return nil
		}
		if !passedOver[s[open+1:end]] {
			return &agentProc{Pid: pid, Start: platform.ProcessStart(pid)}
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return nil
}
