//go:build !linux

package platform

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// RunAgent is Linux's only: elsewhere there is no mount namespace to
// lay cordon over the shells in.
func RunAgent(argv []string, setup *AgentSetup, notes io.Writer) (int, error) {
	return 1, errors.New("it is Linux-only (it needs a mount namespace); here, put cordon's shims first on the agent's PATH and set its shell (SHELL, or the agent's shell setting) to the bash shim instead")
}

// agentShellsDir is "": cordon agent is Linux's only.
func agentShellsDir() string { return "" }

// selfPath is this binary's path, symbolic links resolved.
func selfPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(self)
}
