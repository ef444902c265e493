package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// What a command really does, judged in a small repository with real
// files: old-style option clusters, values glued to short options,
// find's embedded commands, ignored output by its kind, and checkpoints
// that only count when they succeeded.
func TestFidelity(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "app")
	for _, f := range []string{"src/a.go", "src/dirty.go", "notes/n.md", "logs/app.log", "logs/old/x.log", "mixed/app.log", "mixed/keep.db", "coverage.out", "data/local.db"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := &fakeRepo{changes: []rules.Change{
		{Path: ws + "/src/dirty.go", Kind: rules.Modified},
		{Path: ws + "/notes/", Kind: rules.Untracked},
		{Path: ws + "/logs/", Kind: rules.Ignored},
		{Path: ws + "/mixed/", Kind: rules.Ignored},
		{Path: ws + "/coverage.out", Kind: rules.Ignored},
		{Path: ws + "/data/", Kind: rules.Ignored},
	}, unmerged: []string{"wip"}}
	set := rules.Builtin()
	tests := []struct {
		script string
		want   rules.Verdict
		msg    string // part of a reason's message, when asked
	}{
		// Old-style clusters: tar czf FILE writes FILE.
		{"tar czf notes/n.md src", rules.Ask, "overwrite"},
		{"tar cf src/dirty.go docs", rules.Ask, "overwrite"},
		{"tar czf /tmp/x.tgz src", rules.Allow, ""},
		{"tar tzf notes/n.md", rules.Allow, ""},
		// A value glued to a short option is no cluster of flags.
		{"git checkout -bfeature", rules.Allow, ""},
		{"git switch -cfix", rules.Allow, ""},
		{"git checkout -fq", rules.Ask, "throw away"},
		{"git checkout -Bwip", rules.Ask, "wip"},
		// find -exec owns its arguments; -delete names what it selects.
		{"find . -exec echo -delete \\;", rules.Allow, ""},
		{"find notes -exec grep -l x {} + -delete", rules.Ask, "what its tests select in"},
		{"find notes -name '*.md' -delete", rules.Ask, "what matches *.md in"},
		{"find src -fprint notes/n.md", rules.Ask, "overwrite"},
		// Ignored output by its kind, also inside an ignored directory.
		{"rm -f coverage.out", rules.Allow, ""},
		{"rm -f logs/app.log", rules.Allow, ""},
		{"rm -rf logs", rules.Allow, ""},
		{"rm -rf mixed", rules.Ask, "cannot be regenerated"},
		{"rm -f mixed/app.log", rules.Allow, ""},
		{"rm -f data/local.db", rules.Ask, "cannot be regenerated"},
		// A checkpoint on the left of || saved nothing when the right runs.
		{"git stash || git reset --hard", rules.Ask, "throw away"},
		{"git stash && git reset --hard", rules.Allow, ""},
		{"git add -A && git commit -m x || git checkout -- src", rules.Ask, "throw away"},
		// Global options before a subcommand.
		{"kubectl -n prod delete pod x", rules.Ask, "outside this machine"},
		{"gh -R o/r repo delete", rules.Ask, "outside this machine"},
		{"docker --context prod volume rm v", rules.Ask, "outside this machine"},
		// Using a key is not reading it.
		{"ssh -i ~/.ssh/id_rsa host true", rules.Allow, ""},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			cfg := &parse.Config{
				Dialect: parse.Bash, Env: []string{"HOME=" + home, "TMPDIR=/tmp"}, Dir: ws, Knowledge: set,
				Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil },
			}
			ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
				return map[string]string{"HOME": home, "TMPDIR": "/tmp"}[k]
			}}, Repo: repo}
			j := set.Judge(parse.Parse(tt.script, cfg), ctx)
			var msgs []string
			for _, r := range j.Reasons {
				msgs = append(msgs, r.Message)
			}
			if j.Verdict != tt.want || tt.msg != "" && !strings.Contains(strings.Join(msgs, "\n"), tt.msg) {
				t.Errorf("verdict %v, reasons %q; want %v mentioning %q", j.Verdict, msgs, tt.want, tt.msg)
			}
		})
	}
}
