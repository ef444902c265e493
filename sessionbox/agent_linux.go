package sessionbox

import "github.com/cordonsh/cordon/platform"

// An agentProc is the process a session belongs to.
type agentProc struct {
	Pid   int
	Start string // platform.ProcessStart
}

// findAgent is the process the session belongs to ([platform.Agent]),
// or nil.
func findAgent() *agentProc {
	p, ok := platform.Agent()
	if !ok {
		return nil
	}
	return &agentProc{Pid: p.Pid, Start: platform.ProcessStart(p.Pid)}
}
