//go:build !linux && !darwin && !windows

package platform

import "runtime"

// Sandbox returns the backend that confines programs by p. On this
// system there is none yet: only 'none' (unconfined, on purpose) works.
func Sandbox(name string, p *Policy, stateDir string) (Backend, error) {
	if err := CheckBackend(name); err != nil {
		return nil, err
	}
	if name == BackendNone {
		return Direct, nil
	}
	return nil, &SandboxError{Backend: name, Reasons: []string{"cordon has no sandbox for " + runtime.GOOS + " yet"}}
}

// Confined reports whether this process already runs inside a sandbox
// that holds p. On this system cordon has no sandbox, so it reports false.
func Confined(p *Policy) bool { return false }

// Filtered reports whether this process runs under no_new_privs and a
// seccomp filter; only Linux has them.
func Filtered() bool { return false }

// Describe reports how b confines a program.
func Describe(b Backend, path string, argv []string) *Report {
	r := &Report{Backend: b.Name()}
	if b == Direct {
		r.Degraded = []string{"nothing is confined: the settings ask for no sandbox (backend: none)"}
	}
	return r
}
