package cmdexe

import "strings"

// ifCmd reads if [/i] [not] condition command [else command]. Only the
// shape matters: the walk takes every branch.
func (p *parser) ifCmd() node {
	n := &ifNode{at: p.i}
	if !p.enter(p.i) {
		return nil
	}
	defer func() { p.nest-- }()
	p.i += 2
	p.skipBlanks()
	w := p.condWord()
	if strings.EqualFold(w, "/i") {
		p.skipBlanks()
		w = p.condWord()
	}
	if strings.EqualFold(w, "not") {
		p.skipBlanks()
		w = p.condWord()
	}
	if !p.condition(w) {
		p.fail(n.at, ProblemSyntax, "if without a condition")
		return nil
	}
	n.then = p.body(n.at, "if")
	if _, ok := n.then.(*group); ok {
		save := p.i
		p.skipBlanks()
		if p.hasWord("else") {
			p.i += 4
			n.els = p.body(n.at, "else")
		} else {
			p.i = save
		}
	}
	return n
}

// condition reads the rest of a condition whose first word is w.
func (p *parser) condition(w string) bool {
	switch strings.ToLower(w) {
	case "":
		return false
	case "exist", "defined", "errorlevel", "cmdextversion":
		p.skipBlanks()
		return p.condWord() != ""
	}
	p.skipBlanks()
	if p.i+1 < len(p.buf) && p.buf[p.i] == '=' && p.buf[p.i+1] == '=' {
		for p.i < len(p.buf) && p.buf[p.i] == '=' {
			p.i++
		}
		p.skipBlanks()
		return p.condWord() != ""
	}
	switch strings.ToUpper(p.condWord()) {
	case "EQU", "NEQ", "LSS", "LEQ", "GTR", "GEQ":
		p.skipBlanks()
		return p.condWord() != ""
	}
	return false
}

// condWord reads one operand of a condition: quotes kept, carets
// removed, up to a blank, == or an operator.
func (p *parser) condWord() string {
	return p.wordUntil(func(c byte) bool {
		return strings.IndexByte(" \t\n&|<>()", c) >= 0 || c == '=' && p.i+1 < len(p.buf) && p.buf[p.i+1] == '='
	})
}

// hasWord reports whether the keyword w (any case) is at the cursor,
// followed by a blank, ( or the end.
func (p *parser) hasWord(w string) bool {
	j := p.i + len(w)
	if j > len(p.buf) || !strings.EqualFold(string(p.buf[p.i:j]), w) {
		return false
	}
	return j == len(p.buf) || strings.IndexByte(" \t(", p.buf[j]) >= 0
}

// forCmd reads for [/d | /r [dir] | /l | /f ["opts"]] %x in (set) do
// command.
func (p *parser) forCmd() node {
	n := &forNode{at: p.i}
	if !p.enter(p.i) {
		return nil
	}
	defer func() { p.nest-- }()
	p.i += 3
	if !p.forHead(n) {
		return nil
	}
	p.skipBlanks()
	if !p.hasWord("in") {
		p.fail(n.at, ProblemSyntax, "for without in")
		return nil
	}
	p.i += 2
	p.skipBlanks()
	if c, ok := p.peek(); !ok || c != '(' {
		p.fail(n.at, ProblemSyntax, "for without ( set )")
		return nil
	}
	set, ok := p.forSet()
	if !ok {
		p.fail(n.at, ProblemSyntax, "for set without )")
		return nil
	}
	n.set = set
	p.skipBlanks()
	if !p.hasWord("do") {
		p.fail(n.at, ProblemSyntax, "for without do")
		return nil
	}
	p.i += 2
	n.body = p.body(n.at, "for")
	return n
}

// forHead reads the switches and the variable of a for.
func (p *parser) forHead(n *forNode) bool {
	for {
		p.skipBlanks()
		w := p.condWord()
		switch lw := strings.ToLower(w); {
		case w == "":
			p.fail(n.at, ProblemSyntax, "for without a %variable")
			return false
		case w[0] == '%':
			if len(w) != 2 {
				p.fail(n.at, ProblemSyntax, "for variable "+w+" is not one letter")
				return false
			}
			n.letter = w[1]
			return true
		case lw == "/d" || lw == "/l" || lw == "/r" || lw == "/f":
			n.mode = lw[1]
			if lw == "/r" || lw == "/f" {
				p.skipBlanks()
				if c, ok := p.peek(); ok && c != '%' {
					w := p.condWord()
					if lw == "/r" {
						n.root = w
					} else {
						n.opts = w
					}
				}
			}
		case w[0] == '"' && n.mode == 'f':
			n.opts = w
		default:
			p.fail(n.at, ProblemSyntax, "unexpected "+w+" in for")
			return false
		}
	}
}

// forSet reads ( set ): carets removed outside quotes, newlines read as
// blanks, up to the first ) outside quotes.
func (p *parser) forSet() (string, bool) {
	p.i++
	var b []byte
	for {
		if p.i >= len(p.buf) && !p.pull(true) {
			return string(b), false
		}
		switch c := p.buf[p.i]; c {
		case ')':
			p.i++
			return string(b), true
		case '"':
			b = p.quoted(b)
		case '^':
			b = p.caret(b)
		case '\n':
			b = append(b, ' ')
			p.i++
		default:
			b = append(b, c)
			p.i++
		}
	}
}
