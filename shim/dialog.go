package shim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/parse"
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
// approval from an agent's own dialog binds it: the agent's hook sees
// the command the model wrote, the shim sees it wrapped in the agent's
// own script (Claude Code's `source SNAPSHOT && eval 'CMD' && pwd -P >|
// FILE`, Cursor's `eval "$1"`), and what either refuses in it is the
// same. The judgement must carry its report ([Check]). "" when nothing
// is refused.
func RefusedPieces(j *rules.Judgement) string {
	var lines []string
	for _, rs := range blockingReasons(j) {
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

// dialogApproval takes the approval a person gave in the agent's own
// dialog for the ask req, if there is one: for the agent's session (the
// variable SessionVar, set by the agent for the commands it runs), the
// text the dialog showed, what is refused in req, and the directory.
//
// The text is the -c script itself, or the literal argument of an eval
// in it (Claude Code's wrapper: `... && eval 'CMD' < /dev/null && ...`).
// What is refused alone is not enough: the hook judges with the agent's
// environment for hooks, the shim with its shell's, so a command such as
// `${CLAUDE_CODE_SESSION_ID:+deploy} --env prod` is no question to the
// hook and `deploy --env prod` to the shim; bound to the refused piece
// only, it would take the approval of the dialog for `deploy --env prod`.
// It judges req again, for the report RefusedPieces needs, only when
// some approval is kept.
func (ctx *Context) dialogApproval(store *approval.Store, set *rules.Set, req Request) (string, bool) {
	session := ctx.Getenv(SessionVar)
	if session == "" || req.Windows || req.Inv == nil || req.Inv.Mode != ModeCommand || !store.HasGrants() {
		return "", false
	}
	j, err := safeJudgeWith(func() *rules.Judgement {
		return judgeWith(set, req.Inv, ctx.Dir, ctx.Env, ctx.Workspace, false, true, gitHost(ctx), ctx.writable(), ctx.seen(), ctx.installed)
	})
	if err != nil || j.Verdict != rules.Ask {
		return "", false
	}
	pieces := RefusedPieces(j)
	texts := append([]string{req.Inv.Script}, parse.EvalLiterals(req.Inv.Script, req.Inv.Dialect)...)
	for _, text := range texts {
		if id, ok := store.Use(approval.DialogKey(session, text, pieces, ctx.Dir)); ok {
			return id, true
		}
	}
	return "", false
}
