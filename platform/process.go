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
// bash again) or cordon itself under any of its roles.
func passedOver(name string) bool {
	return isShellName(name) || name == "cordon" || strings.HasPrefix(name, "cordon-")
}

// Agent is the process this one's command comes from: the first
// ancestor that is neither a shell nor cordon. ok is false when the walk
// reaches the first process (PID 1) or cannot read an ancestor, and
// where processes cannot be looked at (Windows).
func Agent() (p Process, ok bool) {
	pid := os.Getppid()
	for range 64 {
		if pid <= 1 {
			return Process{}, false
		}
		p, ok = process(pid)
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
// installed software. With no agent found it is the first process's
// start (a container's, or the system's boot), and the zero time (every
// file could be the agent's) where that cannot be read either.
func AgentSince() time.Time {
	p, ok := Agent()
	if !ok {
		if p, ok = process(1); !ok {
			return time.Time{}
		}
	}
	return p.Start.Add(-InstalledMargin)
}
