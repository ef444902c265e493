package powershell

import "strings"

// Commands in argument mode: a name, then parameters (-Name, -Name:value),
// splats (@name), values (barewords, strings, variables, expressions in
// parentheses, comma lists) and redirections.

// cmdEnds reports whether the command ends at the current offset.
func (p *parser) cmdEnds() bool {
	if p.eof() {
		return true
	}
	switch p.peek() {
	case '\r', '\n', ';', '|', ')', '}':
		return true
	case '&':
		return true // && or the background operator
	}
	return false
}

// command parses a command element.
func (p *parser) command() *command {
	p.enter()
	defer p.leave()
	c := &command{pos: p.i}
	switch ch := p.peek(); {
	case ch == '&' && p.at(1) != '&':
		c.invoke = "&"
		p.i++
		p.space()
	case ch == '.' && (p.spaceAt(p.i+1) > 0 || p.at(1) == '{' || p.at(1) == '$' || p.at(1) == '(' ||
		p.squoteAt(p.i+1) > 0 || p.dquoteAt(p.i+1) > 0):
		c.invoke = "."
		p.i++
		p.space()
	}
	if p.cmdEnds() {
		p.fail(p.i, "missing command name")
	}
	c.name = p.argValue()
	for {
		p.space()
		if p.peek() == '&' && p.at(1) != '&' { // background job
			p.i++
			p.bg = true
			return c
		}
		if p.cmdEnds() {
			return c
		}
		if r := p.redirection(); r != nil {
			c.redirs = append(c.redirs, r)
			continue
		}
		if p.has("--%") && (p.i+3 >= len(p.src) || p.spaceAt(p.i+3) > 0 || isNewline(p.at(3))) {
			p.i += 3
			start := p.i
			for !p.eof() && !isNewline(p.peek()) && p.peek() != '|' {
				p.i++
			}
			c.stop, c.hasStop = strings.TrimLeft(p.src[start:p.i], " \t"), true
			continue
		}
		c.args = append(c.args, p.cmdArg())
	}
}

// paramEnds reports whether a parameter name may end at offset i.
func (p *parser) paramEnds(i int) bool {
	if i >= len(p.src) || p.spaceAt(i) > 0 {
		return true
	}
	return strings.IndexByte("\r\n;|&(){},<>:", p.src[i]) >= 0
}

// cmdArg parses one argument.
func (p *parser) cmdArg() *cmdArg {
	a := &cmdArg{pos: p.i}
	if n := p.dashAt(p.i); n > 0 {
		j := p.i + n
		if j < len(p.src) && (isIdentByte(p.src[j]) && !(p.src[j] >= '0' && p.src[j] <= '9') || p.src[j] == '?') {
			k := j
			for k < len(p.src) && (isIdentByte(p.src[k]) || p.src[k] == '?' || p.src[k] == '-') {
				k++
			}
			if p.paramEnds(k) {
				a.param = "-" + p.src[j:k]
				p.i = k
				if p.peek() == ':' {
					p.i++
					p.space()
					a.colon = true
					a.val = p.argValue()
				}
				return a
			}
		}
	}
	if p.peek() == '@' && p.identAt(p.i+1) > 0 {
		save := p.i
		p.i++
		name := p.ident()
		if p.paramEnds(p.i) {
			a.splat = name
			return a
		}
		p.i = save
	}
	a.val = p.argList()
	return a
}

// argList parses a value, or a comma list of values.
func (p *parser) argList() expr {
	x := p.argValue()
	p.space()
	if p.peek() != ',' {
		return x
	}
	list := &arrayLit{elems: []expr{x}}
	for p.peek() == ',' {
		p.i++
		p.spaceNL()
		list.elems = append(list.elems, p.argValue())
		p.space()
	}
	return list
}

// argValue parses one value in argument mode.
func (p *parser) argValue() expr {
	p.enter()
	defer p.leave()
	c, c1 := p.peek(), p.at(1)
	switch {
	case c == '(' || c == '{' || c == '$' && c1 == '(' || c == '@' && (c1 == '(' || c1 == '{'):
		return p.postfix(p.primary())
	case p.squoteAt(p.i) > 0 || p.dquoteAt(p.i) > 0 || c == '@' && (p.squoteAt(p.i+1) > 0 || p.dquoteAt(p.i+1) > 0):
		return p.postfix(p.primary())
	case c == '$' && p.varStart(p.i+1):
		save := p.i
		x := p.variable()
		if c := p.peek(); c == '[' || c == '.' && p.identAt(p.i+1) > 0 || p.has("::") {
			return p.postfix(x)
		}
		if p.paramEnds(p.i) {
			return x
		}
		p.i = save
	}
	if p.cmdEnds() {
		p.fail(p.i, "missing argument")
	}
	return p.genericToken()
}

// genericToken parses a bareword, which may hold quoted parts,
// variables, subexpressions and backtick escapes.
func (p *parser) genericToken() expr {
	w := &expandStr{bare: true}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			w.parts = append(w.parts, &strLit{lit.String()})
			lit.Reset()
		}
	}
	for !p.eof() && p.spaceAt(p.i) == 0 {
		c := p.peek()
		switch {
		case strings.IndexByte("\r\n;|&(){},<>", c) >= 0:
			flush()
			return w
		case c == '`':
			if isNewline(p.at(1)) {
				flush()
				return w
			}
			p.i++
			lit.WriteString(p.escape())
		case p.squoteAt(p.i) > 0:
			lit.WriteString(p.singleQuoted())
		case p.dquoteAt(p.i) > 0:
			flush()
			w.parts = append(w.parts, p.doubleQuoted().(*expandStr).parts...)
		case c == '$' && (p.varStart(p.i+1) || p.at(1) == '('):
			flush()
			if p.at(1) == '(' {
				w.parts = append(w.parts, p.primary())
			} else {
				w.parts = append(w.parts, p.variable())
			}
		default:
			_, n := p.runeAt(p.i)
			lit.WriteString(p.src[p.i : p.i+n])
			p.i += n
		}
	}
	flush()
	return w
}

// redirection parses a redirection at the current offset, or returns nil.
func (p *parser) redirection() *redir {
	c := p.peek()
	r := &redir{op: ">", fd: 1}
	switch {
	case c == '<':
		p.i++
		r.op, r.fd = "<", 0
		p.space()
		r.target = p.redirTarget()
		return r
	case c == '>':
	case c >= '1' && c <= '6' && p.at(1) == '>':
		r.fd = int(c - '0')
		p.i++
	case c == '*' && p.at(1) == '>':
		r.fd = 0
		p.i++
	default:
		return nil
	}
	p.i++
	if p.peek() == '>' {
		r.op = ">>"
		p.i++
	}
	if p.peek() == '&' && p.at(1) >= '1' && p.at(1) <= '6' {
		p.i += 2
		r.merge = true
		return r
	}
	p.space()
	r.target = p.redirTarget()
	return r
}

func (p *parser) redirTarget() expr {
	if p.cmdEnds() {
		p.fail(p.i, "missing redirection target")
	}
	return p.argValue()
}
