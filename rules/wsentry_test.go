package rules

import (
	"path/filepath"
	"strings"
	"testing"
)

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

// TestWorkspaceEntriesAsBefore: the entries taken apart once match
// exactly what matching each entry in turn matched, for the built-in
// rules' lists and paths around every entry.
func TestWorkspaceEntriesAsBefore(t *testing.T) {
	p := Builtin().Paths()
	lists := [][]string{p.AutoRun, p.GitConfig, p.History, {"/", "a/*/b/", "x?y", "[ab]/c", "**/z/", "d/**"}}
	var rels []string
	for _, l := range lists {
		for _, entry := range l {
			base := strings.TrimSuffix(entry, "/")
			lit := strings.NewReplacer("**", "q/r", "*", "star", "?", "Q", "[ab]", "a").Replace(base)
			for _, r := range []string{base, lit, lit + "/x", lit + "/x/y", "sub/" + lit, lit + "x", "x" + lit, strings.ToUpper(lit)} {
				rels = append(rels, r, strings.TrimPrefix(r, "/"))
			}
		}
	}
	rels = append(rels, "", "a", "a/b", ".git", ".git/hooks", ".git/hooks/pre-commit", ".git/modules/x/hooks/y")
	for _, l := range lists {
		if len(l) == 0 {
			continue
		}
		e := &Env{Workspace: "/w"}
		for _, rel := range rels {
			if got, want := e.wsEntries(l).match(rel), relEntryEach(rel, l); got != want {
				t.Errorf("%q against %q: %v, matching each entry in turn %v", rel, l, got, want)
			}
		}
	}
}

// relEntryEach is how workspace entries were matched before they were
// taken apart: each in turn.
func relEntryEach(rel string, entries []string) bool {
	for _, entry := range entries {
		dir := strings.HasSuffix(entry, "/")
		entry = strings.TrimSuffix(entry, "/")
		if rel == entry || dir && strings.HasPrefix(rel, entry+"/") {
			return true
		}
		if !strings.ContainsAny(entry, "*?[") {
			continue
		}
		if strings.Contains(entry, "**") {
			if globPath(strings.Split(entry, "/"), strings.Split(rel, "/"), dir) {
				return true
			}
			continue
		}
		head := rel
		if n := strings.Count(entry, "/") + 1; dir && strings.Count(rel, "/") >= n {
			head = strings.Join(strings.SplitN(rel, "/", n+1)[:n], "/")
		}
		if ok, _ := filepath.Match(entry, head); ok {
			return true
		}
	}
	return false
}
