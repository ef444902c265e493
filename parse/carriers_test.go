package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// What wrappers really run: env's "-" and -S assignments, xargs' long
// options and argument files, GNU parallel's arguments, builtin cd,
// pushd and popd, and bash's rules for dotfiles in globs.
func TestCarriedCommands(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{".env", "a.go", "b.txt", "list.txt", "sub/x"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		content := "x\n"
		if f == "list.txt" {
			content = "one\ntwo\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := testKnowledge{
		"env":      knowledge["env"],
		"xargs":    {Kind: CarryExec, StdinArgs: true, ValueOptions: []string{"-a", "--arg-file", "-I", "-n", "-d"}, ArgFileOptions: []string{"-a", "--arg-file"}},
		"parallel": {Kind: CarryExec, StdinArgs: true, ValueOptions: []string{"-j"}, ArgSeparators: []string{":::"}, ArgFileSeparators: []string{"::::"}, Replacements: []string{"{}"}},
		"builtin":  {Kind: CarryExec, InShell: true, NotRun: []string{"-v", "-V"}},
		"command":  {Kind: CarryExec, InShell: true, NotRun: []string{"-v", "-V"}},
		"nohup":    {Kind: CarryExec},
	}
	tests := []struct{ name, script, want string }{
		{"env-dash", "env - git reset --hard", "env - git reset --hard\ngit reset --hard <- env"},
		{"env-split-assign", "env -S 'PATH=/x A=1' rm -rf /a", "env -S PATH=/x A=1 rm -rf /a\nrm -rf /a <- env"},
		{"env-split-command", "env -S 'rm -rf /a'", "env -S rm -rf /a\nrm -rf /a <- env"},
		{"env-i-assign", "env -i A=1 rm /a", "env -i A=1 rm /a\nrm /a <- env"},
		{"xargs-replace-eq", "echo /a | xargs --replace=X rm -rf X", "echo /a\nxargs --replace=X rm -rf X\nrm -rf /a <- xargs"},
		{"xargs-i-default", "echo /a | xargs -i rm {}", "echo /a\nxargs -i rm {}\nrm /a <- xargs"},
		{"xargs-inner-i", "echo /a | xargs rm -i", "echo /a\nxargs rm -i\nrm -i /a <- xargs"},
		{"xargs-argfile", "xargs -a list.txt rm", "xargs -a list.txt rm\nrm one two <- xargs"},
		{"xargs-delimiter", "printf '/a b,/c' | xargs -d , rm", "printf /a b,/c\nxargs -d , rm\nrm /a b /c <- xargs"},
		{"xargs-delimiter-newline", "printf '/a b\\n/c\\n' | xargs -d '\\n' rm", "printf /a b\\n/c\\n\nxargs -d \\n rm\nrm /a b /c <- xargs"},
		{"xargs-argfile-unknown", "xargs -a nope.txt rm", "xargs -a nope.txt rm\nrm ? <- xargs"},
		{"parallel-commands", "parallel ::: 'rm -rf /a' 'ls'", "parallel ::: rm -rf /a ls\nrm -rf /a <- parallel :::\nls <- parallel :::"},
		{"parallel-template", "parallel rm -rf {} ::: /a '/b c'", "parallel rm -rf {} ::: /a /b c\nrm -rf /a <- parallel :::\nrm -rf /b c <- parallel :::"},
		{"parallel-positional", "parallel -j2 'rm {1}/{2}' ::: /a ::: x", "parallel -j2 rm {1}/{2} ::: /a ::: x\nrm /a/x <- parallel :::"},
		{"parallel-appended", "parallel rm ::: /a", "parallel rm ::: /a\nrm /a <- parallel :::"},
		{"parallel-argfile", "parallel rm :::: list.txt", "parallel rm :::: list.txt\nrm one <- parallel ::::\nrm two <- parallel ::::"},
		{"builtin-cd", "builtin cd sub && rm x", "builtin cd sub\ncd sub\nrm x"},
		{"command-cd", "command cd / && rm x", "command cd /\ncd /\nrm x"},
		{"command-v", "command -v rm -rf /", "command -v rm -rf /"},
		{"nohup-cd-is-not-here", "nohup cd / && rm x", "nohup cd /\ncd / <- nohup\nrm x"},
		{"pushd-popd", "pushd sub && pushd / && popd && rm x && popd && rm y", "pushd sub\npushd /\npopd\nrm x\npopd\nrm y"},
		{"glob-dot", "rm *.*", "rm a.go b.txt list.txt"},
		{"glob-dot-env", "rm *.env", "rm *.env"},
		{"glob-leading-dot", "rm .[!.]*", "rm .env"},
		{"glob-dotglob", "shopt -s dotglob; rm *.env", "shopt -s dotglob\nrm .env"},
		{"glob-dot-from-variable", "D=.; rm $D*env", "rm .env"},
		{"glob-dir-variable", "D=sub; rm $D/../*.env", "rm sub/../*.env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(dir)
			cfg.Knowledge = k
			res := Parse(tt.script, cfg)
			if got := render(res); got != tt.want {
				t.Errorf("script %q\ngot:\n%s\nwant:\n%s", tt.script, got, tt.want)
			}
			for _, c := range res.Commands {
				if c.Name() == "rm" && c.Dir != "" && tt.name == "pushd-popd" {
					want := map[string]string{"x": filepath.Join(dir, "sub"), "y": dir}[c.Args[1].Text]
					if real, _ := filepath.EvalSymlinks(want); c.Dir != real && c.Dir != want {
						t.Errorf("%s runs in %s, want %s", c.Line(), c.Dir, want)
					}
				}
			}
		})
	}
}

// xargs -d and -0 split the input at the delimiter only: "/a b" is one
// argument.
func TestXargsDelimiter(t *testing.T) {
	for _, script := range []string{"printf '/a b,/c' | xargs -d , rm", "printf '/a b\\0/c' | xargs -0 rm", "printf '/a b\\n/c\\n' | xargs --delimiter='\\n' rm"} {
		cfg := testConfig(t.TempDir())
		cfg.Knowledge = testKnowledge{"xargs": {Kind: CarryExec, StdinArgs: true, ValueOptions: []string{"-d", "--delimiter"}}}
		res := Parse(script, cfg)
		last := res.Commands[len(res.Commands)-1]
		if len(last.Args) != 3 || last.Args[1].Text != "/a b" || last.Args[2].Text != "/c" {
			t.Errorf("%q: xargs runs %q", script, wordTexts(last.Args))
		}
	}
}
