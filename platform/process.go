package platform

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
	// Sandboxed is set when it runs under no_new_privs and a seccomp
	// filter, as every process in cordon's sandbox does (and in Codex's).
	// Neither can be undone, and a child inherits both: no process inside
	// a sandbox passes for one outside it.
	Sandboxed bool
	// Carried is the bound for installed software that a process of
	// cordon's outside every sandbox carries for the sandbox it made (a
	// session's manager, in its arguments: [CarriedArg]); nil for any
	// other process.
	Carried *time.Time
}

// passedOver reports whether the walk up to the agent goes past p: a
// shell (the agent runs bash -c, which may run bash again), cordon itself
// under any of its roles, bubblewrap (an agent's own sandbox around its
// commands, Codex's), any process in a sandbox (a command's make or
// python), or one that started at or after recent (a second before this
// process: a wrapper the agent ran the command through, timeout, nice or
// script; an agent is older than its commands): none of them is where an
// agent's file tools write from. Passing over more only reaches older
// processes, whose start is an earlier, stricter bound.
func passedOver(p Process, recent time.Time) bool {
	name := p.Name
	return p.Sandboxed || !recent.IsZero() && !p.Start.Before(recent) ||
		isShellName(name) || name == "cordon" || strings.HasPrefix(name, "cordon-") || name == "bwrap"
}

// recent is when a process must have started to be passed over as one
// that started with this one's command ([passedOver]): a second before
// it; the zero time where it cannot be read.
func recent() time.Time {
	if self, ok := ancestor(os.Getpid()); ok {
		return self.Start.Add(-InstalledMargin)
	}
	return time.Time{}
}

// Agent is the process this one's command comes from: the first
// ancestor that is neither a shell nor cordon ([passedOver]). ok is false
// when the walk reaches the first process (PID 1) or cannot read an
// ancestor, and where processes cannot be looked at (Windows).
//
// Unlike [AgentSince]'s walk it does not pass over processes that
// started with the command: a session ends when its agent exits, and an
// agent that runs a command as it starts is still that agent.
//
// What it reads of each process is kept for this process's life
// ([ancestor]): a second call answers as the first did, even once the
// agent has exited (and its pid is another's). Call it once per process.
func Agent() (Process, bool) { return agentFrom(os.Getppid(), ancestor, time.Time{}) }

// ancestors are the processes [ancestor] read.
var ancestors struct {
	sync.Mutex
	read map[int]ancestorRead
}

type ancestorRead struct {
	p  Process
	ok bool
}

// ancestor is process for the walks up from this process, [Agent] and
// [AgentSince], each made once in a process's life: both read the same
// processes (this one, its parent, ...), each once here.
func ancestor(pid int) (Process, bool) {
	ancestors.Lock()
	defer ancestors.Unlock()
	if r, ok := ancestors.read[pid]; ok {
		return r.p, r.ok
	}
	p, ok := process(pid)
	if ancestors.read == nil {
		ancestors.read = map[int]ancestorRead{}
	}
	ancestors.read[pid] = ancestorRead{p, ok}
	return p, ok
}

func agentFrom(pid int, look func(int) (Process, bool), recent time.Time) (Process, bool) {
	for range 64 {
		if pid <= 1 {
			return Process{}, false
		}
		p, ok := look(pid)
		if !ok {
			return Process{}, false
		}
		if !passedOver(p, recent) {
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

// StartPrecision is how much earlier than its true start a process's
// start may be read: on Linux the boot's time is kept to the second (so
// that the bound of [AgentSince], part of a session's key, reads the same
// every time); a file changed up to this long before the agent started may
// be taken for its work, which is stricter, never looser.
const StartPrecision = time.Second

// AgentSince is the time from which a file of this user may be the
// agent's work: the agent's start ([Agent]), less a margin. The agent's
// own file tools (an editor tool, a patch tool) write as this user and
// never pass cordon, so nothing this user's that changed since then is
// installed software.
//
// Inside cordon's sandbox the agent is out of sight, and every process
// there started after it: the bound is the one the cordon outside, which
// saw the agent, carried in where nothing in the sandbox can change it:
// bwrap's sandbox holds it in a file of its own mount, [SinceFile]; a
// Landlock session's manager (the parent of its keeper, outside the
// sandbox) in its arguments; a Landlock sandbox's command walks past its
// sandboxed processes to the cordon that started it, and on to the agent.
//
// With no agent found below the first process (PID 1), that process
// stands for it when it is not one the walk passes over (a container
// whose first process is the agent, or the machine's init); when it is
// (a sandbox's own first process, with nothing carried in), every file
// of the user's could be the agent's: the zero time, as where processes
// cannot be read.
//
// It is found once per process: the agent does not change.
func AgentSince() time.Time { return agentSince() }

var agentSince = sync.OnceValue(func() time.Time { return sinceFrom(os.Getppid(), ancestor, sandboxMark, recent()) })

func sinceFrom(pid int, look func(int) (Process, bool), mark func() (time.Time, bool), recent time.Time) time.Time {
	if t, ok := mark(); ok {
		return t
	}
	for range 64 {
		if pid <= 1 {
			break
		}
		p, ok := look(pid)
		if !ok {
			break
		}
		if p.Carried != nil && !p.Sandboxed {
			return *p.Carried
		}
		if !passedOver(p, recent) {
			return p.Start.Add(-InstalledMargin)
		}
		pid = p.Parent
	}
	if p, ok := look(1); ok && !passedOver(p, recent) {
		return p.Start.Add(-InstalledMargin)
	}
	return time.Time{}
}

// SinceFile is where a bwrap sandbox of cordon's holds the bound of
// [AgentSince] (unix nanoseconds, 0 for the zero time): a file bwrap
// mounts over /dev's own, read-only. A sandboxed process cannot make a
// mount, so a file there on a file system other than /dev's was put there
// by the sandbox's maker.
const SinceFile = "/dev/.cordon-agent-since"

// carriedFlag is the argument of a session's manager that carries the
// bound ([CarriedArg]).
const carriedFlag = "--agent-since="

// CarriedArg is the argument by which a process of cordon's outside
// every sandbox (a session's manager) carries the bound of [AgentSince]
// for the sandbox it makes ([Policy.AgentSince]).
func CarriedArg(since int64) string { return carriedFlag + strconv.FormatInt(since, 10) }

// IsCarriedArg reports whether arg is one [CarriedArg] made.
func IsCarriedArg(arg string) bool {
	v, ok := strings.CutPrefix(arg, carriedFlag)
	if ok {
		_, ok = sinceTime(v)
	}
	return ok
}

// SinceNanos is t in unix nanoseconds, 0 for the zero time.
func SinceNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// sinceTime reads what [SinceNanos] wrote.
func sinceTime(s string) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	switch {
	case err != nil || n < 0:
		return time.Time{}, false
	case n == 0:
		return time.Time{}, true
	}
	return time.Unix(0, n), true
}

// carried finds [CarriedArg] in a process's arguments, when its first
// names one of cordon's roles.
func carried(args []string) *time.Time {
	if len(args) < 2 || !strings.HasPrefix(filepath.Base(args[0]), "cordon-") {
		return nil
	}
	for _, a := range args[1:] {
		if v, ok := strings.CutPrefix(a, carriedFlag); ok {
			if t, ok := sinceTime(v); ok {
				return &t
			}
		}
	}
	return nil
}
