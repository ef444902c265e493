package termhook

import (
	"fmt"
	"path/filepath"
	"strings"
)

// What the shell was asked for on its command line, which its set-up
// file then does (see [BashArgv]).
type BashStart struct {
	Login, NoRc, NoProfile bool
	RcFile                 string // --rcfile or --init-file, absolute
}

// BashArgv returns the command line that starts an interactive bash
// (argv, decoded as start) with rc as its rc file, and the environment
// that tells rc what bash would have read: --rcfile rc is put first; the
// login flag (-l, --login, a "-" before argv[0]'s name), --rcfile,
// --init-file, --norc, --noprofile and --noediting (without its line
// editor bash would have no hook) are taken out. dir makes a relative
// rc file absolute.
func BashArgv(argv []string, start BashStart, rc, dir string) ([]string, []string) {
	out := []string{strings.TrimPrefix(argv[0], "-"), "--rcfile", rc}
	long := true
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case long && (a == "--rcfile" || a == "--init-file"):
			i++
			continue
		case long && (a == "--login" || a == "--norc" || a == "--noprofile" || a == "--noediting"):
			continue
		case long && strings.HasPrefix(a, "--") && a != "--":
			out = append(out, a)
			continue
		}
		long = false
		if a == "--" || a == "-" || len(a) < 2 || a[0] != '-' && a[0] != '+' {
			out = append(out, argv[i:]...)
			break
		}
		takes := strings.ContainsAny(a[1:], "oO")
		if a[0] == '-' {
			a = a[:1] + strings.ReplaceAll(a[1:], "l", "")
		}
		if len(a) > 1 {
			out = append(out, a)
		}
		if takes && i+1 < len(argv) {
			i++
			out = append(out, argv[i])
		}
	}
	var env []string
	flag := func(name string, on bool) {
		if on {
			env = append(env, name+"=1")
		}
	}
	flag("CORDON_BASH_LOGIN", start.Login)
	flag("CORDON_BASH_NORC", start.NoRc)
	flag("CORDON_BASH_NOPROFILE", start.NoProfile)
	if start.RcFile != "" {
		rcfile := start.RcFile
		if !filepath.IsAbs(rcfile) {
			rcfile = filepath.Join(dir, rcfile)
		}
		env = append(env, "CORDON_BASH_RCFILE="+rcfile)
	}
	return out, env
}

// ZshEnv returns the environment that makes an interactive zsh read its
// start-up files from zdotdir, given the caller's ZDOTDIR ("" for none)
// and HOME, or an error when the options (as [invocation.Decode] lists them)
// turn the start-up files off (-f, --no-rcs, +o rcs): zsh would then
// read no hook.
func ZshEnv(options []string, zdotdir, userZdotdir, home string) ([]string, error) {
	for _, o := range options {
		if o == "norcs" {
			return nil, fmt.Errorf("cordon does not run an interactive zsh without its start-up files (-f, --no-rcs): they install the hook that judges each line; leave the option out")
		}
	}
	user := userZdotdir
	if user == "" {
		user = home
	}
	return []string{"ZDOTDIR=" + zdotdir, "CORDON_USER_ZDOTDIR=" + user}, nil
}
