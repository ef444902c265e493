package platform

import (
	"testing"
	"time"
)

// TestAgentSinceChains walks made-up process chains: the bound is the
// agent's start, past shells, cordon and an agent's own bubblewrap; out of
// sight (a sandbox's own first process), it is that process's start only
// inside cordon's sandbox, and every file otherwise.
func TestAgentSinceChains(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	type proc struct {
		name   string
		parent int
		start  int
	}
	cases := []struct {
		name   string
		chain  map[int]proc // pid 100 is the shim's parent
		cordon bool         // inside cordon's own sandbox
		want   time.Time    // zero: every file could be the agent's
	}{
		{"the agent runs bash -c", map[int]proc{100: {"bash", 90, 50}, 90: {"node", 80, 10}, 80: {"zsh", 1, 0}, 1: {"systemd", 0, -100}}, false, at(10)},
		{"through cordon's roles", map[int]proc{100: {"cordon-keeper", 90, 50}, 90: {"cordon", 80, 40}, 80: {"claude", 1, 5}, 1: {"systemd", 0, -100}}, false, at(5)},
		{"the agent's own bwrap", map[int]proc{100: {"bash", 90, 50}, 90: {"bwrap", 80, 50}, 80: {"codex", 1, 3}, 1: {"systemd", 0, -100}}, false, at(3)},
		{"a container whose first process is the agent", map[int]proc{100: {"bash", 1, 50}, 1: {"node", 0, 2}}, false, at(2)},
		{"another tool's sandbox with its own PIDs", map[int]proc{100: {"bash", 1, 50}, 1: {"bwrap", 0, 49}}, false, time.Time{}},
		{"cordon's sandbox with its own PIDs", map[int]proc{100: {"bash", 90, 50}, 90: {"cordon-keeper", 1, 30}, 1: {"bwrap", 0, 30}}, true, at(30)},
		{"a shell as the first process", map[int]proc{100: {"bash", 1, 50}, 1: {"sh", 0, 1}}, false, time.Time{}},
		{"an ancestor that cannot be read", map[int]proc{100: {"bash", 90, 50}, 1: {"systemd", 0, -100}}, false, at(-100)},
	}
	for _, c := range cases {
		look := func(pid int) (Process, bool) {
			p, ok := c.chain[pid]
			return Process{Pid: pid, Parent: p.parent, Name: p.name, Start: at(p.start)}, ok
		}
		got := sinceFrom(100, look, func() bool { return c.cordon })
		want := c.want
		if !want.IsZero() {
			want = want.Add(-InstalledMargin)
		}
		if !got.Equal(want) {
			t.Errorf("%s: %v, want %v", c.name, got, want)
		}
	}
}
