package platform

import (
	"fmt"
	"path/filepath"

	"github.com/cordonsh/cordon/netproxy"
)

// NetRole is argv[1] of cordon re-executed inside the sandbox to start
// the forwarder and exec the program: [cordon, NetRole, socket, path,
// argv...], or [cordon, NetRole, "serve", socket] for the forwarder. It
// is never taken under a shell's name, which is always judged.
const NetRole = "cordon-netfwd"

// NetRefused, when set, is told every destination the proxy refuses
// for the policy p (the audit log: package guard and sessionbox set it).
var NetRefused func(p *Policy, r *netproxy.Refusal)

// SessionsDir is the directory of the sessions' sockets (package
// sessionbox) and of the network proxies' in cordon's state directory:
// every sandbox hides it, so that none reaches another's session or
// proxy.
func SessionsDir(stateDir string) string { return filepath.Join(stateDir, "sessions") }

// allowlistFallback is for a backend that cannot enforce the network
// allowlist (Landlock, Seatbelt): the default allowlist becomes the
// network on, which the backend's report says; an allowlist the
// settings ask for is an error.
func allowlistFallback(p *Policy, backend string) error {
	if p == nil || p.Network != NetworkAllowlist {
		return nil
	}
	if !p.NetworkDefault {
		return fmt.Errorf("%s: the network allowlist needs the bwrap backend (a network namespace of its own, see docs/network.md): install bubblewrap, or set sandbox.network to on or off", backend)
	}
	p.Network, p.NetAllow, p.NetDeny = NetworkOn, nil, nil
	return nil
}
