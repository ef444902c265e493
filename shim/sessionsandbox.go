package shim

import (
	"runtime"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/sessionbox"
)

// ExecConfined runs the program at path confined by c, in place of this
// process: in the agent session's sandbox (package sessionbox) when the
// settings leave sessions on and the command can run there, else in a
// sandbox of its own under a guard process. The session is the one
// CORDON_SESSION names, or, when agent is true, the agent process that
// started this one. It returns only when the program could not be run.
func ExecConfined(c *decide.Confinement, stateDir, path string, argv []string, getenv func(string) string, agent bool) error {
	return execConfined(c, stateDir, path, argv, getenv, agent, nil)
}

// execConfined is ExecConfined with the command's continuous guard round
// (nil: none): the session's manager starts it when something may have
// changed; in a sandbox of its own, its saver starts now.
func execConfined(c *decide.Confinement, stateDir, path string, argv []string, getenv func(string) string, agent bool, round *guardRound) error {
	env := c.Policy.Env
	named := getenv("CORDON_SESSION")
	if c.Settings != nil && c.Settings.Sandbox.SessionOn() && (agent || named != "") {
		// It returns only when the command did not run: then it runs in
		// a sandbox of its own, as without sessions.
		sessionbox.Exec(&sessionbox.Options{
			Backend: c.Backend, Policy: c.Policy, Since: c.AgentStart, StateDir: stateDir,
			Path: path, Argv: argv, Env: env, Session: named, Workspace: c.Workspace.Dir, Idle: c.Settings.Sandbox.SessionIdle,
			Round: round.session(),
		})
	}
	// (A session's manager started early for the command is not
	// needed: ended before the exec, which would inherit it.)
	sessionbox.Discard()
	round.startSaver()
	return guard.Exec(c.Backend, c.ForSandbox(), stateDir, path, argv, env)
}

// reconcileBefore puts back the guarded places of workspace ws before a
// command: what a dead guard left (see [guard.Sweep]), what a background
// process of a session's sandbox wrote since the last command, and what
// a command still running there (another one of the agent's) did so far
// ([guard.Reconcile]): the remotes it added are then the ledger's, never
// the person's, when this command's policy gives the person's git
// credential to the workspace's own remotes (found by an attacker:
// TestGitPushBesideRunning).
func reconcileBefore(stateDir, ws string) []string {
	if stateDir == "" {
		return nil
	}
	lines, _ := guard.Reconcile(stateDir, ws)
	return lines
}

// ConfineForSession is [decide.Confine] for a command that may run in a
// session's sandbox: the workspace's guarded places are put back first
// (see reconcileBefore), and the policy made after, so that it binds
// nothing that was moved away and reads the remotes a command still
// running added as the ledger's; the lines say what was put back.
func ConfineForSession(dir string, env []string, opts *decide.ConfineOptions) (*decide.Confinement, []string, error) {
	ctx, err := decide.NewContext(dir, env, opts)
	if err != nil {
		return nil, nil, err
	}
	var lines []string
	if ws := ctx.Workspace.Dir; ws != "" {
		lines = reconcileBefore(decide.StateDir(decide.EnvLookup(env)), ws)
		if len(lines) > 0 {
			// (What it read may be what was put back.)
			if ctx, err = decide.NewContext(dir, env, opts); err != nil {
				return nil, lines, err
			}
		}
	}
	ctx.ForSession = forSession(ctx.Settings)
	c, err := ctx.Confine(opts)
	return c, lines, err
}

// forSession reports whether a command may go to a session's sandbox
// with the settings cfg (see [ExecConfined]): then its policy is made
// without the repositories in scratch space ([decide.Context.ForSession]),
// which only a sandbox made for it needs.
func forSession(cfg *config.Config) bool {
	return runtime.GOOS == "linux" && cfg != nil && cfg.Sandbox.SessionOn()
}
