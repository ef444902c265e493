package decide

import (
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/audit"
	"github.com/cordonsh/cordon/filelock"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/sessionbox"
)

// makeSessionDir makes the sessions' directory before the policy is
// resolved, so that the policy hides it (a hidden path must exist): it
// holds the sessions' sockets and, with the network allowlist, the
// proxies' (sessions on or off), which no other sandbox may reach.
func makeSessionDir(ctx *Context) {
	net := platform.Network(ctx.Settings.Sandbox.Network)
	if state := StateDir(ctx.Getenv); state != "" && (ctx.Settings.Sandbox.SessionOn() || net == "" || net == platform.NetworkAllowlist) {
		os.MkdirAll(sessionbox.Dir(state), 0o700)
	}
}

// makeSnapshotDir makes the snapshot store's directory before the
// sandbox policy is made from ctx ([Context.Spec] calls it): a hidden
// path that does not exist yet cannot be hidden, and the store made
// afterwards (by the saver, right before the shell runs) would be
// readable inside the sandbox.
func makeSnapshotDir(ctx *Context) {
	if state := StateDir(ctx.Getenv); state != "" {
		os.MkdirAll(filepath.Join(state, "snapshots"), 0o700)
	}
}

// makeHiddenState makes the audit log and the locks directory
// ([filelock.Dir]), which the rules hide in the sandbox, before the
// policy is made: either would otherwise appear with the first command,
// the next command's hidden paths would differ, and it would get a new
// session sandbox (what the first left running out of its reach).
func makeHiddenState(ctx *Context) {
	state := StateDir(ctx.Getenv)
	if state == "" {
		return
	}
	if os.MkdirAll(filelock.Dir(state), 0o700) != nil {
		return
	}
	if f, err := os.OpenFile((&audit.Log{Dir: state}).File(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
		f.Close()
	}
}
