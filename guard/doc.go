// Package guard makes sure that nothing a sandboxed command makes or
// changes at a guarded place (files the host's tools run or obey on their
// own: .git/hooks, .git/commondir, .envrc, .claude/settings.json, ...)
// outlives the command, however it ends.
//
// The shim starts a guard process (cordon re-executed as [Role]) that
// starts the sandbox and outlives the shim: it is the subreaper of all
// the command's processes, kills them all when the shell ends or the shim
// disappears (killed by SIGKILL), and then reconciles the workspace with
// its ledger in cordon's state directory: what differs from the trusted
// state is moved to a quarantine there and the trusted version put back,
// one line on stderr per path. The trusted state is taken from the disk
// when a command starts and no other runs in that workspace, so that a
// person's own edits between commands are kept, and parallel commands
// cannot make each other's files trusted. See docs/guard.md.
package guard

import "github.com/cordonsh/cordon/platform"

// Role is the argv[0] of the guard process (and of the step that sets
// resource limits before a confined program runs, see
// [platform.LimitRole]).
const Role = platform.LimitRole
