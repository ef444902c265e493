package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestAgentShells: the shells cordon agent covers are the rules' shells
// the shim stands in for, bash and sh among them.
func TestAgentShells(t *testing.T) {
	got := agentShells()
	for _, want := range []string{"bash", "sh", "dash", "zsh"} {
		if !slices.Contains(got, want) {
			t.Errorf("agentShells() = %v, want %s among them", got, want)
		}
	}
}

func TestAgentUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"agent"}, &stdout, &stderr); code != exitUsage || stdout.Len() != 0 || !strings.Contains(stderr.String(), "no command to run") {
		t.Errorf("cordon agent without a command: %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
