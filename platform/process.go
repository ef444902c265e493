package platform

import (
	"os"
	"strings"
	"time"
)

// A Process is one running process as the system shows it.
type Process struct {
	Pid, Parent int
	// Name is the kernel's short name for it (Linux's comm, at most 15
	// bytes; macOS's p_comm).
	Name string
	// Start is when it started, by the wall clock of now.
	Start time.Time
}

// passedOver reports whether the walk up to the agent goes past a
// process of this name: a shell (the agent runs bash -c, which may run
// bash again), cordon itself under any of its roles, or bubblewrap (an
// agent's own sandbox around its commands, Codex's): none of them is
// where an agent's file tools write from.
func passedOver(name string) bool {
	return isShellName(name) || name == "cordon" || strings.HasPrefix(name, "cordon-") || name == "bwrap"
}

// Agent is the process this one's command comes from: the first
// ancestor that is neither a shell nor cordon ([passedOver]). ok is false
// when the walk reaches the first process (PID 1) or cannot read an
// ancestor, and where processes cannot be looked at (Windows).
func Agent() (Process, bool) { return agentFrom(os.Getppid(), process) }

func agentFrom(pid int, look func(int) (Process, bool)) (Process, bool) {
	for range 64 {
		if pid <= 1 {
			return Process{}, false
		}
		p, ok := look(pid)
		if !ok {
			return Process{}, false
		}
		if !passedOver(p.Name) {
			return p, true
		}
		pid = p.Parent
	}
	return Process{}, false
}

// InstalledMargin is how long before the agent's start a file's last
// change must lie for the file to count as installed: the start is known
// to a clock tick and a file's change time comes from a coarser clock,
// and the wall clock may have been stepped since.
const InstalledMargin = time.Second

// AgentSince is the time from which a file of this user may be the
// agent's work: the agent's start ([Agent]), less a margin. The agent's
// own file tools (an editor tool, a patch tool) write as this user and
// never pass cordon, so nothing this user's that changed since then is
// installed software.
//
// With no agent found below the first process (PID 1), that process
// stands for it when it is not one the walk passes over (a container
// whose first process is the agent, or the machine's init). When it is
// (a shell, bubblewrap: a sandbox's own first process, which started
// with the command), the agent is out of sight: inside cordon's own
// sandbox (cordonSandbox reports it, asked only then) its first process
// started with the session or the command; in another tool's, every
// file of the user's could be the agent's (the zero time), as where
// processes cannot be read.
func AgentSince(cordonSandbox func() bool) time.Time {
	return sinceFrom(os.Getppid(), process, cordonSandbox)
}

func sinceFrom(pid int, look func(int) (Process, bool), cordonSandbox func() bool) time.Time {
	p, ok := agentFrom(pid, look)
	if !ok {
		if p, ok = look(1); !ok || passedOver(p.Name) && !cordonSandbox() {
			return time.Time{}
		}
	}
	return p.Start.Add(-InstalledMargin)
}
