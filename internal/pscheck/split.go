package pscheck

import (
	"fmt"
	"strings"
)

// Split splits a PowerShell script into its code (strings and comments
// blanked) and the text of its double-quoted strings, and checks that
// brackets, quotes, comments and here-strings are closed. Any of the
// characters PowerShell takes for a single quote opens and closes a
// single-quoted string.
func Split(src string) (code string, strs []string, err error) {
	var b strings.Builder
	var stack []byte
	pairs := map[byte]byte{')': '(', '}': '{', ']': '['}
	line := 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
			b.WriteByte(c)
		case c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			i += j - 1
		case strings.HasPrefix(src[i:], "<#"):
			j := strings.Index(src[i:], "#>")
			if j < 0 {
				return "", nil, errorf(line, "unterminated <# comment")
			}
			line += strings.Count(src[i:i+j], "\n")
			i += j + 1
		case strings.HasPrefix(src[i:], "@\"\n") || strings.HasPrefix(src[i:], "@'\n"):
			end := "\n" + string(src[i+1]) + "@"
			j := strings.Index(src[i+3:], end)
			if j < 0 {
				return "", nil, errorf(line, "unterminated here-string")
			}
			if src[i+1] == '"' {
				strs = append(strs, src[i+3:i+3+j])
			}
			line += strings.Count(src[i:i+3+j+len(end)], "\n")
			i += 2 + j + len(end)
			b.WriteString(`""`)
		case singleQuote(src[i:]) > 0:
			j := i + singleQuote(src[i:])
			for j < len(src) {
				if n := singleQuote(src[j:]); n > 0 {
					if m := singleQuote(src[j+n:]); m > 0 {
						j += n + m
						continue
					}
					break
				}
				j++
			}
			if j >= len(src) {
				return "", nil, errorf(line, "unterminated '")
			}
			line += strings.Count(src[i:j], "\n")
			i = j + singleQuote(src[j:]) - 1
			b.WriteString("''")
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '`' {
					j++
				}
			}
			if j >= len(src) {
				return "", nil, errorf(line, "unterminated \"")
			}
			strs = append(strs, src[i+1:j])
			line += strings.Count(src[i:j], "\n")
			i = j
			b.WriteString(`""`)
		default:
			switch c {
			case '(', '{', '[':
				stack = append(stack, c)
			case ')', '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != pairs[c] {
					return "", nil, errorf(line, "unbalanced "+string(c))
				}
				stack = stack[:len(stack)-1]
			}
			b.WriteByte(c)
		}
	}
	if len(stack) > 0 {
		return "", nil, errorf(line, "unclosed "+string(stack[len(stack)-1]))
	}
	return b.String(), strs, nil
}

// singleQuote is the length of the single quote s starts with (', or
// one of the four typographic ones PowerShell takes for it), or 0.
func singleQuote(s string) int {
	if strings.HasPrefix(s, "'") {
		return 1
	}
	for _, q := range []string{"\u2018", "\u2019", "\u201a", "\u201b"} {
		if strings.HasPrefix(s, q) {
			return len(q)
		}
	}
	return 0
}

func errorf(line int, msg string) error { return fmt.Errorf("line %d: %s", line, msg) }
