package parse

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Code passed to programs in the environment and in their data: git's
// configuration, the dynamic loader's variables, less's preprocessor,
// the diff git apply applies.

// gitConfigFiles are the variables that name git's configuration files
// or where git finds them (~/.gitconfig, $XDG_CONFIG_HOME/git/config).
var gitConfigFiles = []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "HOME", "XDG_CONFIG_HOME"}

// unknownConfig is the -c option for configuration whose content is not
// known: judged as unknown code.
var unknownConfig = []Word{{Text: "-c"}, {Text: "include.path=" + Unknown}}

// gitConfigArgs returns the -c options that git's configuration in the
// environment amounts to: GIT_CONFIG_PARAMETERS (what git -c passes to
// the gits it runs), GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n, and --config-env=KEY=VAR among args. A count or a
// value that cannot be known, and a configuration file the script
// points git at ([gitConfigFiles] set to other than what the script
// started with: a file an earlier command wrote), are an include of
// unknown configuration. start is the environment the script started
// with.
func gitConfigArgs(env *env, start []string, args []Word) []Word {
	var out []Word
	for _, name := range gitConfigFiles {
		if v, set := env.lookup(name); set && !startsWith(start, name, v) {
			return unknownConfig
		}
	}
	if p, set := env.lookup("GIT_CONFIG_PARAMETERS"); set && strings.TrimSpace(p) != "" {
		pairs, ok := configParameters(p)
		if !ok {
			return unknownConfig
		}
		for _, kv := range pairs {
			out = append(out, Word{Text: "-c"}, Word{Text: kv})
		}
	}
	if n, set := env.lookup("GIT_CONFIG_COUNT"); set && n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count > 64 {
			return []Word{{Text: "-c"}, {Text: "include.path=" + Unknown}}
		}
		for j := range count {
			k, _ := env.lookup("GIT_CONFIG_KEY_" + strconv.Itoa(j))
			v, _ := env.lookup("GIT_CONFIG_VALUE_" + strconv.Itoa(j))
			out = append(out, Word{Text: "-c"}, Word{Text: k + "=" + v})
		}
	}
	for j := 1; j < len(args); j++ {
		a := args[j].Text
		if !strings.HasPrefix(a, "-") {
			break
		}
		spec, ok := strings.CutPrefix(a, "--config-env=")
		if !ok && a == "--config-env" && j+1 < len(args) {
			spec, ok = args[j+1].Text, true
		}
		if !ok {
			continue
		}
		if i := strings.LastIndexByte(spec, '='); i > 0 {
			v, _ := env.lookup(spec[i+1:])
			out = append(out, Word{Text: "-c"}, Word{Text: spec[:i] + "=" + v})
		}
	}
	return out
}

// startsWith reports whether the environment start sets name to value.
func startsWith(start []string, name, value string) bool {
	for _, kv := range start {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v == value
		}
	}
	return false
}

// configParameters reads GIT_CONFIG_PARAMETERS as git does: shell-quoted
// words, 'KEY'='VALUE', 'KEY=VALUE' or 'KEY' (true), separated by
// blanks. It returns them as KEY=VALUE (or KEY), and false when the
// value is not in that form.
func configParameters(s string) ([]string, bool) {
	var out []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
		if i == len(s) {
			return out, true
		}
		key, next, ok := sqWord(s, i)
		if !ok {
			return nil, false
		}
		i = next
		if i < len(s) && s[i] == '=' {
			val, next, ok := sqWord(s, i+1)
			if !ok {
				return nil, false
			}
			key, i = key+"="+val, next
		}
		if i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
			return nil, false
		}
		out = append(out, key)
	}
}

// sqWord reads one single-quoted word of s at i, as git's sq_dequote
// does ('a'\”b' is a'b), and returns it and the index after it.
func sqWord(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '\'' {
		return "", i, false
	}
	var b strings.Builder
	i++
	for {
		end := strings.IndexByte(s[i:], '\'')
		if end < 0 {
			return "", i, false
		}
		b.WriteString(s[i : i+end])
		i += end + 1
		if i+2 < len(s) && s[i] == '\\' && (s[i+1] == '\'' || s[i+1] == '!') && s[i+2] == '\'' {
			b.WriteByte(s[i+1])
			i += 3
			continue
		}
		return b.String(), i, true
	}
}

// installedLibs reports whether every entry of a loader variable's value
// (LD_PRELOAD's files, LD_LIBRARY_PATH's directories; separated by ":"
// or blanks) is installed software: outside the places commands write,
// and not written by this script. A directory counts as installed when
// its first regular file is (then no command can add one beside it).
func (w *walker) installedLibs(st *state, value string) bool {
	if w.cfg.Installed == nil || strings.Contains(value, Unknown) {
		return false
	}
	for _, e := range strings.FieldsFunc(value, func(r rune) bool { return r == ':' || r == ' ' || r == '\t' }) {
		if !filepath.IsAbs(e) || strings.Contains(e, "..") {
			return false
		}
		p := filepath.Clean(e)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if p = firstFile(p); p == "" {
				return false
			}
		}
		if _, written := w.files[p]; written || !w.cfg.Installed(p) {
			return false
		}
	}
	return true
}

// firstFile is the first regular file among the first entries of
// directory dir, or "".
func firstFile(dir string) string {
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	ents, _ := f.ReadDir(64)
	for _, e := range ents {
		if e.Type().IsRegular() {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}

// inputCommand is the command a less input preprocessor runs
// (LESSOPEN='|cmd %s', '||cmd %s', '|-cmd %s'), or value unchanged.
func inputCommand(value string) string {
	if v, ok := strings.CutPrefix(value, "|"); ok {
		return strings.TrimPrefix(strings.TrimPrefix(v, "|"), "-")
	}
	return value
}

// gitApply judges the diff git apply applies as patch would apply it
// (the rules' knowledge of patch says what a diff deletes): read from
// its file operands, a file this script wrote or one on disk, or from
// standard input. A diff that cannot be read is unknown.
func (w *walker) gitApply(st *state, i int) {
	c := w.res.Commands[i]
	args := c.Args[1:]
	j := 0
	for j < len(args) && strings.HasPrefix(args[j].Text, "-") {
		if _, _, next, _ := Option(args, j, []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"}); next > j {
			j = next
		} else {
			j++
		}
	}
	if j >= len(args) || args[j].Text != "apply" {
		return
	}
	var diffs []string
	for _, a := range args[j+1:] {
		switch t := a.Text; {
		case t == "--check" || t == "--stat" || t == "--numstat" || t == "--summary":
			return // reports only
		case strings.HasPrefix(t, "-") && t != "-":
		default:
			diffs = append(diffs, t)
		}
	}
	sub := st.nested("git apply", false)
	if len(diffs) == 0 {
		diffs = []string{"-"}
	}
	for _, d := range diffs {
		var in *string
		if d == "-" {
			in = w.stdinOf(i)
		} else if data, ok := w.readKnown(st, d); ok {
			in = &data
		}
		if in == nil || strings.Contains(*in, Unknown) {
			w.unknownCode(i)
			continue
		}
		w.run(sub, Command{Args: []Word{{Text: "patch"}, {Text: "-p1"}}, StdinFrom: -1, Pos: c.Pos}, in)
	}
}
