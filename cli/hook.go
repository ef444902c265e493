package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/rules"
)

func hookCommand() *command {
	return &command{
		name:  "hook",
		args:  "claude-code | cursor",
		short: "answer an agent's hook before each shell command: deny, ask in the agent's own dialog, or no opinion",
		long: `Reads the agent's hook input (JSON) on standard input and judges its
shell command with the same rules as the shim, in the directory the input
names. A deny is answered as a deny with cordon's reason, which the model
sees; an ask as an ask, so that the person sees the agent's own dialog
with cordon's reason in it; anything else with no opinion (the agent's
own permission rules apply), never with an allow.

claude-code: a command hook for the events PreToolUse and
PermissionRequest, matcher "Bash". When Claude Code shows its dialog for
a command cordon asks about (PermissionRequest), cordon keeps an
approval for once, for that session, directory, command text and what cordon refuses
in the command, for 5 minutes: the shim takes it when Claude Code then
runs the command. The shim stays the judge: a command the dialog was not
shown for is refused there (docs/hooks.md). An ask also names the id
cordon approve takes, for runs that show no dialog (claude -p). With the
matcher "Write|Edit|MultiEdit|NotebookEdit" it judges Claude Code's own
file tools: a write is judged as the same change made by a shell.

cursor: a beforeShellExecution hook, and a preToolUse hook for the
agent's own file tools (Write, Delete). Cursor has no event that says its
dialog was shown, so no approval is kept: after the dialog the shim
refuses the ask as it would without the hook, with the id a person
approves with cordon approve.

Malformed input, or a command that cannot be judged, is refused in the
agent's terms (Claude Code: exit status 2, the message on standard error).`,
		run: runHook,
	}
}

// hookInput is where cordon hook reads the agent's JSON.
var hookInput io.Reader = os.Stdin

// maxHookInput bounds the JSON read from the agent.
const maxHookInput = 4 << 20

// claudeInput is the part of Claude Code's hook input cordon reads.
type claudeInput struct {
	SessionID      string `json:"session_id"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	Event          string `json:"hook_event_name"`
	ToolName       string `json:"tool_name"`
	// ToolInput is the tool's input: for Bash {command}, for a file tool
	// the fields its installer/agents.yaml entry names.
	ToolInput map[string]json.RawMessage `json:"tool_input"`
}

// command is the Bash tool's command, nil when there is none.
func (in *claudeInput) command() *string {
	var cmd string
	if raw, ok := in.ToolInput["command"]; !ok || json.Unmarshal(raw, &cmd) != nil {
		return nil
	}
	return &cmd
}

// cursorInput is the part of Cursor's beforeShellExecution and
// preToolUse input cordon reads.
type cursorInput struct {
	Event     string                     `json:"hook_event_name"`
	Command   *string                    `json:"command"`
	Cwd       string                     `json:"cwd"`
	Roots     []string                   `json:"workspace_roots"`
	ToolName  string                     `json:"tool_name"`
	ToolInput map[string]json.RawMessage `json:"tool_input"`
}

// dialogModes are Claude Code's permission modes in which its
// PermissionRequest event means that its dialog is put to a person
// (Claude Code 2.1 shows it for a hook's ask even when it bypasses its
// own permissions): only there does the dialog's approval reach the
// shim. A mode not listed (dontAsk, a mode of a later version) keeps none.
var dialogModes = []string{"default", "acceptEdits", "plan", "bypassPermissions"}

func runHook(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return c.usageError(stderr, "name the agent: claude-code or cursor")
	}
	data, err := io.ReadAll(io.LimitReader(hookInput, maxHookInput+1))
	if err == nil && len(data) > maxHookInput {
		err = fmt.Errorf("more than %d bytes", maxHookInput)
	}
	switch fs.Arg(0) {
	case "claude-code":
		return claudeHook(data, err, stdout, stderr)
	case "cursor":
		return cursorHook(data, err, stdout)
	}
	return c.usageError(stderr, "unknown agent %q: want claude-code or cursor", fs.Arg(0))
}

// Claude Code's exit statuses: 2 blocks the tool call and shows standard
// error to the model; any other failure is not blocking.
const claudeBlock = 2

func claudeHook(data []byte, readErr error, stdout, stderr io.Writer) int {
	var in claudeInput
	err := readErr
	if err == nil {
		err = json.Unmarshal(data, &in)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cordon hook claude-code: cannot read the hook input: %v; the command was not run (cordon refuses what it cannot read)\n", err)
		return claudeBlock
	}
	switch in.Event {
	case "PreToolUse", "PermissionRequest":
	default:
		fmt.Fprintf(stderr, "cordon hook claude-code: hook event %q: cordon answers PreToolUse and PermissionRequest only; fix the hook's event in Claude Code's settings (cordon install does it)\n", in.Event)
		return claudeBlock
	}
	if in.ToolName != "Bash" {
		return claudeFileHook(&in, stdout, stderr)
	}
	j, why := hookJudge(claudeShell(), in.command(), in.Cwd)
	if why != "" {
		fmt.Fprintf(stderr, "cordon hook claude-code: %s; the command was not run\n", why)
		return claudeBlock
	}
	verdict := hookVerdict(j)
	if in.Event == "PreToolUse" {
		if verdict == rules.Allow {
			return exitOK
		}
		if verdict == rules.Ask && approvedRetry(&in, j) {
			// A person approved it with cordon approve: the shim
			// takes the approval when it runs the command.
			return exitOK
		}
		reason := hookReason(j)
		if verdict == rules.Ask {
			reason += askNextStep(&in, j)
		}
		out := map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":            "PreToolUse",
			"permissionDecision":       verdict.String(),
			"permissionDecisionReason": reason,
		}}
		return writeHookJSON(stdout, stderr, out, claudeBlock)
	}
	// PermissionRequest: Claude Code is about to put its dialog to the
	// person. A deny is refused here too; an ask is approved for once
	// in the shim, should the person say yes.
	switch verdict {
	case rules.Allow:
		return exitOK
	case rules.Deny:
		out := map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PermissionRequest",
			"decision":      map[string]any{"behavior": "deny", "message": hookReason(j)},
		}}
		return writeHookJSON(stdout, stderr, out, claudeBlock)
	}
	if err := keepDialogApproval(&in, j); err != nil {
		// Not blocking: the dialog is still shown, and the shim then
		// refuses the command with the id cordon approve takes.
		fmt.Fprintf(stderr, "cordon hook claude-code: %v; if you approve, cordon will still refuse the command and print the id to approve it with `cordon approve ID` in a terminal\n", err)
		return exitError
	}
	return exitOK
}

// keepDialogApproval keeps the approval for once of the ask j that the
// dialog of in is about to put to a person.
func keepDialogApproval(in *claudeInput, j *rules.Judgement) error {
	if why, sandboxed := decide.Sandboxed(); sandboxed {
		return fmt.Errorf("cordon hook runs inside a sandbox (%s), where approvals cannot be given: Claude Code runs its hooks outside", why)
	}
	if !slices.Contains(dialogModes, in.PermissionMode) {
		return fmt.Errorf("permission mode %q does not put the dialog to a person, so its answer is not passed on to the shim", in.PermissionMode)
	}
	if in.SessionID == "" {
		return errors.New("the hook input has no session_id, which the approval is bound to")
	}
	state := decide.StateDir(os.Getenv)
	if state == "" {
		return errors.New("there is no state directory (set HOME or XDG_STATE_HOME)")
	}
	dir, _ := resolveDir(in.Cwd)
	cmd := *in.command()
	key := approval.DialogKey(in.SessionID, cmd, decide.RefusedPieces(j), dir)
	if _, err := approval.New(state).GrantDialog(key, cmd, dir); err != nil {
		return fmt.Errorf("cannot keep the approval: %v", err)
	}
	return nil
}

// agentKey is the key the shim binds an approval of in's command to
// when Claude Code runs it in its wrapper (approval.AgentKey).
func agentKey(in *claudeInput, j *rules.Judgement) (key, dir string) {
	dir, _ = resolveDir(in.Cwd)
	return approval.AgentKey("claude-code", claudeShell(), *in.command(), decide.RefusedPieces(j), dir), dir
}

// approvedRetry reports whether a person approved the ask j of in's
// command (cordon approve ID, after askNextStep named the id), so that
// the agent's retry goes on to the shim instead of being asked again.
func approvedRetry(in *claudeInput, j *rules.Judgement) bool {
	state := decide.StateDir(os.Getenv)
	if _, sandboxed := decide.Sandboxed(); sandboxed || state == "" {
		return false
	}
	key, _ := agentKey(in, j)
	return approval.New(state).Granted(key)
}

// askNextStep records the ask j of in's command for cordon approve, as
// the shim records it when Claude Code runs the command in its wrapper
// (the key of the command inside: approval.AgentKey), and says what a
// person can do when Claude Code shows no dialog (claude -p turns an ask
// into a refusal the model sees): approve that id, and the agent's retry
// runs. Where nothing can be recorded (inside cordon's sandbox, no state
// directory) it says what else works.
func askNextStep(in *claudeInput, j *rules.Judgement) string {
	const other = " If Claude Code shows no dialog (claude -p), run the command yourself in a terminal, or allow it with a rule (cordon explain says which)"
	state := decide.StateDir(os.Getenv)
	if _, sandboxed := decide.Sandboxed(); sandboxed || state == "" {
		return "." + other
	}
	key, dir := agentKey(in, j)
	cmd := *in.command()
	var reasons []string
	for _, rs := range j.Reasons {
		if rs.Verdict != rules.Allow {
			reasons = append(reasons, rs.Message)
		}
	}
	a := &approval.Ask{Key: key, Mode: "command",
		Text: cmd, Shown: cmd, Dir: dir, Reasons: reasons, Time: time.Now(), Agent: "claude-code"}
	if ws, err := decide.Workspace(dir, os.Getenv); err == nil {
		a.Workspace = ws.Dir
	}
	if approval.New(state).Record(a) != nil {
		return "." + other
	}
	return fmt.Sprintf(". If Claude Code shows no dialog (claude -p), a person can approve it with `cordon approve %s` in a terminal, and the agent's retry then runs it; or allow it with a rule (cordon explain says which)", a.ID)
}

// cursorHook answers Cursor's beforeShellExecution, and its preToolUse
// for the agent's own file tools. Its no opinion is an object without a
// permission.
func cursorHook(data []byte, readErr error, stdout io.Writer) int {
	var in cursorInput
	err := readErr
	if err == nil {
		err = json.Unmarshal(data, &in)
	}
	refuse := func(msg string) int {
		msg = "cordon: " + msg + "; the command was not run"
		return writeHookJSON(stdout, io.Discard, map[string]any{"permission": "deny", "user_message": msg, "agent_message": msg}, exitError)
	}
	switch {
	case err != nil:
		return refuse("cannot read the hook input: " + err.Error())
	case in.Event == "preToolUse":
		return cursorFileHook(&in, stdout)
	case in.Event != "beforeShellExecution":
		return refuse(fmt.Sprintf("hook event %q: cordon hook cursor answers beforeShellExecution and preToolUse only; fix the event in Cursor's hooks.json", in.Event))
	}
	j, why := hookJudge(cursorShell(), in.Command, in.Cwd)
	if why != "" {
		return refuse(why)
	}
	verdict := hookVerdict(j)
	if verdict == rules.Allow {
		return writeHookJSON(stdout, io.Discard, map[string]any{}, exitError)
	}
	reason := hookReason(j)
	user := reason
	if verdict == rules.Ask {
		user += ". If you approve here, cordon still refuses the command once and prints the id a person approves it with (`cordon approve ID`, in a terminal): Cursor does not tell cordon what you answered."
	}
	return writeHookJSON(stdout, io.Discard, map[string]any{"permission": verdict.String(), "user_message": user, "agent_message": reason}, exitError)
}

// hookJudge judges command as the shell (bash, zsh) would run it with
// -c in the directory cwd, with the shim's judge (see judge). why says
// what is wrong with the input, or why it could not be judged.
func hookJudge(shell string, command *string, cwd string) (*rules.Judgement, string) {
	switch {
	case command == nil || strings.TrimSpace(*command) == "":
		return nil, "the hook input has no command"
	case !filepath.IsAbs(cwd):
		return nil, fmt.Sprintf("the hook input's cwd %q is not an absolute directory", cwd)
	}
	dir, err := resolveDir(cwd)
	if err != nil {
		return nil, err.Error()
	}
	j, err := judge(&judgeRequest{cwd: dir, platform: "linux", argv: []string{shell, "-c", *command}})
	if err != nil {
		return nil, "could not judge the command: " + err.Error()
	}
	return j, ""
}

// hookVerdict is what the shim will do with j: an ask whose every reason
// is workspace content a snapshot can keep first is run by the shim (it
// saves it, then runs), so it is no question for the dialog.
func hookVerdict(j *rules.Judgement) rules.Verdict {
	if j.Verdict == rules.Ask && j.Savable() {
		return rules.Allow
	}
	return j.Verdict
}

// hookReason is cordon's reason for the dialog or the model: the verdict
// and the message and rule of each reason that did not allow.
func hookReason(j *rules.Judgement) string {
	var parts []string
	for _, rs := range j.Reasons {
		if rs.Verdict != rules.Allow {
			parts = append(parts, printable.String(rs.Message)+" [rule "+printable.String(rs.Rule)+"]")
		}
	}
	head := "cordon asks a person: "
	if j.Verdict == rules.Deny {
		head = "cordon refuses this: "
	}
	return head + strings.Join(parts, "; ")
}

// writeHookJSON writes v on one line; code is the status when that fails.
func writeHookJSON(stdout, stderr io.Writer, v any, code int) int {
	data, err := json.Marshal(v)
	if err == nil {
		_, err = fmt.Fprintf(stdout, "%s\n", data)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cordon hook: cannot answer: %v; the command was not run\n", err)
		return code
	}
	return exitOK
}

// claudeShell is the shell Claude Code runs its commands with: zsh when
// CLAUDE_CODE_SHELL names it, else bash.
func claudeShell() string {
	if strings.Contains(filepath.Base(os.Getenv("CLAUDE_CODE_SHELL")), "zsh") {
		return "zsh"
	}
	return "bash"
}

// cursorShell is the shell Cursor's agent runs commands with: the
// user's, zsh or bash.
func cursorShell() string {
	if filepath.Base(os.Getenv("SHELL")) == "zsh" {
		return "zsh"
	}
	return "bash"
}
