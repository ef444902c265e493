package powershell

import (
	"strings"
)

// parseScript parses src. It returns the statements parsed before the
// first syntax error, and the error, if any.
func parseScript(f *file, core bool) (stmts []stmt, err *syntaxError) {
	p := &parser{f: f, src: f.src, core: core}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			stmts, err = p.top, se
		}
	}()
	for {
		p.skipSeparators()
		if p.eof() {
			return p.top, nil
		}
		s := p.statement()
		if _, ok := s.(*paramStmt); !ok {
			p.endStatement(0)
		}
		p.top = append(p.top, s)
	}
}

// skipSeparators skips blanks, newlines and semicolons.
func (p *parser) skipSeparators() {
	for {
		p.spaceNL()
		if p.peek() != ';' {
			return
		}
		p.i++
	}
}

// endStatement checks that a statement ends where it should: at a
// newline, a semicolon, the end of the text or the closing byte.
func (p *parser) endStatement(end byte) {
	p.space()
	c := p.peek()
	if p.eof() || isNewline(c) || c == ';' || (end != 0 && c == end) || p.bg {
		p.bg = false
		return
	}
	p.fail(p.i, "unexpected %q", p.tokenText())
}

// tokenText returns a few bytes at the current offset, for messages.
func (p *parser) tokenText() string {
	s := p.src[p.i:]
	if len(s) > 10 {
		s = s[:10]
	}
	if i := strings.IndexAny(s, "\r\n"); i > 0 {
		s = s[:i]
	}
	return s
}

// stmtList parses statements up to the closing byte end, and consumes it.
func (p *parser) stmtList(end byte, what string) []stmt {
	start := p.i
	var list []stmt
	for {
		p.skipSeparators()
		if p.eof() {
			p.fail(start, "unterminated %s: missing %q", what, end)
		}
		if p.peek() == end {
			p.i++
			return list
		}
		s := p.statement()
		list = append(list, s)
		if _, ok := s.(*paramStmt); !ok {
			p.endStatement(end) // param(...) may have the body on its line
		}
	}
}

// block parses a statement block { ... }.
func (p *parser) block(what string) []stmt {
	p.expect('{', what)
	return p.stmtList('}', what)
}

// keywordParser returns the parser of the statement that the keyword w
// starts, or nil.
func keywordParser(w string) func(*parser) stmt {
	switch w {
	case "if":
		return (*parser).ifStmt
	case "foreach":
		return (*parser).foreachStmt
	case "for":
		return (*parser).forStmt
	case "while":
		return (*parser).whileStmt
	case "do":
		return (*parser).doStmt
	case "switch":
		return (*parser).switchStmt
	case "try":
		return (*parser).tryStmt
	case "trap":
		return (*parser).trapStmt
	case "function", "filter", "workflow":
		return (*parser).funcDef
	case "return", "throw", "exit", "break", "continue":
		return (*parser).flowStmt
	case "param":
		return (*parser).paramStmt
	case "class", "enum":
		return (*parser).typeDef
	case "using":
		return (*parser).usingStmt
	case "data":
		return (*parser).dataStmt
	case "begin", "process", "end", "clean", "dynamicparam":
		return (*parser).namedBlock
	}
	return nil
}

// statement parses one statement.
func (p *parser) statement() stmt {
	p.enter()
	defer p.leave()
	if p.peek() == ':' && p.identAt(p.i+1) > 0 { // loop label
		p.i++
		p.ident()
		p.space()
	}
	w := strings.ToLower(p.word())
	if fn := keywordParser(w); fn != nil && p.keywordFits(w) {
		return fn(p)
	}
	return p.chain()
}

// keywordFits reports whether the keyword w at the current offset is
// one: named blocks and param need a brace or parenthesis after them.
func (p *parser) keywordFits(w string) bool {
	save := p.i
	defer func() { p.i = save }()
	p.i += len(w)
	switch w {
	case "begin", "process", "end", "clean", "dynamicparam":
		p.spaceNL()
		return p.peek() == '{'
	case "param":
		p.spaceNL()
		return p.peek() == '('
	}
	return true
}

// keyword consumes the keyword at the current offset.
func (p *parser) keyword() string {
	w := strings.ToLower(p.word())
	p.i += len(w)
	return w
}

// paren parses ( statement ).
func (p *parser) paren(what string) stmt {
	p.expect('(', what)
	p.spaceNL()
	s := p.statement()
	p.expect(')', what)
	return s
}

func (p *parser) ifStmt() stmt {
	p.keyword()
	s := &ifStmt{}
	s.conds = append(s.conds, p.paren("if"))
	s.bodies = append(s.bodies, p.block("if"))
	for {
		save := p.i
		p.spaceNL()
		switch strings.ToLower(p.word()) {
		case "elseif":
			p.keyword()
			s.conds = append(s.conds, p.paren("elseif"))
			s.bodies = append(s.bodies, p.block("elseif"))
			continue
		case "else":
			p.keyword()
			s.els = p.block("else")
			return s
		}
		p.i = save
		return s
	}
}

// loopBody parses a loop's block, and records what it assigns.
func (p *parser) loopBody(what string) ([]stmt, []string) {
	start := len(p.assigns)
	body := p.block(what)
	return body, append([]string(nil), p.assigns[start:]...)
}

func (p *parser) foreachStmt() stmt {
	p.keyword()
	p.space()
	for p.dashAt(p.i) > 0 { // -parallel, -throttlelimit n
		p.i += p.dashAt(p.i)
		p.ident()
		p.space()
		if p.peek() != '(' {
			p.argValue()
			p.space()
		}
	}
	p.expect('(', "foreach")
	p.spaceNL()
	start := len(p.assigns)
	if p.peek() != '$' {
		p.fail(p.i, "foreach: expected a variable")
	}
	s := &loopStmt{kind: "foreach", varX: p.variable()}
	if v, ok := s.varX.(*varExpr); ok {
		p.assigns = append(p.assigns, varKey(v.name))
	}
	p.spaceNL()
	if strings.ToLower(p.word()) != "in" {
		p.fail(p.i, "foreach: expected \"in\"")
	}
	p.i += 2
	p.spaceNL()
	s.cond = p.statement()
	p.expect(')', "foreach")
	s.body, _ = p.loopBody("foreach")
	s.assigned = append([]string(nil), p.assigns[start:]...)
	return s
}

func (p *parser) forStmt() stmt {
	p.keyword()
	p.expect('(', "for")
	start := len(p.assigns)
	s := &loopStmt{kind: "for"}
	parts := []*stmt{&s.init, &s.cond, &s.iter}
	for k, part := range parts {
		p.space()
		for isNewline(p.peek()) {
			p.i++
			p.space()
		}
		if c := p.peek(); c != ';' && c != ')' {
			*part = p.statement()
			p.space()
		}
		if k < 2 && (p.peek() == ';' || isNewline(p.peek())) {
			p.i++
		}
	}
	p.expect(')', "for")
	s.body, _ = p.loopBody("for")
	s.assigned = append([]string(nil), p.assigns[start:]...)
	return s
}

func (p *parser) whileStmt() stmt {
	p.keyword()
	start := len(p.assigns)
	s := &loopStmt{kind: "while"}
	s.cond = p.paren("while")
	s.body, _ = p.loopBody("while")
	s.assigned = append([]string(nil), p.assigns[start:]...)
	return s
}

func (p *parser) doStmt() stmt {
	p.keyword()
	start := len(p.assigns)
	s := &loopStmt{kind: "do"}
	s.body, _ = p.loopBody("do")
	p.spaceNL()
	switch w := strings.ToLower(p.word()); w {
	case "while", "until":
		p.keyword()
	default:
		p.fail(p.i, "do: expected \"while\" or \"until\"")
	}
	s.cond = p.paren("do")
	s.assigned = append([]string(nil), p.assigns[start:]...)
	return s
}

func (p *parser) switchStmt() stmt {
	p.keyword()
	start := len(p.assigns)
	s := &switchStmt{}
	for {
		p.space()
		n := p.dashAt(p.i)
		if n == 0 {
			break
		}
		p.i += n
		if opt := strings.ToLower(p.ident()); strings.HasPrefix("file", opt) && opt != "" {
			p.space()
			s.file = p.argValue()
		}
	}
	if s.file == nil {
		s.subject = p.paren("switch")
	}
	p.expect('{', "switch")
	for {
		p.skipSeparators()
		if p.eof() {
			p.fail(p.i, "unterminated switch: missing '}'")
		}
		if p.peek() == '}' {
			p.i++
			break
		}
		var cond expr
		if strings.ToLower(p.word()) == "default" {
			p.i += len("default")
		} else {
			cond = p.argValue()
		}
		s.conds = append(s.conds, cond)
		s.bodies = append(s.bodies, p.block("switch clause"))
	}
	s.assigned = append([]string(nil), p.assigns[start:]...)
	return s
}

func (p *parser) tryStmt() stmt {
	p.keyword()
	s := &tryStmt{body: p.block("try")}
	for {
		save := p.i
		p.spaceNL()
		switch strings.ToLower(p.word()) {
		case "catch":
			p.keyword()
			p.catchTypes()
			s.catches = append(s.catches, p.block("catch"))
			continue
		case "finally":
			p.keyword()
			s.finally = p.block("finally")
		default:
			p.i = save
		}
		return s
	}
}

// catchTypes skips the exception types of a catch or trap.
func (p *parser) catchTypes() {
	for {
		p.spaceNL()
		switch p.peek() {
		case '[':
			p.typeName()
		case ',':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) trapStmt() stmt {
	p.keyword()
	p.catchTypes()
	return &blockStmt{body: p.block("trap")}
}

func (p *parser) namedBlock() stmt {
	w := p.keyword()
	return &blockStmt{body: p.block(w)}
}

func (p *parser) dataStmt() stmt {
	p.keyword()
	p.space()
	for p.dashAt(p.i) > 0 { // -SupportedCommand a, b
		p.i += p.dashAt(p.i)
		p.ident()
		for {
			p.space()
			if p.peek() == '{' {
				break
			}
			p.argValue()
			p.space()
			if p.peek() != ',' {
				break
			}
			p.i++
		}
	}
	return &blockStmt{body: p.block("data")}
}

func (p *parser) funcDef() stmt {
	pos := p.i
	p.keyword()
	p.space()
	start := p.i
	for !p.eof() && p.spaceAt(p.i) == 0 && !strings.ContainsRune("(){};|&\r\n", rune(p.peek())) {
		p.i++
	}
	name := p.src[start:p.i]
	if name == "" {
		p.fail(p.i, "function: missing name")
	}
	if i := strings.LastIndexByte(name, ':'); i >= 0 && i < len(name)-1 {
		name = name[i+1:] // function global:f
	}
	p.space()
	var params *paramStmt
	if p.peek() == '(' {
		params = p.paramList()
	}
	p.spaceNL()
	if p.peek() != '{' {
		p.fail(p.i, "function %s: expected '{'", name)
	}
	sb := p.scriptBlock()
	if params != nil {
		sb.body = append([]stmt{params}, sb.body...)
	}
	return &funcDef{pos: pos, name: name, body: sb}
}

func (p *parser) flowStmt() stmt {
	s := &flowStmt{kind: p.keyword()}
	p.space()
	c := p.peek()
	if p.eof() || isNewline(c) || c == ';' || c == '}' || c == ')' {
		return s
	}
	if s.kind == "break" || s.kind == "continue" {
		p.argValue() // label
		return s
	}
	s.value = p.chain()
	return s
}

func (p *parser) paramStmt() stmt {
	p.keyword()
	p.spaceNL()
	return p.paramList()
}

// paramList parses ( [attributes] [type] $name = default, ... ).
func (p *parser) paramList() *paramStmt {
	p.expect('(', "param")
	ps := &paramStmt{}
	for {
		p.spaceNL()
		switch c := p.peek(); {
		case c == ')':
			p.i++
			return ps
		case c == '[':
			p.typeName()
		case c == ',':
			p.i++
		case c == '$':
			v := p.variable()
			ps.names = append(ps.names, varKey(v.(*varExpr).name))
		case c == '=':
			p.i++
			p.spaceNL()
			save := p.noComma
			p.noComma = true
			ps.defaults = append(ps.defaults, p.expression())
			p.noComma = save
		default:
			p.fail(p.i, "param: unexpected %q", p.tokenText())
		}
	}
}

// typeDef skips a class or enum definition.
func (p *parser) typeDef() stmt {
	p.keyword()
	for !p.eof() && p.peek() != '{' {
		p.i++
	}
	p.skipBraces()
	return &skipStmt{}
}

// skipBraces skips a balanced { } group, minding strings and comments.
func (p *parser) skipBraces() {
	start := p.i
	level := 0
	for !p.eof() {
		switch c := p.peek(); {
		case c == '{':
			level++
		case c == '}':
			level--
			if level == 0 {
				p.i++
				return
			}
		case c == '#' || c == '<' && p.at(1) == '#':
			p.space()
			continue
		case c == '`':
			p.i++
		case p.squoteAt(p.i) > 0 || p.dquoteAt(p.i) > 0 || c == '@' && (p.squoteAt(p.i+1) > 0 || p.dquoteAt(p.i+1) > 0):
			p.primary()
			continue
		}
		p.i++
	}
	p.fail(start, "unterminated block: missing '}'")
}

func (p *parser) usingStmt() stmt {
	for !p.eof() && !isNewline(p.peek()) && p.peek() != ';' {
		p.i++
	}
	return &skipStmt{}
}

// chain parses pipelines joined by && and ||, or an assignment.
func (p *parser) chain() stmt {
	first := p.pipeline()
	if a, ok := first.(*assignStmt); ok {
		return a
	}
	pl := first.(*pipeline)
	p.space()
	if !p.has("&&") && !p.has("||") {
		return pl
	}
	c := &chainStmt{pipes: []*pipeline{pl}}
	for p.has("&&") || p.has("||") {
		p.i += 2
		p.spaceNL()
		next, ok := p.pipeline().(*pipeline)
		if !ok {
			p.fail(p.i, "assignment after && or ||")
		}
		c.pipes = append(c.pipes, next)
		p.space()
	}
	return c
}

// assignOps are the assignment operators.
var assignOps = []string{"=", "+=", "-=", "*=", "/=", "%=", "??="}

// assignOp returns the assignment operator at the current offset, if any.
func (p *parser) assignOp() string {
	if p.has("==") {
		return ""
	}
	for _, op := range assignOps {
		if p.has(op) {
			return op
		}
	}
	if n := p.dashAt(p.i); n > 1 && p.at(n) == '=' {
		return p.src[p.i : p.i+n+1]
	}
	return ""
}

// pipeline parses elements joined by |; an expression head followed by
// an assignment operator makes an assignment instead.
func (p *parser) pipeline() stmt {
	pl := &pipeline{pos: p.i}
	for {
		p.space()
		if len(pl.elems) == 0 && p.exprStart() {
			x := p.expression()
			p.space()
			if op := p.assignOp(); op != "" {
				return p.assignment(pl.pos, x, op)
			}
			e := &exprElem{pos: pl.pos, x: x}
			e.redirs = p.redirs()
			pl.elems = append(pl.elems, e)
		} else {
			pl.elems = append(pl.elems, p.command())
		}
		p.space()
		if p.peek() != '|' || p.at(1) == '|' {
			return pl
		}
		p.i++
		p.spaceNL()
	}
}

func (p *parser) assignment(pos int, target expr, op string) stmt {
	p.i += len(op)
	p.spaceNL()
	if v, ok := target.(*varExpr); ok {
		p.assigns = append(p.assigns, varKey(v.name))
	} else if c, ok := target.(*castExpr); ok {
		if v, ok := c.x.(*varExpr); ok {
			p.assigns = append(p.assigns, varKey(v.name))
		}
	}
	return &assignStmt{pos: pos, target: target, op: op, value: p.statement()}
}

// redirs parses redirections after an expression.
func (p *parser) redirs() []*redir {
	var list []*redir
	for {
		p.space()
		r := p.redirection()
		if r == nil {
			return list
		}
		list = append(list, r)
	}
}

// exprStart reports whether a pipeline starting here is an expression.
func (p *parser) exprStart() bool {
	c := p.peek()
	switch {
	case c == '$', c == '(', c == '[', c == '{', c == '!', c == ',':
		return true
	case c == '@':
		n := p.at(1)
		return n == '(' || n == '{' || p.squoteAt(p.i+1) > 0 || p.dquoteAt(p.i+1) > 0
	case p.squoteAt(p.i) > 0 || p.dquoteAt(p.i) > 0:
		return true
	case p.dashAt(p.i) > 0:
		return true
	case c == '+' && p.at(1) >= '0' && p.at(1) <= '9':
		return true
	case c == '.' && p.at(1) >= '0' && p.at(1) <= '9':
		return true
	case c >= '0' && c <= '9':
		return p.numberAhead()
	}
	return false
}

// numberAhead reports whether a whole token at the current offset is a
// number (7z.exe is a command).
func (p *parser) numberAhead() bool {
	save := p.i
	defer func() { p.i = save }()
	if _, ok := p.number(); !ok {
		return false
	}
	return p.eof() || p.tokenEnds()
}

// tokenEnds reports whether the current byte ends an argument-mode token.
func (p *parser) tokenEnds() bool {
	c := p.peek()
	return p.eof() || p.spaceAt(p.i) > 0 || strings.IndexByte("\r\n;|&(){},<>=+-*/%.", c) >= 0 || p.dashAt(p.i) > 0
}
