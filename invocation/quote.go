package invocation

import "strings"

// QuoteArgv returns argv as one POSIX shell command line, each word
// quoted where it needs to be. The line is built in place, its length
// counted first: a 2,000-line script was copied twice, quoted then
// joined.
func QuoteArgv(argv []string) string {
	n := len(argv)
	for _, a := range argv {
		n += len(a) + 2 + 3*strings.Count(a, "'")
	}
	var b strings.Builder
	b.Grow(n)
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if plainWord(a) {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		for rest := a; ; {
			part, after, quote := strings.Cut(rest, "'")
			b.WriteString(part)
			if !quote {
				break
			}
			b.WriteString(`'\''`)
			rest = after
		}
		b.WriteByte('\'')
	}
	return b.String()
}

// Quote quotes s as one POSIX shell word.
func Quote(s string) string {
	if plainWord(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// plainWord reports whether s needs no quotes.
func plainWord(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == ""
}
