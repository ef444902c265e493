package decide

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/rules"
)

// SessionVar is the variable in which Claude Code gives the commands of
// its Bash tool the id of its session: the session_id its hooks are
// given. An approval from its permission dialog (cordon hook) is for
// that session only.
const SessionVar = "CLAUDE_CODE_SESSION_ID"

// RefusedPieces is what the judgement j refuses, one line per reason
// that does not allow: the verdict, the rule, the message and the command
// it is about (its expanded line, its directory, and how many times the
// judge found it: one reason stands for `deploy; deploy`), sorted. An
// approval of a command an agent wrapped binds it: the agent's hook sees
// the command the model wrote, the shim sees it wrapped in the agent's
// own script (Claude Code's `source SNAPSHOT && eval 'CMD' && pwd -P >|
// FILE`), and what either refuses in it is the same. The judgement must
// carry its report ([Check]). "" when nothing is refused.
func RefusedPieces(j *rules.Judgement) string {
	var lines []string
	for _, rs := range BlockingReasons(j) {
		f := []string{rs.Verdict.String(), rs.Rule, rs.Message, "", "", ""}
		if rs.Command >= 0 && rs.Command < len(j.Commands) {
			c := j.Commands[rs.Command]
			n := 0
			for _, o := range j.Commands {
				if o.Line == c.Line && o.Dir == c.Dir {
					n++
				}
			}
			f[3], f[4], f[5] = c.Line, c.Dir, strconv.Itoa(n)
		}
		lines = append(lines, strings.Join(f, "\x1f"))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// An agentCommand is the command an agent's model wrote, found inside
// the agent's wrapper of a request ([rules.Set.Unwrap]), with what cordon
// refuses in the request.
type agentCommand struct {
	agent, shell, command, pieces string
}

// key is what an approval of c is bound to ([approval.AgentKey]).
func (c *agentCommand) key(dir string) string {
	return approval.AgentKey(c.agent, c.shell, c.command, c.pieces, dir)
}

// agentCommand unwraps the ask req when its -c script is exactly one of
// the agents' wrappers, given by a shell with no option but -l where the
// wrapper allows it and no argument after the script: then everything
// outside the command is the wrapper's fixed text or its narrow
// temporary names. It judges req again, for the report RefusedPieces
// needs; nil when req is no agent's wrapper.
func (ctx *Context) agentCommand(set *rules.Set, req Request) *agentCommand {
	inv := req.Inv
	if req.Windows || inv == nil || inv.Mode != invocation.ModeCommand || len(inv.Params) > 0 || len(inv.Argv) == 0 || inv.Arg0 != inv.Argv[0] ||
		len(inv.Options) > 0 || inv.Interactive || inv.RcFile != "" || inv.NoRc || inv.NoProfile || req.Bind != "" {
		return nil
	}
	u, ok := set.Unwrap(inv.Shell, inv.Login, inv.Script)
	if !ok {
		return nil
	}
	j, err := safeJudgeWith(func() *rules.Judgement {
		return judgeWith(set, inv, ctx.Dir, ctx.Env, ctx.Workspace, false, true, GitHost(ctx), ctx.writable(), ctx.seen(), ctx.installed, ctx.brokered(), ctx.outlines())
	})
	if err != nil || j.Verdict != rules.Ask {
		return nil
	}
	return &agentCommand{agent: u.Agent, shell: inv.Shell, command: u.Command, pieces: RefusedPieces(j)}
}

// dialogApproval takes the approval a person gave in the agent's own
// dialog for the ask req, if there is one: for the agent's session (the
// variable SessionVar, set by the agent for the commands it runs), the
// text the dialog showed, what is refused in req, and the directory.
//
// The text is the command inside Claude Code's wrapper (ac), or the -c
// script itself when it is no wrapper. What is refused alone is not
// enough: the hook judges with the agent's environment for hooks, the
// shim with its shell's, so a command such as
// `${CLAUDE_CODE_SESSION_ID:+deploy} --env prod` is no question to the
// hook and `deploy --env prod` to the shim; bound to the refused piece
// only, it would take the approval of the dialog for `deploy --env
// prod`. A script that is no wrapper is judged again, for the report
// RefusedPieces needs, only when some approval is kept.
func (ctx *Context) dialogApproval(store *approval.Store, set *rules.Set, req Request, ac *agentCommand) (string, bool) {
	session := ctx.Getenv(SessionVar)
	if session == "" {
		return "", false
	}
	if ac != nil {
		if ac.agent != "claude-code" {
			return "", false
		}
		return store.Use(approval.DialogKey(session, ac.command, ac.pieces, ctx.Dir))
	}
	if req.Windows || req.Inv == nil || req.Inv.Mode != invocation.ModeCommand || !store.HasGrants() {
		return "", false
	}
	j, err := safeJudgeWith(func() *rules.Judgement {
		return judgeWith(set, req.Inv, ctx.Dir, ctx.Env, ctx.Workspace, false, true, GitHost(ctx), ctx.writable(), ctx.seen(), ctx.installed, ctx.brokered(), ctx.outlines())
	})
	if err != nil || j.Verdict != rules.Ask {
		return "", false
	}
	return store.Use(approval.DialogKey(session, req.Inv.Script, RefusedPieces(j), ctx.Dir))
}
