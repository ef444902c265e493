package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// The judgement names exactly the content a snapshot must keep, and is
// savable only when every reason to ask is such content.
func TestLosses(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "app")
	for _, f := range []string{"src/a.go", "src/dirty.go", "notes/n.md", "notes/x.tmp", "a.tmp", "keep.go", "build/out", ".env", "deep/d/y.tmp"} {
		p := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	repo := &fakeRepo{
		changes: []rules.Change{
			{Path: ws + "/src/dirty.go", Kind: rules.Modified},
			{Path: ws + "/notes/", Kind: rules.Untracked},
			{Path: ws + "/a.tmp", Kind: rules.Untracked},
			{Path: ws + "/deep/", Kind: rules.Untracked},
			{Path: ws + "/build/", Kind: rules.Ignored},
			{Path: ws + "/.env", Kind: rules.Ignored},
		},
		stashes:  1,
		unmerged: []string{"wip"},
	}
	set := rules.Builtin()
	tests := []struct {
		script  string
		savable bool
		paths   string // the files to save, relative, sorted
	}{
		{"rm a.tmp", true, "a.tmp"},
		{"echo v2 > a.tmp", true, "a.tmp"},
		{"rm -rf notes", true, "notes"},
		{"rm -rf src", true, "src/dirty.go"},
		{"find . -name '*.tmp' -delete", true, "a.tmp deep/d/y.tmp notes/x.tmp"},
		{"git reset --hard", true, "src/dirty.go"},
		{"git checkout -- src", true, "src/dirty.go"},
		{"git clean -fd", true, "a.tmp deep notes"},
		{"git stash drop", true, ""},
		{"git branch -D wip", true, ""},
		{"rm -rf build", false, ""},                      // regenerable: allowed, nothing to save
		{"rm .env", false, ""},                           // a credential: asked as before
		{"rm a.tmp; rm -rf ~/Documents", false, "a.tmp"}, // outside the workspace: asked
		{"rm a.tmp; sudo ls", false, "a.tmp"},
		{`rm -rf "$(cat list)"`, false, ""}, // unknown target
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
			var paths []string
			for _, l := range j.Losses {
				for _, p := range l.Paths {
					paths = append(paths, strings.TrimPrefix(p, ws+"/"))
				}
			}
			slices.Sort(paths)
			if j.Savable() != tt.savable || strings.Join(paths, " ") != tt.paths {
				t.Errorf("%q: savable %v, paths %q; want %v, %q (verdict %v, reasons %+v)", tt.script, j.Savable(), paths, tt.savable, tt.paths, j.Verdict, j.Reasons)
			}
		})
	}
}
