package rules_test

import (
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// TestScriptRepoState judges scripts against the repository state their
// own earlier commands leave, for a clean and a dirty work tree, with
// and without a stash (gitstate's TestScriptStateAsGit runs such
// scripts in a real repository).
func TestScriptRepoState(t *testing.T) {
	ws := t.TempDir()
	clean := &fakeRepo{remotes: []string{"origin"}}
	trunk := &fakeRepo{remotes: []string{"origin"}, def: "trunk"} // origin's HEAD is trunk; main is checked out
	dirty := &fakeRepo{changes: []rules.Change{{Path: filepath.Join(ws, "a.go"), Kind: rules.Modified}}}
	untracked := &fakeRepo{changes: []rules.Change{{Path: filepath.Join(ws, "n.md"), Kind: rules.Untracked}}}
	stashed := &fakeRepo{stashes: 1}
	tests := []struct {
		name   string
		repo   *fakeRepo
		script string
		want   rules.Verdict
	}{
		{"stash-drop-dirty", dirty, "git stash && git stash drop", rules.Ask},
		{"stash-drop-clean", clean, "git stash && git stash drop", rules.Allow},
		{"stash-untracked-not-taken", untracked, "git stash; git stash drop", rules.Allow},
		{"stash-untracked-added", untracked, "git add -A; git stash; git stash clear", rules.Ask},
		{"stash-u", untracked, "git stash -u; git stash drop", rules.Ask},
		{"two-stashes-two-drops", dirty, "git stash; git stash pop; git stash; git stash drop", rules.Ask},
		{"pop-then-drop-real", stashed, "git stash pop; git stash drop", rules.Allow},
		{"pop-then-discard", stashed, "git stash pop && git reset --hard", rules.Ask},
		{"apply-then-discard", stashed, "git stash apply && git reset --hard", rules.Allow},
		{"stash-discard-saved", dirty, "git stash && git reset --hard", rules.Allow},
		{"stash-pop-discard", dirty, "git stash && git stash pop && git reset --hard", rules.Ask},
		{"unknown-subcommand-then-drop", clean, "git $(cat op); git stash drop", rules.Ask},
		{"unknown-subcommand-then-discard", clean, "git \"$(cat op)\" && git reset --hard", rules.Ask},
		{"unknown-subcommand-alone", clean, "git $(cat op)", rules.Allow},
		{"branch-commit-delete", clean, "git checkout -b x; git commit -m x; git checkout main; git branch -D x", rules.Ask},
		{"branch-empty-delete", clean, "git checkout -b x; git checkout main; git branch -D x", rules.Allow},
		{"branch-merged-delete", clean, "git checkout -b x; git commit -m x; git checkout main; git merge x; git branch -D x", rules.Allow},
		{"branch-pushed-delete", clean, "git switch -c x; git commit -m x; git push -u origin HEAD; git switch main; git branch -D x", rules.Allow},
		{"branch-bare-push-no-upstream", clean, "git checkout -b x; git commit -m x; git push; git checkout main; git branch -D x", rules.Ask},
		{"branch-push-delete-remote", clean, "git checkout -b x; git commit -m x; git push origin :x; git push origin --delete x; git checkout main; git branch -D x", rules.Ask},
		{"main-bare-push", trunk, "git commit -m x; git push; git checkout -b y origin/main; git branch -D main", rules.Allow},
		{"main-bare-push-default-unknown", clean, "git commit -m x; git push", rules.Ask},
		{"branch-from-elsewhere", clean, "git commit -m x; git checkout -b y origin/main; git branch -D main", rules.Ask},
		{"branch-from-head", clean, "git commit -m x; git checkout -b y HEAD; git branch -D main", rules.Allow},
		{"unknown-branch-commit", clean, "git checkout \"$(cat b)\"; git commit -m x; git checkout main; git branch -D old", rules.Ask},
		{"switch-back-commit", clean, "git switch -c y; git switch -; git commit -m x; git branch -D y", rules.Ask},
		{"orphan-commit", clean, "git commit -m x; git checkout --orphan o; git branch -D main", rules.Ask},
		{"force-recreate", clean, "git checkout -b x; git commit -m x; git checkout main; git checkout -B x", rules.Ask},
		{"checkout-file-not-branch", clean, "git checkout -b x; git checkout a.go; git commit -m x; git checkout main; git merge x; git branch -D x", rules.Allow},
	}
	set := rules.Builtin()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &parse.Config{Dialect: parse.Bash, Env: []string{"HOME=/home/dev"}, Dir: ws, Knowledge: set}
			ctx := &rules.Context{Env: rules.Env{Home: "/home/dev", Workspace: ws, Getenv: func(string) string { return "" }}, Repo: tt.repo}
			j := set.Judge(parse.Parse(tt.script, cfg), ctx)
			if j.Verdict != tt.want {
				t.Errorf("%q: %v, want %v; reasons %+v", tt.script, j.Verdict, tt.want, j.Reasons)
			}
			if tt.want == rules.Ask && j.Savable() {
				t.Errorf("%q: a loss the script itself makes is taken for one a snapshot can keep: %+v", tt.script, j.Losses)
			}
		})
	}
}
