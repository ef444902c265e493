package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hookEnv is a home, settings, state and a git workspace of the test's
// own; it returns the workspace and the approvals' directory.
func hookEnv(t *testing.T) (ws, granted string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the hooks judge POSIX shell commands; Windows paths differ")
	}
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("CLAUDE_CODE_SHELL", "")
	ws = filepath.Join(base, "home", "src", "app")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws, filepath.Join(base, "state", "cordon", "approvals", "granted")
}

// runHookWith runs cordon hook AGENT with input on its stdin.
func runHookWith(t *testing.T, agent, input string) (int, string, string) {
	t.Helper()
	old := hookInput
	hookInput = strings.NewReader(input)
	defer func() { hookInput = old }()
	return runMain("hook", agent)
}

// claudeInputJSON is Claude Code's PreToolUse input for the Bash tool, as
// its hooks reference shows it.
func claudeInputJSON(event, mode, cwd, command string) string {
	data, _ := json.Marshal(map[string]any{
		"session_id":      "abc123",
		"transcript_path": "/home/dev/.claude/projects/app/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
		"cwd":             cwd, "permission_mode": mode, "hook_event_name": event,
		"tool_name":   "Bash",
		"tool_input":  map[string]any{"command": command, "description": "Run it"},
		"tool_use_id": "toolu_01ABC123",
	})
	return string(data)
}

func TestHookClaudeCode(t *testing.T) {
	ws, granted := hookEnv(t)
	type answer struct {
		Out *struct {
			Event    string `json:"hookEventName"`
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
			Dialog   *struct {
				Behavior string `json:"behavior"`
				Message  string `json:"message"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	tests := []struct {
		event, command string
		code           int
		decision       string // PreToolUse's permissionDecision; "" for no output
		reason         string
		grants         int // approvals kept afterwards
	}{
		{"PreToolUse", "go test ./...", 0, "", "", 0},
		{"PreToolUse", "rm -rf ~", 0, "deny", "cordon refuses this: rm would delete /", 0},
		{"PreToolUse", "cat ~/.ssh/id_rsa", 0, "ask", "cordon asks a person: cat would read the credential", 0},
		{"PreToolUse", "echo cm0gLXJmIH4= | base64 -d | sh", 0, "deny", "[rule destroy-root]", 0},
		{"PermissionRequest", "ls -la", 0, "", "", 0},
		{"PermissionRequest", "rm -rf ~", 0, "deny", "which holds the workspace", 0},
		{"PermissionRequest", "cat ~/.ssh/id_rsa", 0, "", "", 1},
	}
	for _, tt := range tests {
		code, out, errOut := runHookWith(t, "claude-code", claudeInputJSON(tt.event, "default", ws, tt.command))
		if code != tt.code || errOut != "" {
			t.Errorf("%s %q: exit %d, stderr %q", tt.event, tt.command, code, errOut)
			continue
		}
		if tt.decision == "" {
			if out != "" {
				t.Errorf("%s %q: %s, want no opinion (no output)", tt.event, tt.command, out)
			}
		} else {
			var a answer
			if err := json.Unmarshal([]byte(out), &a); err != nil || a.Out == nil || a.Out.Event != tt.event {
				t.Errorf("%s %q: not the protocol's answer: %s", tt.event, tt.command, out)
				continue
			}
			decision, reason := a.Out.Decision, a.Out.Reason
			if a.Out.Dialog != nil {
				decision, reason = a.Out.Dialog.Behavior, a.Out.Dialog.Message
			}
			if decision != tt.decision || !strings.Contains(reason, tt.reason) {
				t.Errorf("%s %q: %s, want %s with %q", tt.event, tt.command, out, tt.decision, tt.reason)
			}
		}
		if names, _ := filepath.Glob(filepath.Join(granted, "*.json")); len(names) != tt.grants {
			t.Errorf("%s %q: %d approvals kept, want %d", tt.event, tt.command, len(names), tt.grants)
		}
	}
}

// TestHookClaudeCodeRefusesBadInput: what cordon cannot read or judge
// blocks the tool call (exit 2, the reason on stderr, shown to the model);
// a dialog not put to a person keeps no approval.
func TestHookClaudeCodeRefusesBadInput(t *testing.T) {
	ws, granted := hookEnv(t)
	for name, input := range map[string]string{
		"not json":      `{"session_id": "abc123", "tool_input": {"command": "rm -rf ~"`,
		"empty":         ``,
		"no command":    `{"session_id":"abc123","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`,
		"command type":  `{"session_id":"abc123","cwd":"` + ws + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["rm","-rf","/"]}}`,
		"relative cwd":  claudeInputJSON("PreToolUse", "default", "src/app", "ls"),
		"missing cwd":   claudeInputJSON("PreToolUse", "default", filepath.Join(ws, "gone"), "ls"),
		"unknown event": claudeInputJSON("PostToolUse", "default", ws, "ls"),
	} {
		code, out, errOut := runHookWith(t, "claude-code", input)
		if code != 2 || out != "" || !strings.Contains(errOut, "cordon hook claude-code: ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with the reason on stderr", name, code, out, errOut)
		}
	}
	// A tool that is neither Bash nor a file tool: no opinion.
	other := strings.Replace(claudeInputJSON("PreToolUse", "default", ws, "x"), `"tool_name":"Bash"`, `"tool_name":"Glob"`, 1)
	if code, out, errOut := runHookWith(t, "claude-code", other); code != 0 || out != "" || errOut != "" {
		t.Errorf("Glob tool: exit %d, %q, %q; want no opinion", code, out, errOut)
	}
	for _, mode := range []string{"dontAsk", "auto", ""} {
		code, out, errOut := runHookWith(t, "claude-code", claudeInputJSON("PermissionRequest", mode, ws, "cat ~/.ssh/id_rsa"))
		if code != 1 || out != "" || !strings.Contains(errOut, "does not put the dialog to a person") {
			t.Errorf("PermissionRequest in mode %q: exit %d, %q, %q", mode, code, out, errOut)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(granted, "*")); len(names) != 0 {
		t.Errorf("approvals kept: %v", names)
	}
}

func TestHookCursor(t *testing.T) {
	ws, granted := hookEnv(t)
	// Cursor's beforeShellExecution input, as its hooks docs show it.
	input := func(event, command string) string {
		data, _ := json.Marshal(map[string]any{"conversation_id": "conv-123", "generation_id": "gen-456",
			"hook_event_name": event, "workspace_roots": []string{ws}, "command": command, "cwd": ws})
		return string(data)
	}
	tests := []struct{ input, permission, message string }{
		{input("beforeShellExecution", "npm install express"), "", ""},
		{input("beforeShellExecution", "rm -rf ~"), "deny", "which holds the workspace"},
		{input("beforeShellExecution", "cat ~/.ssh/id_rsa"), "ask", "cat would read the credential"},
		{input("afterShellExecution", "ls"), "deny", "answers beforeShellExecution and preToolUse only"},
		{`{"command": "rm -rf ~", "cwd": `, "deny", "cannot read the hook input"},
		{input("beforeShellExecution", ""), "deny", "no command"},
	}
	for _, tt := range tests {
		code, out, errOut := runHookWith(t, "cursor", tt.input)
		var a map[string]string
		if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &a) != nil {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tt.input, code, out, errOut)
			continue
		}
		if a["permission"] != tt.permission || !strings.Contains(a["agent_message"], tt.message) || !strings.Contains(a["user_message"], tt.message) {
			t.Errorf("%s: %s, want permission %q with %q", tt.input, out, tt.permission, tt.message)
		}
		if _, allow := a["permission"]; allow && a["permission"] == "allow" {
			t.Errorf("%s: answered allow, which would pass over Cursor's own rules", tt.input)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(granted, "*")); len(names) != 0 {
		t.Errorf("Cursor's hook kept approvals: %v", names)
	}
}
