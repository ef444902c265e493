package platform

import "fmt"

// The sandbox backends a configuration can ask for.
const (
	// BackendAuto is bwrap when it works here, else Landlock (Linux);
	// Seatbelt (macOS); a restricted token (Windows).
	BackendAuto = "auto"
	// BackendBwrap is bubblewrap (Linux).
	BackendBwrap = "bwrap"
	// BackendLandlock is Landlock and seccomp applied in process (Linux).
	BackendLandlock = "landlock"
	// BackendSeatbelt is Seatbelt through sandbox-exec (macOS).
	BackendSeatbelt = "seatbelt"
	// BackendToken (wintoken.go) is a restricted token and a job object
	// (Windows).
	// BackendNone runs programs unconfined. Only a user's own
	// configuration can ask for it.
	BackendNone = "none"
)

// A SandboxError says why no sandbox can run here, and what to do.
type SandboxError struct {
	Backend string   // the backend asked for
	Reasons []string // one per backend tried
}

func (e *SandboxError) Error() string {
	msg := fmt.Sprintf("no sandbox (%s) can run here", e.Backend)
	for _, r := range e.Reasons {
		msg += "\n  - " + r
	}
	return msg + "\nnothing was run unconfined; fix one of the above, or, to run commands unconfined on purpose, set 'backend: none' in ~/.config/cordon/config.yaml"
}

// CheckBackend reports whether name is a backend name.
func CheckBackend(name string) error {
	switch name {
	case BackendAuto, BackendBwrap, BackendLandlock, BackendSeatbelt, BackendToken, BackendNone:
		return nil
	}
	return fmt.Errorf("unknown sandbox backend %q: want auto, bwrap, landlock, seatbelt, token or none", name)
}

// A Report describes a sandbox backend for people (cordon sandbox).
type Report struct {
	// Backend is the backend's name.
	Backend string `json:"backend"`
	// Detail is what the backend runs with ("/usr/bin/bwrap, bubblewrap 0.8.0").
	Detail string `json:"detail,omitempty"`
	// Degraded lists what the backend cannot enforce on this machine.
	Degraded []string `json:"degraded,omitempty"`
	// CommandLine is the sandbox's command line, where there is one.
	CommandLine []string `json:"command_line,omitempty"`
}
