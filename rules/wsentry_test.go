package rules

import "testing"

// TestWorkspaceEntryDepth: auto-run entries match at any depth of the
// workspace when asked to, and ** matches any run of names.
func TestWorkspaceEntryDepth(t *testing.T) {
	e := &Env{Workspace: "/w"}
	entries := []string{".envrc", ".git/hooks/", ".git/modules/**/hooks/", ".vscode/tasks.json"}
	for _, tt := range []struct {
		path      string
		root, any bool
	}{
		{"/w/.envrc", true, true},
		{"/w/sub/.envrc", false, true},
		{"/w/a/b/.git/hooks/pre-commit", false, true},
		{"/w/.git/modules/lib/dep/hooks/post-checkout", true, true},
		{"/w/.git/modules/dep/hooks", true, true},
		{"/w/.git/modules/dep/config", false, false},
		{"/w/x/.vscode/tasks.json", false, true},
		{"/w/x/.vscode/tasks.json.bak", false, false},
		{"/w/src/envrc", false, false},
		{"/w/.envrc.d/x", false, false},
	} {
		if got := e.wsEntry(tt.path, entries, false); got != tt.root {
			t.Errorf("wsEntry(%s, root only) = %v", tt.path, got)
		}
		if got := e.wsEntry(tt.path, entries, true); got != tt.any {
			t.Errorf("wsEntry(%s, any depth) = %v", tt.path, got)
		}
	}
}
