package parse

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lookupKnowledge adds to the test knowledge what the cases below need:
// cp and ln, a loader variable, make's default makefile.
type lookupKnowledge struct{ testKnowledge }

func (k lookupKnowledge) Stream(name string) *Stream {
	switch name {
	case "cp":
		return &Stream{Filter: FilterCopy}
	case "ln":
		return &Stream{Filter: FilterSymlink, When: []string{"-s"}}
	}
	return k.testKnowledge.Stream(name)
}

func (k lookupKnowledge) EnvCode(name string) EnvCode {
	if name == "LD_PRELOAD" {
		return EnvLibrary
	}
	return k.testKnowledge.EnvCode(name)
}

func (k lookupKnowledge) Carrier(name string) *Carrier {
	switch name {
	case "zsh":
		return &Carrier{Kind: CarryShell}
	case "make":
		return &Carrier{Kind: CarryInterp, FileFlags: []string{"-f"}, DefaultFiles: []string{"GNUmakefile", "makefile", "Makefile"},
			Translations: []Translation{{Pattern: regexp.MustCompile(`(?m)^\t[@+-]*(.+)$`), Shell: "$1"}}}
	case "git":
		return &Carrier{ValueOptions: []string{"-c", "-C"}, OptionCode: []Translation{
			{Options: []string{"-c"}, Pattern: regexp.MustCompile(`(?i)^core\.fsmonitor=(.+)$`), Shell: "$1"}}}
	case "patch":
		return &Carrier{Kind: CarryInterp, FileFlags: []string{"-i"}, Translations: []Translation{
			{Pattern: regexp.MustCompile(`(?m)^--- (?:a/)?(\S+)[^\n]*\n\+\+\+ /dev/null`), Argv: []string{"rm", "-f", "$1"}}}}
	}
	return k.testKnowledge[name]
}

// lookupShell decodes the shell options start-up files depend on
// (--rcfile F, -i, -l, zsh), then as shellCall; a script file is $0.
func lookupShell(argv []string) (ShellCall, error) {
	var start ShellCall
	rest := []string{argv[0]}
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "--rcfile" && i+1 < len(argv):
			start.RcFile = argv[i+1]
			i++
		case a == "-i":
			start.Interactive = true
		case a == "-l":
			start.Login = true
		default:
			rest = append(rest, argv[i:]...)
			i = len(argv)
		}
	}
	call, err := shellCall(rest)
	call.RcFile, call.Interactive, call.Login = start.RcFile, start.Interactive, start.Login
	if filepath.Base(argv[0]) == "zsh" {
		call.Dialect = Zsh
	}
	if call.File != "" {
		call.Arg0 = call.File
	}
	return call, err
}

// TestUnmodelledCode: what a shell finds by name and reads on its own is
// followed, or is unknown code; never nothing. want is a regular
// expression the rendered commands must match, not one they must not.
func TestUnmodelledCode(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ws", "notes"), 0o755)
	os.MkdirAll(filepath.Join(dir, "home", "Documents"), 0o755)
	os.WriteFile(filepath.Join(dir, "ws", "Makefile"), []byte("all:\n\trm -rf project-owned\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "ws", ".bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "ws", ".bin", "hid.sh"), []byte("rm -rf found-on-path\n"), 0o644)
	ws := filepath.Join(dir, "ws")
	tests := []struct {
		name, script, want, not string
	}{
		{"path-copy", "cp /bin/rm ./ls; PATH=.:$PATH ls -rf notes", `(?m)^/bin/rm -rf notes$`, ""},
		{"path-link", "ln -s /bin/rm ./tidy; PATH=$PWD:$PATH tidy -rf notes", `(?m)^/bin/rm -rf notes$`, ""},
		{"path-written", "echo 'rm -rf notes' > t; PATH=.:$PATH t", `(?m)^rm -rf notes <- script`, ""},
		{"path-builtin-wins", "cp /bin/rm ./echo; PATH=.:$PATH echo -rf notes", `(?m)^echo -rf notes$`, `/bin/rm -rf`},
		{"bash-script-on-path", "PATH=$PWD/.bin:$PATH bash hid.sh", `(?m)^rm -rf found-on-path <- bash `, ""},
		{"dash-script-not-on-path", "PATH=$PWD/.bin:$PATH sh hid.sh", `(?m)^sh hid.sh$`, "found-on-path"},
		{"path-not-on-path", "cp /bin/rm ./ls; ls -rf notes", `(?m)^ls -rf notes$`, `/bin/rm -rf`},
		{"export-f", "f() { rm -rf notes; }; export -f f; bash -c f", `(?m)^rm -rf notes <- bash -c \| f\(\)`, ""},
		{"not-exported", "f() { rm -rf notes; }; bash -c f", `(?m)^f <- bash -c$`, `rm -rf notes`},
		{"bash-func-env", "env 'BASH_FUNC_ls%%=() { rm -rf notes; }' bash -c ls", `(?m)^rm -rf notes <- env \| bash -c \| ls\(\)`, ""},
		{"cdpath", "CDPATH=" + dir + "/home cd Documents && rm -rf *", `(?m)^rm -rf \*$`, ""},
		{"rcfile", "echo 'rm -rf notes' > rc; bash --rcfile rc -i -c true", `(?m)^rm -rf notes <- bash -c \| start-up rc`, ""},
		{"home-login", "echo 'rm -rf notes' > .bash_profile; HOME=$PWD bash -l -c true", `start-up .*\.bash_profile`, ""},
		{"zdotdir", "echo 'rm -rf notes' > .zshenv; ZDOTDIR=. zsh -c true", `(?m)^rm -rf notes <- zsh -c \| start-up \.zshenv`, ""},
		{"shebang-env-S", "printf '#!/usr/bin/env -S bash -c \"rm -rf notes\"\\n' > x; ./x", `(?m)^rm -rf notes <- #! \./x \| env \| bash -c`, ""},
		{"shebang-loop", "printf '#!/usr/bin/env -i sh\\n' > y; ./y", `more than 12 interpreters`, ""},
		{"git-config-count", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=Core.FSMonitor GIT_CONFIG_VALUE_0='rm -rf notes' git status", `(?m)^rm -rf notes <- git -c`, ""},
		{"git-config-env", "X='rm -rf notes' git --config-env=core.fsmonitor=X status", `(?m)^rm -rf notes <- git -c`, ""},
		{"ld-preload", "LD_PRELOAD=./evil.so ls", `(?m)^LD_PRELOAD=\./evil\.so !code$`, ""},
		{"make-written", "printf 'x:\\n\\trm -rf notes\\n' > GNUmakefile; make x", `(?m)^rm -rf notes <- make$`, ""},
		{"make-project-own", "make", `(?m)^make$`, `project-owned`},
		{"git-apply", "printf -- '--- a/notes/x\\n+++ /dev/null\\n' > d.patch; git apply d.patch", `(?m)^rm -f notes/x <- git apply \| patch`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(ws)
			cfg.Knowledge, cfg.Shell = lookupKnowledge{knowledge}, lookupShell
			res := Parse(tc.script, cfg)
			got := render(res)
			if !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("%s:\n%s\nwant a match for %s", tc.script, got, tc.want)
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("%s:\n%s\nwant no %q", tc.script, got, tc.not)
			}
		})
	}
}

// TestScriptRewritesItself: a script that writes the file its shell
// reads line by line is not followed past that line; one that writes
// another file is.
func TestScriptRewritesItself(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "self.sh"), []byte("echo one\necho 'rm -rf notes' >> \"$0\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.sh"), []byte("echo one\necho 'rm -rf notes' >> out.txt\n"), 0o644)
	cfg := testConfig(dir)
	cfg.Shell = lookupShell
	if got := render(Parse("bash self.sh", cfg)); !strings.Contains(got, "the file the shell is reading it from") {
		t.Errorf("self.sh:\n%s", got)
	}
	if got := render(Parse("bash other.sh", cfg)); strings.Contains(got, "problem") {
		t.Errorf("other.sh:\n%s", got)
	}
	// The caller's pinned bytes are what is judged, not the disk.
	cfg.Pinned = map[string][]byte{filepath.Join(dir, "other.sh"): []byte("rm -rf pinned\n")}
	if got := render(Parse("bash other.sh", cfg)); !strings.Contains(got, "rm -rf pinned") {
		t.Errorf("pinned other.sh:\n%s", got)
	}
}
