package parse

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxParallelArgs bounds the argument lines of one parallel command that
// are judged one by one; more are judged as unknown code.
const maxParallelArgs = 64

// carryArgs follows a command that takes its arguments after a separator
// (GNU parallel: CMD ::: A B, CMD :::: FILE). Each argument is run with
// the command template, through a shell, its replacement strings ({},
// {1}) replaced or the argument appended; with no template each argument
// is a command line. It reports whether the command had a separator.
func (w *walker) carryArgs(st *state, i int, k *Carrier, inner []Word) bool {
	sep := -1
	for n, a := range inner {
		if contains(k.ArgSeparators, a.Text) || contains(k.ArgFileSeparators, a.Text) {
			sep = n
			break
		}
	}
	if sep < 0 {
		return false
	}
	// The argument sources, each a list of arguments.
	var sources [][]string
	for n := sep; n < len(inner); n++ {
		a := inner[n].Text
		switch {
		case contains(k.ArgSeparators, a):
			sources = append(sources, nil)
		case contains(k.ArgFileSeparators, a):
			sources = append(sources, []string{})
			for n+1 < len(inner) && !contains(k.ArgSeparators, inner[n+1].Text) && !contains(k.ArgFileSeparators, inner[n+1].Text) {
				n++
				data := w.argFile(st, inner[n].Text)
				if data == nil {
					w.unknownCode(i)
					return true
				}
				for _, line := range strings.Split(strings.TrimRight(*data, "\n"), "\n") {
					sources[len(sources)-1] = append(sources[len(sources)-1], line)
				}
			}
			continue
		default:
			sources[len(sources)-1] = append(sources[len(sources)-1], a)
		}
	}
	template := wordTexts(inner[:sep])
	var lines []string
	for n, a := range sources[0] {
		if n == maxParallelArgs {
			w.unknownCode(i)
			break
		}
		// The n-th argument of each source (parallel combines them;
		// one line per argument of the first is enough to judge).
		row := []string{a}
		for _, src := range sources[1:] {
			if len(src) > 0 {
				row = append(row, src[min(n, len(src)-1)])
			}
		}
		lines = append(lines, fillTemplate(template, k.Replacements, row))
	}
	sub := *st // the carrier's state, named with its separator: "parallel :::"
	sub.via = slices.Clone(st.via)
	if n := len(sub.via); n > 0 {
		sub.via[n-1] += " " + inner[sep].Text
	}
	for _, line := range lines {
		w.code(&sub, i, line)
	}
	return true
}

// fillTemplate makes the command line parallel runs for one row of
// arguments: {} is the first, {N} the N-th (quoted for the shell); with
// no replacement string the quoted arguments are appended. An empty
// template runs the arguments themselves as a command line.
func fillTemplate(template, repl []string, row []string) string {
	if len(template) == 0 {
		return strings.Join(row, " ")
	}
	quoted := make([]string, len(row))
	for n, a := range row {
		quoted[n], _ = syntax.Quote(a, syntax.LangBash)
		if quoted[n] == "" {
			quoted[n] = "''"
		}
	}
	line := strings.Join(template, " ")
	hit := false
	for n := len(row); n >= 1; n-- {
		r := "{" + string(rune('0'+n%10)) + "}"
		if n < 10 && strings.Contains(line, r) {
			line, hit = strings.ReplaceAll(line, r, quoted[n-1]), true
		}
	}
	for _, r := range repl {
		if strings.Contains(line, r) {
			line, hit = strings.ReplaceAll(line, r, quoted[0]), true
		}
	}
	if !hit {
		line += " " + strings.Join(quoted, " ")
	}
	return line
}
