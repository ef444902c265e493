package parse

import "strings"

// Option reads the option at args[j]. An option named in valued takes a
// value: attached ("-ofile", "--out=file"), the next argument ("-o file"),
// or, at the end of a cluster of short options, the rest of the cluster
// or the next argument ("-so file" is -s -o file). Option returns the
// option (the valued one, when found in a cluster), its value, the index
// after it, and whether it had a value.
func Option(args []Word, j int, valued []string) (string, Word, int, bool) {
	a := args[j].Text
	for _, opt := range valued {
		switch {
		case a == opt && j+1 < len(args):
			return opt, args[j+1], j + 2, true
		case strings.HasPrefix(opt, "--") && strings.HasPrefix(a, opt+"="):
			return opt, Word{Text: a[len(opt)+1:]}, j + 1, true
		case len(opt) == 2 && !strings.HasPrefix(a, "--") && strings.HasPrefix(a, opt) && len(a) > 2:
			return opt, Word{Text: a[2:]}, j + 1, true
		}
	}
	// An abbreviated long option ("--sig KILL", "--use-comp=sh"), as
	// getopt_long and its kind take any unique prefix: taken as the
	// valued option it abbreviates (a prefix the program finds ambiguous
	// is an error there), so that its value is not taken for the
	// command it runs.
	if opts := Abbreviates(a, valued, valued); len(opts) > 0 {
		opt := opts[0]
		if _, v, glued := strings.Cut(a, "="); glued {
			return opt, Word{Text: v}, j + 1, true
		}
		if j+1 < len(args) {
			return opt, args[j+1], j + 2, true
		}
	}
	if len(a) > 2 && a[0] == '-' && a[1] != '-' {
		for k := 2; k < len(a); k++ {
			opt := "-" + a[k:k+1]
			if !contains(valued, opt) {
				continue
			}
			if k+1 < len(a) {
				return opt, Word{Text: a[k+1:]}, j + 1, true
			}
			if j+1 < len(args) {
				return opt, args[j+1], j + 2, true
			}
		}
	}
	return a, Word{}, j + 1, false
}

// Abbreviates returns the long options of opts ("--signal") that a
// ("--sig", "--sig=x") abbreviates, as getopt_long, git's parse-options
// and argparse take any unique prefix: none when a is no long option or
// names one of known whole. A prefix the program finds ambiguous is an
// error there, so a caller that takes it as each is never less strict.
func Abbreviates(a string, opts, known []string) []string {
	name, _, _ := strings.Cut(a, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") || contains(known, name) {
		return nil
	}
	var out []string
	for _, o := range opts {
		if strings.HasPrefix(o, name) {
			out = append(out, o)
		}
	}
	return out
}

// InCluster reports whether the short flag f (like "-d") is part of the
// cluster of short options a (like "-di").
func InCluster(a, f string) bool {
	if len(f) != 2 || f[0] != '-' || len(a) < 3 || a[0] != '-' || a[1] == '-' {
		return false
	}
	return strings.IndexByte(a[1:], f[1]) >= 0
}
