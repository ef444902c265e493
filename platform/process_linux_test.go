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

// TestAgentPassesOverShells runs this test binary again under sh (which
// stays its parent): the agent it finds is this process, past the shell.
func TestAgentPassesOverShells(t *testing.T) {
	if os.Getenv("CORDON_AGENT_WALK") != "" {
		p, ok := Agent()
		if !ok {
			os.Stdout.WriteString("none\n")
			os.Exit(0)
		}
		os.Stdout.WriteString(strconv.Itoa(p.Pid) + " " + strconv.FormatInt(p.Start.UnixMilli(), 10) + "\n")
		os.Exit(0)
	}
	self, ok := process(os.Getpid())
	if !ok {
		t.Fatal("this process is not found")
	}
	// "; true" keeps sh from exec'ing the last command in its place.
	cmd := exec.Command("/bin/sh", "-c", `"$0" -test.run='^TestAgentPassesOverShells$'; true`, os.Args[0])
	cmd.Env = append(os.Environ(), "CORDON_AGENT_WALK=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != strconv.Itoa(os.Getpid()) {
		t.Fatalf("the agent found under sh is %q, want this process (%d)", out, os.Getpid())
	}
	ms, _ := strconv.ParseInt(f[1], 10, 64)
	if d := time.UnixMilli(ms).Sub(self.Start); d < -50*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("the agent's start is %v off this process's", d)
	}
}
