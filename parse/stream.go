package parse

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
)

// stdinOf returns the known content of command i's standard input.
func (w *walker) stdinOf(i int) *string {
	if p := w.in[i]; p != nil {
		return p
	}
	if from := w.res.Commands[i].StdinFrom; from >= 0 {
		return w.out[from]
	}
	return nil
}

// stream works out command i's standard output when it can be known
// without running anything: literal payloads and their decoders.
func (w *walker) stream(st *state, i int) {
	if w.cfg.Knowledge == nil {
		return
	}
	c := &w.res.Commands[i]
	s := w.cfg.Knowledge.Stream(c.Name())
	if s == nil || !hasAnyFlag(c.Args[1:], s.When) {
		return
	}
	out, ok := w.filter(st, s.Filter, i)
	if ok {
		out = w.hold(out)
		w.out[i] = &out
	}
}

func (w *walker) filter(st *state, f Filter, i int) (string, bool) {
	c := &w.res.Commands[i]
	args := c.Args[1:]
	switch f {
	case FilterEcho:
		return w.echo(st, args)
	case FilterPrintf:
		if len(args) > 0 && args[0].Text == "--" {
			args = args[1:] // printf -- FORMAT: the format may start with "-"
		}
		if len(args) == 0 {
			return "", true
		}
		s, err := printf(w.config(st), args[0].Text, wordTexts(args[1:]))
		return s, err == nil
	case FilterCat:
		return w.cat(st, i, args)
	case FilterPwd:
		return st.dir + "\n", st.dir != ""
	case FilterDirname, FilterBasename, FilterRealpath:
		return pathFilter(st, f, operandsOf(args))
	case FilterMktemp:
		return mktemp(st, args), true
	case FilterTr:
		return w.tr(i, operandsOf(args))
	case FilterSymlink:
		w.symlink(st, operandsOf(args))
		return "", false
	case FilterCopy:
		w.copy(st, operandsOf(args))
		return "", false
	case FilterSetup:
		return Caller, true
	}
	in := w.stdinOf(i)
	if in == nil || strings.Contains(*in, Unknown) {
		return "", false
	}
	switch f {
	case FilterBase64:
		return decodeBase64(*in)
	case FilterHex:
		b, err := hex.DecodeString(strings.Join(strings.Fields(*in), ""))
		return string(b), err == nil
	case FilterRev:
		return reverseLines(*in), true
	}
	return "", false
}

// echo prints its arguments; escapes are interpreted with -e, and always
// by the echo of sh (dash) and zsh.
func (w *walker) echo(st *state, args []Word) (string, bool) {
	newline, escapes := true, st.dialect != Bash
	for len(args) > 0 && len(args[0].Text) > 1 && strings.Trim(args[0].Text, "-neE") == "" && args[0].Text[0] == '-' {
		f := args[0].Text
		newline = newline && !strings.Contains(f, "n")
		escapes = escapes && !strings.Contains(f, "E") || strings.Contains(f, "e")
		args = args[1:]
	}
	s := strings.Join(wordTexts(args), " ")
	if escapes && strings.Contains(s, "\\") {
		out, _, err := expand.Format(w.config(st), "%b", []string{s})
		if err != nil {
			return "", false
		}
		s = out
	}
	if newline {
		s += "\n"
	}
	return s, true
}

func (w *walker) cat(st *state, i int, args []Word) (string, bool) {
	var sb strings.Builder
	files := 0
	for _, a := range args {
		if strings.HasPrefix(a.Text, "-") && a.Text != "-" {
			continue
		}
		files++
		data, ok := w.readKnown(st, a.Text)
		if !ok {
			return "", false
		}
		sb.WriteString(data)
	}
	if files > 0 {
		return sb.String(), true
	}
	if in := w.stdinOf(i); in != nil {
		return *in, true
	}
	return "", false
}

func decodeBase64(s string) (string, bool) {
	s = strings.Join(strings.Fields(s), "")
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return string(b), true
		}
	}
	return "", false
}

func reverseLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		r := []rune(line)
		slices.Reverse(r)
		lines[i] = string(r)
	}
	return strings.Join(lines, "\n")
}

// hasAnyFlag reports whether args hold one of flags, also inside a
// cluster of short options (-d in -di); an empty flags list is true.
func hasAnyFlag(args []Word, flags []string) bool {
	if len(flags) == 0 {
		return true
	}
	for _, a := range args {
		if a.Text == "--" {
			return false
		}
		for _, f := range flags {
			if a.Text == f || InCluster(a.Text, f) || strings.HasPrefix(a.Text, f+"=") {
				return true
			}
		}
	}
	return false
}

// operandsOf returns the arguments that are not options.
func operandsOf(args []Word) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a.Text, "-") || a.Text == "-" {
			out = append(out, a.Text)
		}
	}
	return out
}

func pathFilter(st *state, f Filter, ops []string) (string, bool) {
	if len(ops) == 0 {
		return "", false
	}
	var sb strings.Builder
	for _, op := range ops {
		if strings.Contains(op, Unknown) {
			return "", false
		}
		switch f {
		case FilterDirname:
			sb.WriteString(filepath.Dir(strings.TrimSuffix(op, "/")))
		case FilterBasename:
			sb.WriteString(filepath.Base(op))
		case FilterRealpath:
			p := st.absOrEmpty(op)
			if p == "" {
				return "", false
			}
			sb.WriteString(p)
		}
		sb.WriteByte('\n')
		if f == FilterBasename {
			break
		}
	}
	return sb.String(), true
}

// mktemp names the file mktemp would create: its name is random, its
// directory is known.
func mktemp(st *state, args []Word) string {
	dir, _ := st.env.lookup("TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	name := "tmp.XXXXXXXXXX"
	for j := 0; j < len(args); j++ {
		a := args[j].Text
		switch {
		case (a == "-p" || a == "--tmpdir") && j+1 < len(args):
			dir = args[j+1].Text
			j++
		case strings.HasPrefix(a, "--tmpdir="):
			dir = strings.TrimPrefix(a, "--tmpdir=")
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "/"):
			return a + "\n"
		default:
			name = a
		}
	}
	return filepath.Join(dir, name) + "\n"
}

// tr translates characters of the known input (tr SET1 SET2).
func (w *walker) tr(i int, sets []string) (string, bool) {
	in := w.stdinOf(i)
	if in == nil || strings.Contains(*in, Unknown) || len(sets) != 2 {
		return "", false
	}
	from, to := []rune(trSet(sets[0])), []rune(trSet(sets[1]))
	if len(from) == 0 || len(to) == 0 {
		return "", false
	}
	m := map[rune]rune{}
	for n, r := range from {
		m[r] = to[min(n, len(to)-1)]
	}
	return strings.Map(func(r rune) rune {
		if t, ok := m[r]; ok {
			return t
		}
		return r
	}, *in), true
}

// trSet expands ranges in a tr set ("a-z").
func trSet(s string) string {
	r := []rune(s)
	var out []rune
	for n := 0; n < len(r); n++ {
		if n+2 < len(r) && r[n+1] == '-' && r[n] <= r[n+2] && r[n+2]-r[n] < 1024 {
			for c := r[n]; c <= r[n+2]; c++ {
				out = append(out, c)
			}
			n += 2
			continue
		}
		out = append(out, r[n])
	}
	return string(out)
}

// symlink records a link the script makes (ln -s TARGET LINK), so that
// later paths through it are judged by where they lead.
func (w *walker) symlink(st *state, ops []string) {
	if len(ops) == 0 || len(ops) > 2 {
		return
	}
	target := ops[0]
	link := filepath.Base(target)
	if len(ops) == 2 {
		link = ops[1]
	}
	linkPath := st.abs(link)
	if linkPath == "" || strings.Contains(target, Unknown) {
		return
	}
	if fi, err := os.Stat(linkPath); err == nil && fi.IsDir() {
		linkPath = filepath.Join(linkPath, filepath.Base(target))
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(linkPath), target)
	}
	if w.links == nil {
		w.links = map[string]string{}
	}
	w.links[linkPath] = filepath.Clean(target)
	w.madeFile(linkPath)
	// Found by its name, read through ([walker.contents]).
	w.byName.add(linkPath)
}

// sameContent gives path the content of from when the script wrote it
// (a copy): a tool that runs a file of path's name (npm's package.json)
// runs what the script wrote there.
func (w *walker) sameContent(path, from string) {
	data, ok := w.files[from]
	if !ok {
		return
	}
	w.byName.add(path)
	w.files[path] = data
}

// copy records a file copied to a new path (cp SRC DEST): a program run
// from the copy is the same program.
func (w *walker) copy(st *state, ops []string) {
	if len(ops) != 2 {
		return
	}
	src, dest := st.abs(ops[0]), st.abs(ops[1])
	if src == "" || dest == "" {
		return
	}
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		dest = filepath.Join(dest, filepath.Base(src))
	}
	if w.copies == nil {
		w.copies = map[string]string{}
	}
	w.copies[dest] = src
	w.madeFile(dest)
	w.sameContent(dest, src)
	if len(w.res.Commands) > 0 {
		w.rewritesReading(len(w.res.Commands)-1, dest)
	}
}

// program returns the program a command name runs, seen through copies
// the script made.
func (w *walker) program(st *state, name Word) Word {
	if len(w.copies) == 0 || !strings.Contains(name.Text, "/") {
		return name
	}
	if src, ok := w.copies[st.abs(name.Text)]; ok {
		return Word{Text: src, Vars: name.Vars}
	}
	return name
}

// throughLinks rewrites arguments that lead through links the script
// made: the link's target takes its place, and a glob is matched again
// there. A link named by itself is taken for its target too (cat link
// reads the target); for rm, which would remove only the link, that
// errs on the side of asking.
func (w *walker) throughLinks(st *state, args []Word) []Word {
	out := args[:0:0]
	for _, a := range args {
		out = append(out, w.throughLink(st, a)...)
	}
	return out
}

func (w *walker) throughLink(st *state, a Word) []Word {
	abs := st.abs(a.Text)
	if abs == "" {
		return []Word{a}
	}
	trailing := strings.HasSuffix(a.Text, "/")
	link := ""
	for l := range w.links {
		if rest, ok := strings.CutPrefix(abs, l); ok && (rest == "" || rest[0] == '/') && len(l) > len(link) {
			link = l // the longest link prefix: the map's order must not decide
		}
	}
	if link != "" {
		target, rest := w.links[link], abs[len(link):]
		path := target + rest
		if !strings.ContainsAny(rest, "*?[") {
			if trailing {
				path += "/"
			}
			return []Word{{Text: path, Vars: a.Vars}}
		}
		matches, _ := filepath.Glob(path)
		if len(matches) == 0 {
			return []Word{{Text: path, Vars: a.Vars}}
		}
		var out []Word
		for _, m := range matches {
			out = append(out, Word{Text: m, Vars: a.Vars})
		}
		return out
	}
	return []Word{a}
}

// printf formats like the shell's printf, which reuses the format while
// arguments remain.
func printf(cfg *expand.Config, format string, args []string) (string, error) {
	var sb strings.Builder
	for {
		s, n, err := expand.Format(cfg, format, args)
		if err != nil {
			return "", err
		}
		sb.WriteString(s)
		if n <= 0 || n >= len(args) {
			return sb.String(), nil
		}
		args = args[n:]
	}
}
