package termhook

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBashArgv(t *testing.T) {
	for _, tt := range []struct {
		argv  []string
		start BashStart
		want  string
		env   string
	}{
		{[]string{"bash"}, BashStart{}, "bash --rcfile RC", ""},
		{[]string{"-bash"}, BashStart{Login: true}, "bash --rcfile RC", "CORDON_BASH_LOGIN=1"},
		{[]string{"bash", "-l"}, BashStart{Login: true}, "bash --rcfile RC", "CORDON_BASH_LOGIN=1"},
		{[]string{"bash", "-il", "-o", "vi"}, BashStart{Login: true}, "bash --rcfile RC -i -o vi", "CORDON_BASH_LOGIN=1"},
		{[]string{"bash", "--login", "--noprofile", "-i"}, BashStart{Login: true, NoProfile: true}, "bash --rcfile RC -i", "CORDON_BASH_LOGIN=1 CORDON_BASH_NOPROFILE=1"},
		{[]string{"bash", "--init-file", "vsc.sh"}, BashStart{RcFile: "vsc.sh"}, "bash --rcfile RC", "CORDON_BASH_RCFILE=/dir/vsc.sh"},
		{[]string{"bash", "--norc", "--noediting", "--posix", "-O", "extglob"}, BashStart{NoRc: true}, "bash --rcfile RC --posix -O extglob", "CORDON_BASH_NORC=1"},
		{[]string{"bash", "-i", "-s", "a", "-l"}, BashStart{}, "bash --rcfile RC -i -s a -l", ""},
	} {
		argv, env := BashArgv(tt.argv, tt.start, "RC", "/dir")
		if got := strings.Join(argv, " "); got != tt.want {
			t.Errorf("%q: argv %q, want %q", tt.argv, got, tt.want)
		}
		if got := strings.Join(env, " "); got != tt.env {
			t.Errorf("%q: env %q, want %q", tt.argv, got, tt.env)
		}
	}
}

func TestZshEnv(t *testing.T) {
	env, err := ZshEnv(nil, "/state/zsh", "", "/home/u")
	if err != nil || !slices.Equal(env, []string{"ZDOTDIR=/state/zsh", "CORDON_USER_ZDOTDIR=/home/u"}) {
		t.Errorf("%q %v", env, err)
	}
	if env, _ := ZshEnv(nil, "/state/zsh", "/vscode", "/home/u"); env[1] != "CORDON_USER_ZDOTDIR=/vscode" {
		t.Errorf("%q", env)
	}
	if _, err := ZshEnv([]string{"norcs"}, "/state/zsh", "", "/home/u"); err == nil {
		t.Error("zsh -f got the hook's ZDOTDIR, which it never reads")
	}
}

// TestScripts: the set-up files are written once, and parse.
func TestScripts(t *testing.T) {
	dir := t.TempDir()
	f, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	check := func(shell string, files ...string) {
		if _, err := exec.LookPath(shell); err != nil {
			t.Logf("no %s", shell)
			return
		}
		for _, file := range files {
			if out, err := exec.Command(shell, "-n", file).CombinedOutput(); err != nil {
				t.Errorf("%s -n %s: %v\n%s", shell, file, err, out)
			}
		}
	}
	for _, name := range []string{"scripts/bashrc.bash", "scripts/zsh/zshenv"} {
		data, _ := scripts.ReadFile(name)
		if !strings.Contains(string(data), `\0%s\0' `+Version+" ") {
			t.Errorf("%s does not say hello with version %s", name, Version)
		}
	}
	check("bash", f.BashRc)
	zsh, _ := filepath.Glob(filepath.Join(f.ZDotDir, "*"))
	dot, _ := filepath.Glob(filepath.Join(f.ZDotDir, ".z*"))
	if len(dot) != 4 {
		t.Errorf("zsh's start-up files: %q", dot)
	}
	check("zsh", append(zsh, dot...)...)
}
