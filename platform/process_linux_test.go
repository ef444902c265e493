package platform

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestProcess reads this process as the system shows it.
func TestProcess(t *testing.T) {
	p, ok := process(os.Getpid())
	if !ok {
		t.Fatal("this process is not found")
	}
	if p.Parent != os.Getppid() {
		t.Errorf("parent %d, want %d", p.Parent, os.Getppid())
	}
	if comm, _ := os.ReadFile("/proc/self/comm"); p.Name != strings.TrimSpace(string(comm)) {
		t.Errorf("name %q, want %q", p.Name, comm)
	}
	// Started before now, and not before this test binary was built.
	if age := time.Since(p.Start); age < 0 || age > 10*time.Minute {
		t.Errorf("started %v ago", age)
	}
	if _, ok := process(1 << 30); ok {
		t.Error("a process that does not exist is found")
	}
}

// TestAgentPassesOverShells runs this test binary again (the agent: a
// fresh process, which no earlier test left under a seccomp filter) and,
// past the margin, that one again under sh (which stays its parent): the
// agent the last finds is the middle one, past the shell.
func TestAgentPassesOverShells(t *testing.T) {
	switch os.Getenv("CORDON_AGENT_WALK") {
	case "walk":
		p, ok := Agent()
		if !ok {
			os.Stdout.WriteString("none\n")
			os.Exit(0)
		}
		os.Stdout.WriteString(strconv.Itoa(p.Pid) + " " + strconv.FormatInt(p.Start.UnixMilli(), 10) + "\n")
		os.Exit(0)
	case "agent":
		self, _ := process(os.Getpid())
		// An agent is older than its commands: what started within the
		// margin of the walk's own start is passed over as their wrapper.
		time.Sleep(InstalledMargin + 200*time.Millisecond)
		// "; true" keeps sh from exec'ing the last command in its place.
		cmd := exec.Command("/bin/sh", "-c", `"$0" -test.run='^TestAgentPassesOverShells$'; true`, os.Args[0])
		cmd.Env = append(os.Environ(), "CORDON_AGENT_WALK=walk")
		out, err := cmd.Output()
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(0)
		}
		os.Stdout.WriteString(strconv.Itoa(os.Getpid()) + " " + strconv.FormatInt(self.Start.UnixMilli(), 10) + " " + string(out))
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAgentPassesOverShells$")
	cmd.Env = append(os.Environ(), "CORDON_AGENT_WALK=agent")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	if len(f) != 4 || f[2] != f[0] {
		t.Fatalf("the agent found under sh is %q, want the process above it (the first number)", out)
	}
	if f[3] != f[1] {
		t.Errorf("the agent's start is %s ms, want %s", f[3], f[1])
	}
}

// TestSandboxMarkOnlyAMount: a regular file at SinceFile on /dev's own
// file system (what a process in a sandbox could make there, where /dev
// is writable) is not believed; only a mount of its own is.
func TestSandboxMarkOnlyAMount(t *testing.T) {
	if _, ok := sandboxMark(); ok {
		t.Skip("this test runs inside a sandbox of cordon's")
	}
	if err := os.WriteFile(SinceFile, []byte("9000000000000000000"), 0o644); err != nil {
		t.Skipf("cannot write in /dev here (%v): a process that cannot, cannot plant one either", err)
	}
	defer os.Remove(SinceFile)
	if got, ok := sandboxMark(); ok {
		t.Errorf("a regular file on /dev's file system was believed: %v", got)
	}
	// A walk of its own: AgentSince's is kept from its first call.
	if got := sinceFrom(os.Getppid(), process, sandboxMark, time.Time{}); got.After(time.Now()) {
		t.Errorf("AgentSince took the planted file: %v", got)
	}
}

// BenchmarkAgentSince is the walk to the agent every command that runs
// makes (its bound goes into the sandbox): this test binary's parents.
func BenchmarkAgentSince(b *testing.B) {
	for b.Loop() {
		AgentSince()
	}
}
