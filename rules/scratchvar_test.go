package rules_test

import (
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// TestScratchFromEnvironment: a TMPDIR outside /tmp is scratch for the
// judge where the sandbox makes it writable, as it is for the sandbox
// (Gemini CLI's wrapper writes its job list there after every command,
// and each command was asked about as a write outside the workspace);
// where the sandbox does not (TMPDIR=$HOME, or no sandbox), it is not.
func TestScratchFromEnvironment(t *testing.T) {
	root := "/cordon-test-root" // not under /tmp, which is scratch by itself; nothing is made
	home, tmp := filepath.Join(root, "home"), filepath.Join(root, "agent-tmp")
	ws := filepath.Join(home, "ws")
	script := "jobs -p > " + filepath.Join(tmp, "gemini-shell-a1B2c3/bgpids.tmp")
	inTmp := func(p string) bool { return p == ws || filepath.Dir(p) != p && within(p, ws) || within(p, tmp) }
	tests := []struct {
		name     string
		tmpdir   string
		writable func(string) bool
		script   string
		want     rules.Verdict
	}{
		{"sandbox-writes-it", tmp, inTmp, script, rules.Allow},
		{"no-sandbox", tmp, nil, script, rules.Ask},
		{"sandbox-refuses-it", tmp, func(p string) bool { return within(p, ws) }, script, rules.Ask},
		{"tmpdir-is-home", home, func(p string) bool { return within(p, ws) }, "echo x >> " + filepath.Join(home, ".bashrc"), rules.Ask},
	}
	set := rules.Builtin()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"HOME": home, "TMPDIR": tt.tmpdir}
			environ := []string{"HOME=" + home, "TMPDIR=" + tt.tmpdir}
			cfg := &parse.Config{Dialect: parse.Bash, Env: environ, Dir: ws, Knowledge: set,
				Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil }}
			ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Environ: environ, Writable: tt.writable,
				Getenv: func(k string) string { return env[k] }}, Repo: &fakeRepo{}}
			j := set.Judge(parse.Parse(tt.script, cfg), ctx)
			if j.Verdict < tt.want || tt.want == rules.Allow && j.Verdict != rules.Allow {
				t.Errorf("%q with TMPDIR=%s: got %v, want %v; reasons %+v", tt.script, tt.tmpdir, j.Verdict, tt.want, j.Reasons)
			}
		})
	}
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && (len(rel) < 3 || rel[:3] != "../")
}
