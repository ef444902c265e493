package parse

import (
	"encoding/base64"
	"encoding/hex"
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
		w.out[i] = &out
	}
}

func (w *walker) filter(st *state, f Filter, i int) (string, bool) {
	c := &w.res.Commands[i]
	args := c.Args[1:]
	switch f {
	case FilterEcho:
		return echo(args), true
	case FilterPrintf:
		if len(args) == 0 {
			return "", true
		}
		s, _, err := expand.Format(w.config(st), args[0].Text, wordTexts(args[1:]))
		return s, err == nil
	case FilterCat:
		return w.cat(st, i, args)
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

func echo(args []Word) string {
	newline := true
	for len(args) > 0 && (args[0].Text == "-n" || args[0].Text == "-e" || args[0].Text == "-E" || args[0].Text == "-ne" || args[0].Text == "-en") {
		if strings.Contains(args[0].Text, "n") {
			newline = false
		}
		args = args[1:]
	}
	s := strings.Join(wordTexts(args), " ")
	if newline {
		s += "\n"
	}
	return s
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
			if a.Text == f || inCluster(a.Text, f) || strings.HasPrefix(a.Text, f+"=") {
				return true
			}
		}
	}
	return false
}

// inCluster reports whether the short flag f (like "-d") is part of the
// clustered short options in a (like "-di").
func inCluster(a, f string) bool {
	if len(f) != 2 || f[0] != '-' || len(a) < 3 || a[0] != '-' || a[1] == '-' {
		return false
	}
	return strings.IndexByte(a[1:], f[1]) >= 0
}
