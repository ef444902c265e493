package powershell

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// varStart reports whether a variable name starts at offset i, after $.
func (p *parser) varStart(i int) bool {
	if i >= len(p.src) {
		return false
	}
	switch p.src[i] {
	case '{', '$', '?', '^', '_':
		return true
	}
	return p.identAt(i) > 0
}

// variable parses $name, $scope:name, ${any name}, $$, $? and $^.
func (p *parser) variable() expr {
	v := &varExpr{pos: p.i}
	p.i++
	switch c := p.peek(); c {
	case '{':
		p.i++
		var b strings.Builder
		for {
			if p.eof() {
				p.fail(v.pos, "unterminated variable name ${")
			}
			c := p.peek()
			if c == '}' {
				p.i++
				break
			}
			if c == '`' && p.i+1 < len(p.src) {
				p.i++
			}
			b.WriteByte(p.src[p.i])
			p.i++
		}
		v.name = b.String()
		return v
	case '$', '?', '^':
		p.i++
		v.name = string(c)
		return v
	}
	start := p.i
	p.ident()
	if p.peek() == ':' && p.at(1) != ':' && p.identAt(p.i+1) > 0 {
		p.i++
		p.ident()
	} else if p.peek() == ':' && (p.at(1) == '?' || p.at(1) == '^' || p.at(1) == '$') && slices.Contains(scopes, strings.ToLower(p.src[start:p.i+1])) {
		p.i += 2 // $global:? (VS Code's shell integration reads it)
	}
	v.name = p.src[start:p.i]
	return v
}

// scopes are the scope prefixes of variable names, ignored by the walker.
var scopes = []string{"global:", "script:", "local:", "private:", "using:", "variable:", "workflow:"}

// varKey returns the walker's key for a variable name: lower case,
// without a scope prefix; $env: variables keep their "env:" prefix.
func varKey(name string) string {
	k := strings.ToLower(name)
	for _, s := range scopes {
		if strings.HasPrefix(k, s) {
			return k[len(s):]
		}
	}
	return k
}

// singleQuoted reads a single-quoted string, in which a doubled quote
// is one quote.
func (p *parser) singleQuoted() string {
	start := p.i
	p.i += p.squoteAt(p.i)
	var b strings.Builder
	for {
		if p.eof() {
			p.fail(start, "unterminated string")
		}
		if n := p.squoteAt(p.i); n > 0 {
			p.i += n
			if m := p.squoteAt(p.i); m > 0 {
				b.WriteString(p.src[p.i : p.i+m])
				p.i += m
				continue
			}
			return b.String()
		}
		b.WriteByte(p.src[p.i])
		p.i++
	}
}

// doubleQuoted parses a double-quoted string into its parts.
func (p *parser) doubleQuoted() expr {
	start := p.i
	p.i += p.dquoteAt(p.i)
	s := &expandStr{}
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			s.parts = append(s.parts, &strLit{s: b.String()})
			b.Reset()
		}
	}
	for {
		if p.eof() {
			p.fail(start, "unterminated string")
		}
		if n := p.dquoteAt(p.i); n > 0 {
			p.i += n
			if m := p.dquoteAt(p.i); m > 0 {
				b.WriteString(p.src[p.i : p.i+m])
				p.i += m
				continue
			}
			flush()
			return s
		}
		if x := p.stringPart(&b); x != nil {
			flush()
			s.parts = append(s.parts, x)
		}
	}
}

// stringPart reads one piece of an expandable string: an expansion,
// returned, or literal text, written to b.
func (p *parser) stringPart(b *strings.Builder) expr {
	switch c := p.peek(); {
	case c == '`' && p.i+1 < len(p.src):
		p.i++
		b.WriteString(p.escape())
	case c == '$' && p.at(1) == '(':
		return p.primary()
	case c == '$' && p.varStart(p.i+1) && p.at(1) != '?' && p.at(1) != '^' || c == '$' && p.at(1) == '$':
		return p.variable()
	default:
		_, n := p.runeAt(p.i)
		b.WriteString(p.src[p.i : p.i+n])
		p.i += n
	}
	return nil
}

// escape reads the character after a backtick and returns its value.
func (p *parser) escape() string {
	r, n := p.runeAt(p.i)
	p.i += n
	switch r {
	case '0':
		return "\x00"
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 'f':
		return "\f"
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case 'v':
		return "\v"
	case 'e':
		if p.core {
			return "\x1b"
		}
	case 'u':
		if p.core && p.peek() == '{' {
			if j := strings.IndexByte(p.src[p.i:], '}'); j > 1 && j <= 7 {
				if v, err := strconv.ParseUint(p.src[p.i+1:p.i+j], 16, 32); err == nil && v <= 0x10ffff {
					p.i += j + 1
					return string(rune(v))
				}
			}
		}
	}
	return string(r)
}

// hereString parses @' ... '@ or @" ... "@: the opening quote ends its
// line, and the closing quote starts one.
func (p *parser) hereString() expr {
	start := p.i
	p.i++
	w := p.squoteAt(p.i)
	double := w == 0
	if double {
		w = p.dquoteAt(p.i)
	}
	p.i += w
	for p.spaceAt(p.i) > 0 {
		p.i += p.spaceAt(p.i)
	}
	if p.peek() == '\r' {
		p.i++
	}
	if p.peek() != '\n' {
		p.fail(start, "here-string: the opening quote must end its line")
	}
	p.i++
	body := p.i
	end := -1
	for line := body; line <= len(p.src); {
		if p.closesHere(line, double) {
			end = line
			break
		}
		k := strings.IndexByte(p.src[line:], '\n')
		if k < 0 {
			break
		}
		line += k + 1
	}
	if end < 0 {
		p.fail(start, "unterminated here-string")
	}
	stop := end - 1 // the newline before the closing quote
	if stop > body && p.src[stop-1] == '\r' {
		stop--
	}
	stop = max(stop, body)
	closing := end + p.squoteAt(end) + p.dquoteAt(end) + 1
	if !double {
		p.i = closing
		return &strLit{s: p.src[body:stop]}
	}
	s := &expandStr{}
	var b strings.Builder
	for p.i < stop {
		if x := p.stringPart(&b); x != nil {
			if b.Len() > 0 {
				s.parts = append(s.parts, &strLit{s: b.String()})
				b.Reset()
			}
			s.parts = append(s.parts, x)
		}
	}
	if b.Len() > 0 {
		s.parts = append(s.parts, &strLit{s: b.String()})
	}
	p.i = closing
	return s
}

// closesHere reports whether a here-string's closing quote starts the
// line at offset i.
func (p *parser) closesHere(i int, double bool) bool {
	n := p.squoteAt(i)
	if double {
		n = p.dquoteAt(i)
	}
	return n > 0 && i+n < len(p.src) && p.src[i+n] == '@'
}

// numberSuffixes and multipliers may follow a number literal.
var (
	numberSuffixes = []string{"ul", "uy", "us", "un", "u", "l", "d", "y", "s", "n"}
	multipliers    = sync.OnceValue(func() map[string]float64 {
		return map[string]float64{"kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40, "pb": 1 << 50}
	})
)

// number parses a number literal; ok is false (and nothing consumed)
// when the text is no number.
func (p *parser) number() (x expr, ok bool) {
	start := p.i
	j := p.i
	digits := func(hex bool) {
		for j < len(p.src) && (p.src[j] >= '0' && p.src[j] <= '9' || hex && strings.IndexByte("abcdefABCDEF", p.src[j]) >= 0) {
			j++
		}
	}
	var n float64
	if strings.HasPrefix(strings.ToLower(p.src[j:]), "0x") {
		j += 2
		digits(true)
		v, err := strconv.ParseUint(p.src[start+2:j], 16, 64)
		if err != nil {
			return nil, false
		}
		n = float64(v)
	} else {
		digits(false)
		if j < len(p.src) && p.src[j] == '.' && j+1 < len(p.src) && p.src[j+1] >= '0' && p.src[j+1] <= '9' {
			j++
			digits(false)
		}
		if j < len(p.src) && (p.src[j] == 'e' || p.src[j] == 'E') {
			k := j + 1
			if k < len(p.src) && (p.src[k] == '+' || p.src[k] == '-') {
				k++
			}
			if k < len(p.src) && p.src[k] >= '0' && p.src[k] <= '9' {
				j = k
				digits(false)
			}
		}
		v, err := strconv.ParseFloat(p.src[start:j], 64)
		if err != nil && j == start {
			return nil, false
		}
		n = v
	}
	text := p.src[start:j]
	rest := strings.ToLower(p.src[j:min(j+4, len(p.src))])
	for _, s := range numberSuffixes {
		if strings.HasPrefix(rest, s) {
			j += len(s)
			rest = rest[len(s):]
			break
		}
	}
	if len(rest) >= 2 && multipliers()[rest[:2]] > 0 {
		n *= multipliers()[rest[:2]]
		j += 2
	}
	if j < len(p.src) && isIdentByte(p.src[j]) {
		return nil, false
	}
	p.i = j
	return &numLit{n: n, text: text}, true
}
