// Package sessionbox runs the commands of one agent session in one
// sandbox that outlives them, so that what a command starts in the
// background (a dev server) is still there for the next one, and so
// that a command does not pay for making a sandbox.
//
// Three processes take part (see docs/session.md):
//
//   - the shim (the client, [Exec]) judges the command as always, then
//     connects to the session's manager and sends the command: argv,
//     environment, directory, umask, and its descriptors 0, 1, 2 and
//     every other one it inherited, with SCM_RIGHTS;
//   - the manager ([ManagerRole], on the host, started by the first
//     command of the session) makes the sandbox, listens on a Unix
//     socket in a per-user directory that every sandbox hides, accepts
//     only the same user from outside every sandbox, and hands each
//     connection to the keeper; it ends the sandbox and everything in it
//     when the agent exits, after an idle time, or on cordon sandbox
//     --stop;
//   - the keeper ([KeeperRole], inside the sandbox, with its
//     restrictions) starts the real shell for each connection, in a
//     process group of its own with exactly the descriptors sent, and
//     reports how it ended.
//
// A session is keyed by everything that decides what its sandbox allows:
// the user, the agent process (or CORDON_SESSION), the backend, the whole
// resolved policy, cordon's binary, and what a process inherits besides
// (ignored signals, resource limits). A command whose key differs gets
// another sandbox; it never runs in one made for a looser policy.
package sessionbox

import "github.com/cordonsh/cordon/platform"

// The hidden roles (argv[0]) of cordon re-executed.
const (
	// ManagerRole is the session's manager, on the host.
	ManagerRole = "cordon-session"
	// KeeperRole is the session's keeper, inside the sandbox. bwrap
	// before 0.9 cannot set argv[0]: the keeper is run through a
	// symbolic link of that name, so its base name is the role. (With
	// the caches' layers it is the layers' process gone on as the
	// keeper: see platform.KeeperRole.)
	KeeperRole = platform.KeeperRole
)
