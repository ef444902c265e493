package powershell

import (
	"fmt"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// file is one text being parsed: the script, or code decoded from it.
type file struct {
	src   string
	lines []int // offsets at which lines start
}

func newFile(src string) *file {
	f := &file{src: src, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	return f
}

// position returns "line:col" for a byte offset, both counted from 1.
func (f *file) position(off int) string {
	line := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off }) - 1
	if line < 0 {
		line = 0
	}
	return strconv.Itoa(line+1) + ":" + strconv.Itoa(off-f.lines[line]+1)
}

// syntaxError is the parser's bail-out, recovered at the top.
type syntaxError struct {
	off int
	msg string
}

// maxNesting bounds the parser's recursion.
const maxNesting = 200

// parser is a scannerless recursive-descent parser: PowerShell tokens
// depend on the mode (expression or argument), which only the parser
// knows.
type parser struct {
	f       *file
	src     string
	i       int
	depth   int
	core    bool
	noComma bool     // inside method arguments: a comma separates them
	assigns []string // variables assigned so far, for loops
	top     []stmt   // statements parsed at top level, kept on error
	bg      bool     // the last pipeline ended with the background operator &
}

func (p *parser) fail(off int, format string, args ...any) {
	panic(&syntaxError{off, fmt.Sprintf(format, args...)})
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxNesting {
		p.fail(p.i, "nesting deeper than %d", maxNesting)
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) eof() bool { return p.i >= len(p.src) }

func (p *parser) peek() byte { return p.at(0) }

func (p *parser) at(k int) byte {
	if p.i+k < len(p.src) {
		return p.src[p.i+k]
	}
	return 0
}

func (p *parser) has(s string) bool {
	return len(p.src)-p.i >= len(s) && p.src[p.i:p.i+len(s)] == s
}

// runeAt decodes the rune at offset i, 0 at the end.
func (p *parser) runeAt(i int) (rune, int) {
	if i >= len(p.src) {
		return 0, 0
	}
	if c := p.src[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(p.src[i:])
}

// dashAt returns the width of a dash at offset i: PowerShell also takes
// the en dash, em dash and horizontal bar as "-".
func (p *parser) dashAt(i int) int {
	switch r, n := p.runeAt(i); r {
	case '-', '\u2013', '\u2014', '\u2015':
		return n
	}
	return 0
}

// squoteAt and dquoteAt return the width of a single or double quote at
// offset i, typographic quotes included as PowerShell reads them.
func (p *parser) squoteAt(i int) int {
	switch r, n := p.runeAt(i); r {
	case '\'', '\u2018', '\u2019', '\u201a', '\u201b':
		return n
	}
	return 0
}

func (p *parser) dquoteAt(i int) int {
	switch r, n := p.runeAt(i); r {
	case '"', '\u201c', '\u201d', '\u201e':
		return n
	}
	return 0
}

// spaceAt returns the width of a blank (not a newline) at offset i.
func (p *parser) spaceAt(i int) int {
	r, n := p.runeAt(i)
	switch r {
	case ' ', '\t', '\f', '\v':
		return 1
	case '\n', '\r', 0:
		return 0
	}
	if r >= utf8.RuneSelf && unicode.IsSpace(r) && r != '\u0085' {
		return n
	}
	return 0
}

func isNewline(c byte) bool { return c == '\n' || c == '\r' }

// space skips blanks, comments and line continuations, not newlines.
func (p *parser) space() {
	for !p.eof() {
		if n := p.spaceAt(p.i); n > 0 {
			p.i += n
			continue
		}
		switch c := p.peek(); {
		case c == '`' && isNewline(p.at(1)):
			p.i += 2
			if p.src[p.i-1] == '\r' && p.peek() == '\n' {
				p.i++
			}
		case c == '<' && p.at(1) == '#':
			p.blockComment()
		case c == '#':
			for !p.eof() && !isNewline(p.peek()) {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *parser) blockComment() {
	start := p.i
	p.i += 2
	for !p.has("#>") {
		if p.eof() {
			p.fail(start, "unterminated comment <#")
		}
		p.i++
	}
	p.i += 2
}

// spaceNL skips blanks, comments and newlines.
func (p *parser) spaceNL() {
	for {
		p.space()
		if !isNewline(p.peek()) {
			return
		}
		p.i++
	}
}

// expect skips blanks and newlines and consumes c, or fails.
func (p *parser) expect(c byte, what string) {
	p.spaceNL()
	if p.peek() != c {
		p.fail(p.i, "%s: expected %q", what, c)
	}
	p.i++
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isIdentStart reports whether the rune at i starts an identifier.
func (p *parser) identAt(i int) int {
	r, n := p.runeAt(i)
	if r < utf8.RuneSelf {
		if isIdentByte(byte(r)) && r != 0 {
			return 1
		}
		return 0
	}
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return n
	}
	return 0
}

// ident reads identifier characters.
func (p *parser) ident() string {
	start := p.i
	for {
		n := p.identAt(p.i)
		if n == 0 {
			return p.src[start:p.i]
		}
		p.i += n
	}
}

// word returns the keyword-like word at the current offset (letters,
// digits, _ and -), without consuming it.
func (p *parser) word() string {
	j := p.i
	for j < len(p.src) && (isIdentByte(p.src[j]) || p.src[j] == '-') {
		j++
	}
	return p.src[p.i:j]
}
