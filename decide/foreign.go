package decide

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/platform"
)

// Inside another sandbox than cordon's (an agent's own: Codex runs its
// commands under bwrap and a seccomp filter of its own), the shim still
// judges every command and confines it as far as that sandbox lets it,
// but it loses what needs its state directory (read-only there) or a
// mount namespace (refused there): the audit log, ids for cordon
// approve, snapshots before destructive commands, hiding files from a
// listing, the network allowlist. It says so once per agent session, and
// with every refusal. Which sandbox it is in is found by testing the
// confinement itself (no_new_privs, a seccomp filter that is not
// cordon's, the policy not held: [platform.Confined]), never from a
// variable the agent could set or clear.

// foreignWhy says how this process is confined by another sandbox than
// cordon's, or "" when it runs in none, in cordon's (confined: it holds
// p), or cannot tell. A shell started in cordon's sandbox for another
// workspace holds another policy, but the credentials are hidden all the
// same; another agent's sandbox (Codex's) lets them be read.
func foreignWhy(confined bool, p *platform.Policy) string {
	if confined || p == nil {
		return ""
	}
	why, in := Sandboxed()
	if !in {
		return ""
	}
	if hides, ok := platform.HidesCredentials(p); !ok || hides {
		return ""
	}
	return why
}

// foreignNetwork is p with the network on when this process runs inside
// another sandbox whose network namespace holds nothing but loopback,
// and cordon's state directory, where the allowlist's proxy would listen,
// is read-only: the proxy cannot run there, and there is nothing outside
// for it to let through. The other sandbox's loopback is its own.
func foreignNetwork(p *platform.Policy, state string) *platform.Policy {
	if p.Network != platform.NetworkAllowlist || !stateReadOnly(state) || foreignWhy(false, p) == "" || !platform.LoopbackOnly() {
		return p
	}
	q := *p
	q.Network, q.NetAllow, q.NetDeny = platform.NetworkOn, nil, nil
	return &q
}

// foreignLost is what cordon cannot do inside another sandbox (why),
// with the backend's own list of what it cannot enforce there.
func foreignLost(why, state string, degraded []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cordon: this shell runs inside another sandbox than cordon's (%s; an agent's own, such as Codex's): cordon still judges every command and confines it as far as that sandbox lets it", why)
	if stateReadOnly(state) {
		b.WriteString(", but it cannot write its state directory there: nothing goes to its audit log, an ask gets no id for cordon approve, and what a destructive command would lose is not saved first (the command is refused instead)")
	}
	if len(degraded) > 0 {
		b.WriteString("; not enforced here: " + strings.Join(degraded, "; "))
	}
	b.WriteString(". " + foreignFix)
	return printable.String(b.String()) + "\n"
}

// foreignFix is what to do inside another sandbox.
const foreignFix = "Run the agent without a sandbox of its own, under cordon agent (Codex: cordon agent -- codex --sandbox danger-full-access; docs/agents.md)"

// ForeignNotice is foreignLost for the confinement c a command is about
// to run in, at most once an hour (about once per agent session: inside
// Codex's sandbox every command has a parent of its own), remembered in
// the state directory or, where that is read-only, in a directory of
// this user's in the temporary directory; "" when the command runs in
// no other sandbox, or it was said. Where nothing can be remembered it
// says nothing: every refusal says it.
func ForeignNotice(c *Confinement, state string) string {
	if c == nil || c.Nested || c.Unconfined {
		return ""
	}
	why := foreignWhy(false, c.Policy)
	if why == "" {
		return ""
	}
	dir := state
	if stateReadOnly(state) {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("cordon-%d", os.Geteuid()))
		if os.Mkdir(dir, 0o700) != nil && !privateDir(dir) {
			return ""
		}
	}
	file := filepath.Join(dir, "foreign-sandbox-notice")
	if fi, err := os.Stat(file); err == nil && time.Since(fi.ModTime()) < foreignNoticeEvery {
		return ""
	}
	if os.WriteFile(file, nil, 0o600) != nil || os.Chtimes(file, time.Now(), time.Now()) != nil {
		return ""
	}
	return foreignLost(why, state, platform.Describe(c.Backend, "/bin/sh", []string{"sh"}).Degraded)
}

// foreignNoticeEvery is how often the notice is said again.
const foreignNoticeEvery = time.Hour

// ForeignRefusal is what a refusal adds inside another sandbox: that
// nothing of it could be recorded, and what to do.
func (ctx *Context) ForeignRefusal() string {
	if _, in := Sandboxed(); !in || ctx.Settings == nil {
		return ""
	}
	p, _ := ctx.Policy()
	why := foreignWhy(ctx.Confined(), p)
	if why == "" {
		return ""
	}
	msg := fmt.Sprintf("inside another sandbox than cordon's (%s)", why)
	if stateReadOnly(StateDir(ctx.Getenv)) {
		msg += ", cordon can neither record this ask for cordon approve nor log it"
	}
	return "  " + printable.String(msg+". "+foreignFix) + "\n"
}
