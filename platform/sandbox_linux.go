package platform

import (
	"path/filepath"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// Sandbox returns the backend that confines programs by p. name is auto,
// bwrap, landlock or none; auto takes bwrap when its probe passes, else
// Landlock. stateDir holds the probes' caches ("" for none). The
// error, a [*SandboxError], explains what is missing and how to fix it.
func Sandbox(name string, p *Policy, stateDir string) (Backend, error) {
	if err := CheckBackend(name); err != nil {
		return nil, err
	}
	serr := &SandboxError{Backend: name}
	if name == BackendNone {
		return Direct, nil
	}
	p.keepListingsIn(stateDir)
	if name == BackendSeatbelt {
		serr.Reasons = append(serr.Reasons, "seatbelt is macOS's sandbox; on Linux use auto, bwrap or landlock")
		return nil, serr
	}
	if name == BackendAuto && Filtered() {
		// Under no_new_privs and a seccomp filter already (a sandbox
		// around this one, whose policy Confined found weaker): bwrap
		// needs user namespaces, which such sandboxes forbid, and its
		// cached probe, made outside, cannot tell. Landlock stacks.
		serr.Reasons = append(serr.Reasons, "bwrap: this process is already under no_new_privs and a seccomp filter")
	} else if name == BackendAuto || name == BackendBwrap {
		b, err := newBwrap(p, stateDir)
		if err == nil {
			return b, nil
		}
		serr.Reasons = append(serr.Reasons, err.Error())
	}
	if name == BackendAuto || name == BackendLandlock {
		l, err := newLandlockBackend(p, false, stateDir)
		if err == nil && l.nsErr != nil {
			// No network namespace: the allowlist cannot hold.
			err = allowlistFallback(p, BackendLandlock, "a network namespace of the command's own, and "+l.nsErr.Error())
		}
		if err == nil {
			l.stateDir = stateDir
			return l, nil
		}
		serr.Reasons = append(serr.Reasons, err.Error())
	}
	return nil, serr
}

// newBwrap returns the bwrap backend when bwrap is installed and works.
func newBwrap(p *Policy, stateDir string) (*bwrapBackend, error) {
	path, err := FindBwrap()
	if err != nil {
		return nil, err
	}
	if max, err := smallfile.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(max)) == "0" {
		// Inside a sandbox made with --disable-userns (cordon's own, when
		// a confined script starts a shell), or a system without them.
		return nil, errorString("bwrap cannot run here: user namespaces are disabled (user.max_user_namespaces is 0)")
	}
	pr, err := ProbeBwrap(path, stateDir)
	if err != nil {
		return nil, err
	}
	if !pr.Works {
		return nil, errorString(pr.Problem)
	}
	return &bwrapBackend{probe: pr, policy: p, empty: emptyFile(stateDir), stateDir: stateDir}, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// Describe reports how b confines a program: its name, the details a
// person needs (bwrap's path and version), what it cannot enforce here,
// and, for bwrap, the command line it would run for path and argv (the
// descriptors it would read are shown as numbers from 100 on).
func Describe(b Backend, path string, argv []string) *Report {
	r := &Report{Backend: b.Name()}
	switch b := b.(type) {
	case *bwrapBackend:
		r.Detail = b.probe.Path + ", " + b.probe.Version
		if abi, err := ll.LandlockGetABIVersion(); err != nil || abi < 6 {
			r.Degraded = append(r.Degraded, "with the network on, the host's abstract Unix sockets (an X server's) stay reachable: scoping them needs Landlock ABI 6 (Linux 6.12)")
		}
		r.Degraded = append(r.Degraded, b.policy.SocketDegradations(false, true)...)
		next := 100
		if len(b.policy.Caches) > 0 && b.policy.Layer == "" {
			// Where a start's layers would be: the first set.
			c := *b
			p := *b.policy
			p.Layer = filepath.Join(layerRoot(b.stateDir, p.Workspace), "0")
			c.policy = &p
			b = &c
		}
		fake := func() (int, error) { next++; return next - 1, nil }
		r.CommandLine, _ = b.args(path, argv, "", true, func([]byte) (int, error) { return fake() }, func(string) (int, error) { return fake() })
	case *landlockBackend:
		if b.userns {
			r.Detail = "mounts made in a user namespace of the command's own"
		}
		r.Degraded = b.Degraded()
	case direct:
		r.Degraded = []string{"nothing is confined: the settings ask for no sandbox (backend: none)"}
	}
	return r
}

// Filtered reports whether this process runs under no_new_privs and a
// seccomp filter, as inside cordon's sandbox (either backend) and most
// others: bwrap cannot start there, and a Landlock domain only stacks.
func Filtered() bool {
	status, err := selfStatus()
	return err == nil && statusField(status, "NoNewPrivs", "1") && statusField(status, "Seccomp", "2")
}
