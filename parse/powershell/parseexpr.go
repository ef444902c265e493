package powershell

import (
	"strings"
	"sync"
)

// Expression levels, lowest first, as in the PowerShell language
// specification (§7): logical, bitwise, comparison, additive,
// multiplicative, format, range, array, unary.
const (
	levelLogical = iota
	levelBitwise
	levelCompare
	levelAdd
	levelMul
	levelFormat
	levelRange
	levelArray
)

// compareOps are the comparison-level operators; those marked true also
// come with an i or c prefix (-ieq, -creplace).
var compareOps = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"eq": true, "ne": true, "gt": true, "ge": true, "lt": true, "le": true,
		"like": true, "notlike": true, "match": true, "notmatch": true,
		"replace": true, "contains": true, "notcontains": true, "in": true,
		"notin": true, "split": true, "join": false, "is": false, "isnot": false,
		"as": false, "shl": false, "shr": false,
	}
})

// opLevel returns the level of binary operator op, or -1.
func opLevel(op string) int {
	switch op {
	case "and", "or", "xor", "??":
		return levelLogical
	case "band", "bor", "bxor":
		return levelBitwise
	case "+", "-":
		return levelAdd
	case "*", "/", "%":
		return levelMul
	case "f":
		return levelFormat
	case "..":
		return levelRange
	}
	if _, ok := compareOps()[op]; ok {
		return levelCompare
	}
	if len(op) > 1 && (op[0] == 'i' || op[0] == 'c') && compareOps()[op[1:]] {
		return levelCompare
	}
	return -1
}

// canonOp drops the i prefix of a comparison operator, which is the
// default; the c prefix stays, as it changes the result.
func canonOp(op string) string {
	if _, ok := compareOps()[op]; !ok && len(op) > 1 && op[0] == 'i' {
		return op[1:]
	}
	return op
}

// expression parses an expression, with the ternary ?: of PowerShell 7.
func (p *parser) expression() expr {
	x := p.binary(levelLogical)
	save := p.i
	p.space()
	if p.peek() == '?' && p.spaceAt(p.i+1) > 0 {
		p.i++
		p.spaceNL()
		a := p.expression()
		p.spaceNL()
		if p.peek() != ':' {
			p.fail(p.i, "ternary: expected ':'")
		}
		p.i++
		p.spaceNL()
		b := p.expression()
		return &binExpr{op: "?:", x: x, y: &arrayLit{elems: []expr{a, b}}}
	}
	p.i = save
	return x
}

// binary parses the operators of one level, left to right.
func (p *parser) binary(level int) expr {
	if level == levelArray {
		return p.array()
	}
	x := p.binary(level + 1)
	for {
		save := p.i
		p.space()
		op, n := p.binOp()
		if op == "" || opLevel(op) != level {
			p.i = save
			return x
		}
		p.i += n
		p.spaceNL()
		x = &binExpr{op: canonOp(op), x: x, y: p.binary(level + 1)}
	}
}

// array parses a comma list of unary expressions.
func (p *parser) array() expr {
	x := p.unary()
	save := p.i
	p.space()
	if p.noComma || p.peek() != ',' {
		p.i = save
		return x
	}
	list := &arrayLit{elems: []expr{x}}
	for p.peek() == ',' {
		p.i++
		p.spaceNL()
		list.elems = append(list.elems, p.unary())
		save = p.i
		p.space()
	}
	p.i = save
	return list
}

// dashWord returns the letters after a dash at the current offset, and
// the width of the dash and the word.
func (p *parser) dashWord() (string, int) {
	n := p.dashAt(p.i)
	if n == 0 {
		return "", 0
	}
	j := p.i + n
	k := j
	for k < len(p.src) && (p.src[k] >= 'a' && p.src[k] <= 'z' || p.src[k] >= 'A' && p.src[k] <= 'Z') {
		k++
	}
	if k == j || k < len(p.src) && isIdentByte(p.src[k]) {
		return "", 0
	}
	return strings.ToLower(p.src[j:k]), k - p.i
}

// binOp returns the binary operator at the current offset and its width.
func (p *parser) binOp() (string, int) {
	if w, n := p.dashWord(); n > 0 {
		if opLevel(w) >= 0 && w != "-" {
			return w, n
		}
		return "", 0
	}
	if n := p.dashAt(p.i); n > 0 {
		if c := p.at(n); c == '=' || c == '-' {
			return "", 0
		}
		return "-", n
	}
	c, c1 := p.peek(), p.at(1)
	switch {
	case c == '+' && c1 != '=' && c1 != '+':
		return "+", 1
	case (c == '*' || c == '/' || c == '%') && c1 != '=':
		return string(c), 1
	case c == '.' && c1 == '.':
		return "..", 2
	case c == '?' && c1 == '?' && p.at(2) != '=':
		return "??", 2
	}
	return "", 0
}

// unaryOps are the word operators that take one operand.
var unaryOps = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"not": true, "bnot": true, "split": true, "join": true, "isplit": true, "csplit": true}
})

// unary parses a unary expression.
func (p *parser) unary() expr {
	p.enter()
	defer p.leave()
	c, c1 := p.peek(), p.at(1)
	switch {
	case c == '!':
		p.i++
		p.spaceNL()
		return &unaryExpr{op: "not", x: p.unary()}
	case c == ',':
		p.i++
		p.spaceNL()
		return &arrayLit{elems: []expr{p.unary()}}
	case c == '+' && c1 == '+':
		p.i += 2
		return &unaryExpr{op: "++", x: p.unary()}
	case c == '+':
		p.i++
		p.spaceNL()
		return &unaryExpr{op: "+", x: p.unary()}
	case c == '[':
		return p.typeExpr()
	}
	if w, n := p.dashWord(); n > 0 && unaryOps()[w] {
		p.i += n
		p.spaceNL()
		return &unaryExpr{op: canonOp(w), x: p.unary()}
	}
	if n := p.dashAt(p.i); n > 0 {
		p.i += n
		op := "-"
		if m := p.dashAt(p.i); m > 0 {
			p.i += m
			op = "--"
		}
		p.spaceNL()
		return &unaryExpr{op: op, x: p.unary()}
	}
	return p.postfix(p.primary())
}

// typeExpr parses [type] as a type literal, a static member access or a
// cast.
func (p *parser) typeExpr() expr {
	name := p.typeName()
	if p.has("::") || p.peek() == '.' {
		return p.postfix(&typeLit{name: name})
	}
	save := p.i
	p.space()
	c := p.peek()
	if c == '$' || c == '(' || c == '[' || c == '@' || p.squoteAt(p.i) > 0 || p.dquoteAt(p.i) > 0 ||
		p.i == save && (c >= '0' && c <= '9' || p.dashAt(p.i) > 0 || c == '{' || c == '!' || c == '+') {
		return &castExpr{typ: name, x: p.unary()}
	}
	p.i = save
	return &typeLit{name: name}
}

// typeName reads [name] and returns name; attributes with arguments
// ([Parameter(Mandatory)]) are read whole.
func (p *parser) typeName() string {
	start := p.i
	level := 0
	for !p.eof() {
		switch c := p.peek(); {
		case c == '[':
			level++
		case c == ']':
			level--
			if level == 0 {
				p.i++
				return strings.TrimSpace(p.src[start+1 : p.i-1])
			}
		case p.squoteAt(p.i) > 0:
			p.singleQuoted()
			continue
		case p.dquoteAt(p.i) > 0:
			p.doubleQuoted()
			continue
		case c == '{':
			p.scriptBlock()
			continue
		}
		p.i++
	}
	p.fail(start, "unterminated type name: missing ']'")
	return ""
}

// primary parses a primary expression.
func (p *parser) primary() expr {
	p.enter()
	defer p.leave()
	saveComma := p.noComma
	p.noComma = false
	defer func() { p.noComma = saveComma }()
	c, c1 := p.peek(), p.at(1)
	switch {
	case c == '$' && c1 == '(':
		p.i += 2
		return &subExpr{kind: '$', stmts: p.stmtList(')', "subexpression $(")}
	case c == '@' && c1 == '(':
		p.i += 2
		return &subExpr{kind: '@', stmts: p.stmtList(')', "array subexpression @(")}
	case c == '@' && c1 == '{':
		return p.hashtable()
	case c == '@' && (p.squoteAt(p.i+1) > 0 || p.dquoteAt(p.i+1) > 0):
		return p.hereString()
	case c == '(':
		p.i++
		p.spaceNL()
		if p.peek() == ')' {
			p.i++
			return &subExpr{kind: '('}
		}
		s := p.statement()
		p.expect(')', "parenthesis")
		return &subExpr{kind: '(', stmts: []stmt{s}}
	case c == '{':
		return &blockLit{sb: p.scriptBlock()}
	case c == '$' && p.varStart(p.i+1):
		return p.variable()
	case p.squoteAt(p.i) > 0:
		return &strLit{s: p.singleQuoted()}
	case p.dquoteAt(p.i) > 0:
		return p.doubleQuoted()
	case c >= '0' && c <= '9' || c == '.' && c1 >= '0' && c1 <= '9':
		if x, ok := p.number(); ok {
			return x
		}
	case c == '[':
		return p.typeExpr()
	}
	if p.eof() {
		p.fail(p.i, "unexpected end of script")
	}
	p.fail(p.i, "unexpected %q", p.tokenText())
	return nil
}

// postfix parses member access, method calls, indexing and ++/-- after x.
func (p *parser) postfix(x expr) expr {
	for {
		c, c1 := p.peek(), p.at(1)
		switch {
		case c == '[':
			p.i++
			p.spaceNL()
			save := p.noComma
			p.noComma = false
			idx := p.expression()
			p.noComma = save
			p.expect(']', "index")
			x = &indexExpr{x: x, idx: idx}
		case c == ':' && c1 == ':' || c == '.' && c1 != '.' && c1 != 0 && p.spaceAt(p.i+1) == 0 && !isNewline(c1):
			m := &memberExpr{pos: p.i, x: x, static: c == ':'}
			if m.static {
				p.i += 2
			} else {
				p.i++
			}
			m.name = p.memberName()
			if p.peek() == '(' {
				m.call, m.args = true, p.methodArgs()
			}
			x = m
		case c == '+' && c1 == '+' || c == '-' && c1 == '-':
			p.i += 2
			x = &unaryExpr{op: "post", x: x}
		default:
			return x
		}
	}
}

// memberName parses the name after . or ::.
func (p *parser) memberName() expr {
	switch c := p.peek(); {
	case p.identAt(p.i) > 0:
		return &strLit{s: p.ident()}
	case c == '$' || c == '(':
		return p.primary()
	case p.squoteAt(p.i) > 0 || p.dquoteAt(p.i) > 0:
		return p.primary()
	}
	p.fail(p.i, "missing member name")
	return nil
}

// methodArgs parses ( a, b, ... ).
func (p *parser) methodArgs() []expr {
	p.i++
	p.spaceNL()
	var args []expr
	if p.peek() == ')' {
		p.i++
		return args
	}
	save := p.noComma
	p.noComma = true
	defer func() { p.noComma = save }()
	for {
		p.spaceNL()
		args = append(args, p.expression())
		p.spaceNL()
		switch p.peek() {
		case ',':
			p.i++
		case ')':
			p.i++
			return args
		default:
			p.fail(p.i, "method call: expected ',' or ')'")
		}
	}
}

// scriptBlock parses { ... }.
func (p *parser) scriptBlock() *scriptBlock {
	p.enter()
	defer p.leave()
	sb := &scriptBlock{pos: p.i, f: p.f}
	p.i++
	sb.body = p.stmtList('}', "script block")
	sb.text = p.src[sb.pos+1 : p.i-1]
	return sb
}

// hashtable parses @{ key = value; ... }.
func (p *parser) hashtable() expr {
	start := p.i
	p.i += 2
	h := &hashLit{}
	for {
		p.skipSeparators()
		if p.eof() {
			p.fail(start, "unterminated hashtable: missing '}'")
		}
		if p.peek() == '}' {
			p.i++
			return h
		}
		h.keys = append(h.keys, p.hashKey())
		p.expect('=', "hashtable")
		p.spaceNL()
		h.vals = append(h.vals, p.statement())
		p.endStatement('}')
	}
}

func (p *parser) hashKey() expr {
	c := p.peek()
	if c == '$' || c == '(' || p.squoteAt(p.i) > 0 || p.dquoteAt(p.i) > 0 || c >= '0' && c <= '9' {
		return p.unary()
	}
	start := p.i
	for !p.eof() && p.spaceAt(p.i) == 0 && !strings.ContainsRune("=;}\r\n", rune(p.peek())) {
		p.i++
	}
	if p.i == start {
		p.fail(p.i, "hashtable: missing key")
	}
	return &strLit{s: p.src[start:p.i]}
}
