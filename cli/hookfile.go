package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cordonsh/cordon/installer"
	"github.com/cordonsh/cordon/rules"
)

// An agent's own file tools (Claude Code's Write, Edit, MultiEdit and
// NotebookEdit; Cursor's Write and Delete) change files without a shell:
// the shim never sees them. cordon hook judges each change as the same
// change made by a shell command, with the same judge, rules and
// messages: a write is `TOOL > FILE`, a delete `rm -f -- FILE`. So a
// write to a place programs run from (the rules' autorun list, at any
// depth), to a credential or outside the workspace is asked about or
// refused exactly as the shell's would be, and an ordinary source file
// gets no opinion. What the write would overwrite in the workspace is no
// question here: the agent's own tool edits files by design, and keeps
// its own checkpoints of them.

// fileChange is what one call of a file tool does.
type fileChange struct {
	tool, path, effect string
}

// agentFileTool returns the file tool name of agent, or nil.
func agentFileTool(agent, name string) *installer.FileTool {
	agents, err := installer.Agents()
	if err != nil {
		return nil
	}
	for i := range agents {
		if agents[i].Name == agent {
			return agents[i].FileTool(name)
		}
	}
	return nil
}

// fileChangeOf reads the change a call of the file tool ft makes from
// its input; why says what is missing.
func fileChangeOf(ft *installer.FileTool, tool string, input map[string]json.RawMessage) (*fileChange, string) {
	for _, field := range ft.Path {
		raw, ok := input[field]
		if !ok {
			continue
		}
		var p string
		if json.Unmarshal(raw, &p) != nil || p == "" {
			return nil, fmt.Sprintf("the %s tool's %s is not a file name", tool, field)
		}
		if strings.ContainsRune(p, 0) {
			return nil, fmt.Sprintf("the %s tool's %s holds a NUL byte", tool, field)
		}
		return &fileChange{tool: tool, path: p, effect: ft.Effect}, ""
	}
	return nil, fmt.Sprintf("the hook input names no file for the %s tool (%s)", tool, strings.Join(ft.Path, " or "))
}

// script is the shell command that makes the same change: what the
// judge is given.
func (c *fileChange) script() string {
	q := "'" + strings.ReplaceAll(c.path, "'", `'\''`) + "'"
	if c.effect == "delete" {
		return "rm -f -- " + q
	}
	return c.tool + " > " + q
}

// judgeFileChange judges c made in the directory cwd (relative paths are
// taken from there), with the verdict the hook answers.
func judgeFileChange(shell string, c *fileChange, cwd string) (*rules.Judgement, rules.Verdict, string) {
	if !filepath.IsAbs(c.path) && filepath.IsAbs(cwd) {
		c.path = filepath.Join(cwd, c.path)
	}
	script := c.script()
	j, why := hookJudge(shell, &script, cwd)
	if why != "" {
		return nil, rules.Ask, why
	}
	return j, hookVerdict(j), ""
}

// claudeFileHook answers Claude Code's PreToolUse and PermissionRequest
// for a tool other than Bash: no opinion unless it is one of its file
// tools. Nothing is kept for the shim: the tool writes the file itself.
func claudeFileHook(in *claudeInput, stdout, stderr io.Writer) int {
	ft := agentFileTool("claude-code", in.ToolName)
	if ft == nil {
		return exitOK // not a tool cordon knows: no opinion
	}
	c, why := fileChangeOf(ft, in.ToolName, in.ToolInput)
	var j *rules.Judgement
	verdict := rules.Ask
	if why == "" {
		j, verdict, why = judgeFileChange(claudeShell(), c, in.Cwd)
	}
	if why != "" {
		fmt.Fprintf(stderr, "cordon hook claude-code: %s; the file was not changed\n", why)
		return claudeBlock
	}
	if verdict == rules.Allow || in.Event == "PermissionRequest" && verdict == rules.Ask {
		return exitOK
	}
	reason := hookReason(j)
	if verdict == rules.Ask {
		reason += ". A person can allow it in Claude Code's dialog, or make the change themselves"
	}
	out := map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       verdict.String(),
		"permissionDecisionReason": reason,
	}}
	if in.Event == "PermissionRequest" {
		out = map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PermissionRequest",
			"decision":      map[string]any{"behavior": "deny", "message": reason},
		}}
	}
	return writeHookJSON(stdout, stderr, out, claudeBlock)
}

// cursorFileHook answers Cursor's preToolUse: no opinion unless the tool
// is one of its file tools.
func cursorFileHook(in *cursorInput, stdout io.Writer) int {
	ft := agentFileTool("cursor", in.ToolName)
	if ft == nil {
		return writeHookJSON(stdout, io.Discard, map[string]any{}, exitError)
	}
	cwd := in.Cwd
	if !filepath.IsAbs(cwd) && len(in.Roots) > 0 {
		cwd = in.Roots[0]
	}
	c, why := fileChangeOf(ft, in.ToolName, in.ToolInput)
	var j *rules.Judgement
	verdict := rules.Ask
	if why == "" {
		j, verdict, why = judgeFileChange(cursorShell(), c, cwd)
	}
	if why != "" {
		msg := "cordon: " + why + "; the file was not changed"
		return writeHookJSON(stdout, io.Discard, map[string]any{"permission": "deny", "user_message": msg, "agent_message": msg}, exitError)
	}
	if verdict == rules.Allow {
		return writeHookJSON(stdout, io.Discard, map[string]any{}, exitError)
	}
	reason := hookReason(j)
	return writeHookJSON(stdout, io.Discard, map[string]any{"permission": verdict.String(), "user_message": reason, "agent_message": reason}, exitError)
}
