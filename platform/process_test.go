package platform

import (
	"testing"
	"time"
)

// TestAgentSinceChains walks made-up process chains: the bound is the
// agent's start, past shells, cordon, an agent's own bubblewrap and every
// sandboxed process (a command's make or python); inside cordon's sandbox
// it is what the cordon outside carried in (bwrap's file, a session
// manager's argument); out of sight with nothing carried (a sandbox's own
// first process), every file could be the agent's.
func TestAgentSinceChains(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	type proc struct {
		name      string
		parent    int
		start     int
		sandboxed bool
		carried   int // minutes; 0: none
	}
	carried := func(min int) *time.Time { t := at(min).Add(-InstalledMargin); return &t }
	cases := []struct {
		name  string
		chain map[int]proc // pid 100 is the shim's parent
		mark  int          // minutes of the sandbox's file; 0: none
		want  time.Time    // zero: every file could be the agent's
	}{
		{"the agent runs bash -c", map[int]proc{100: {"bash", 90, 50, false, 0}, 90: {"node", 80, 10, false, 0}, 80: {"zsh", 1, 0, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(10)},
		{"through cordon's roles", map[int]proc{100: {"cordon-keeper", 90, 50, false, 0}, 90: {"cordon", 80, 40, false, 0}, 80: {"claude", 1, 5, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(5)},
		{"the agent runs the command through timeout", map[int]proc{100: {"timeout", 90, 50, false, 0}, 90: {"node", 80, 10, false, 0}, 80: {"zsh", 1, 0, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(10)},
		{"a one-shot agent that runs a command as it starts", map[int]proc{100: {"bash", 90, 50, false, 0}, 90: {"node", 80, 50, false, 0}, 80: {"tmux: server", 1, 0, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(0)},
		{"the agent's own bwrap", map[int]proc{100: {"bash", 90, 50, false, 0}, 90: {"bwrap", 80, 50, false, 0}, 80: {"codex", 1, 3, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(3)},
		{"the agent's own Landlock sandbox", map[int]proc{100: {"bash", 90, 50, true, 0}, 90: {"codex-linux-san", 80, 50, true, 0}, 80: {"codex", 1, 3, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(3)},
		{"a container whose first process is the agent", map[int]proc{100: {"bash", 1, 50, false, 0}, 1: {"node", 0, 2, false, 0}}, 0, at(2)},
		{"another tool's sandbox with its own PIDs", map[int]proc{100: {"bash", 1, 50, false, 0}, 1: {"bwrap", 0, 49, false, 0}}, 0, time.Time{}},
		{"a sandboxed first process", map[int]proc{100: {"python3", 1, 50, true, 0}, 1: {"init", 0, 49, true, 0}}, 0, time.Time{}},
		{"cordon's bwrap: its file", map[int]proc{100: {"make", 90, 50, true, 0}, 90: {"cordon-keeper", 1, 30, true, 0}, 1: {"bwrap", 0, 30, true, 0}}, 4, at(4)},
		{"cordon's bwrap without its file", map[int]proc{100: {"make", 90, 50, true, 0}, 90: {"cordon-keeper", 1, 30, true, 0}, 1: {"bwrap", 0, 30, true, 0}}, 0, time.Time{}},
		{"a Landlock command: past make to the agent", map[int]proc{100: {"make", 90, 50, true, 0}, 90: {"bash", 80, 50, true, 0}, 80: {"bash", 70, 50, false, 0}, 70: {"claude", 1, 6, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(6)},
		{"a Landlock session: its manager's argument", map[int]proc{100: {"python3", 90, 50, true, 0}, 90: {"cordon-keeper", 80, 30, true, 0}, 80: {"exe", 1, 30, false, 7}, 1: {"systemd", 0, -100, false, 0}}, 0, at(7)},
		{"an argument inside the sandbox is not believed", map[int]proc{100: {"python3", 90, 50, true, 55}, 90: {"bash", 80, 50, true, 0}, 80: {"bash", 70, 50, false, 0}, 70: {"claude", 1, 6, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(6)},
		{"a daemon of the sandbox's, adopted by init", map[int]proc{100: {"python3", 1, 50, true, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(-100)},
		{"a shell as the first process", map[int]proc{100: {"bash", 1, 50, false, 0}, 1: {"sh", 0, 1, false, 0}}, 0, time.Time{}},
		{"an ancestor that cannot be read", map[int]proc{100: {"bash", 90, 50, false, 0}, 1: {"systemd", 0, -100, false, 0}}, 0, at(-100)},
	}
	for _, c := range cases {
		look := func(pid int) (Process, bool) {
			p, ok := c.chain[pid]
			pr := Process{Pid: pid, Parent: p.parent, Name: p.name, Start: at(p.start), Sandboxed: p.sandboxed}
			if p.carried != 0 {
				pr.Carried = carried(p.carried)
			}
			return pr, ok
		}
		mark := func() (time.Time, bool) {
			if c.mark == 0 {
				return time.Time{}, false
			}
			return *carried(c.mark), true
		}
		// The shim started at 50 minutes: what started since 50 less
		// the margin came with its command.
		got := sinceFrom(100, look, mark, at(50).Add(-InstalledMargin))
		want := c.want
		if !want.IsZero() {
			want = want.Add(-InstalledMargin)
		}
		if !got.Equal(want) {
			t.Errorf("%s: %v, want %v", c.name, got, want)
		}
	}
}

// TestCarriedArg reads back what a session's manager carries, and only
// from one of cordon's roles.
func TestCarriedArg(t *testing.T) {
	since := time.Date(2026, 12, 5, 10, 0, 0, 123, time.UTC)
	for _, c := range []struct {
		args []string
		want *time.Time
	}{
		{[]string{"cordon-session", CarriedArg(SinceNanos(since))}, &since},
		{[]string{"cordon-session", CarriedArg(0)}, &time.Time{}},
		{[]string{"python3", CarriedArg(SinceNanos(since))}, nil},
		{[]string{"cordon-session"}, nil},
		{[]string{"cordon-session", "--agent-since=x"}, nil},
		{[]string{"cordon-session", "--agent-since=-5"}, nil},
	} {
		got := carried(c.args)
		if (got == nil) != (c.want == nil) || got != nil && !got.Equal(*c.want) {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
}

// agentLater stands for an agent that started after every file a test
// makes: none of them is the agent's.
func agentLater() time.Time { return time.Now().Add(time.Hour) }
