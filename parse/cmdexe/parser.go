package cmdexe

import (
	"sort"
	"strconv"
	"strings"
)

// The syntax tree of one cmd.exe line (a batch file's block included),
// after percent expansion. Offsets are into the parser's buffer.
type (
	node interface{ offset() int }

	// list is commands joined by &, &&, || or newlines in a block.
	list struct {
		at    int
		items [][]node // pipelines; the elements of each joined by |
	}

	// simple is one command: its text with carets removed, quotes kept
	// and redirections taken out.
	simple struct {
		at     int
		text   string
		redirs []redir
		taint  bool // the line's % expansion put unknown text in it
	}

	redir struct {
		fd     int // -1 for the operator's default
		op     string
		target string // raw, quotes kept; "&N" for a descriptor
	}

	group struct {
		at     int
		body   *list
		redirs []redir
	}

	ifNode struct {
		at        int
		then, els node // els may be nil
	}

	forNode struct {
		at     int
		mode   byte   // 0, 'd', 'r', 'l' or 'f'
		root   string // for /r's directory, raw
		opts   string // for /f's options, raw
		letter byte
		set    string // the text inside ( ), carets removed
		body   node
	}
)

func (n *list) offset() int    { return n.at }
func (n *simple) offset() int  { return n.at }
func (n *group) offset() int   { return n.at }
func (n *ifNode) offset() int  { return n.at }
func (n *forNode) offset() int { return n.at }

// A syntaxError is a problem found while parsing, at an offset.
type syntaxError struct {
	at   int
	kind ProblemKind
	msg  string
}

// lineTable maps buffer offsets to "line:col".
type lineTable struct {
	starts []int // offsets where lines start, increasing
	lines  []int // their line numbers
}

func (t *lineTable) add(off, line int) {
	t.starts = append(t.starts, off)
	t.lines = append(t.lines, line)
}

func (t *lineTable) pos(off int) string {
	i := sort.SearchInts(t.starts, off+1) - 1
	if i < 0 {
		i = 0
	}
	if len(t.starts) == 0 {
		return "1:" + strconv.Itoa(off+1)
	}
	return strconv.Itoa(t.lines[i]) + ":" + strconv.Itoa(off-t.starts[i]+1)
}

// parser reads one line, pulling more lines from a batch file while a
// block or a caret continuation is open.
type parser struct {
	buf    []byte
	i      int
	more   func() (text string, line int, taint bool, ok bool)
	lines  lineTable
	taint  bool
	nest   int // parentheses, if and for open
	groups int // parentheses open
	fatal  *syntaxError
	probs  []syntaxError
}

func newParser(text string, line int, taint bool) *parser {
	p := &parser{buf: []byte(text), taint: taint}
	p.lines.add(0, line)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			line++
			p.lines.add(i+1, line)
		}
	}
	return p
}

// parse reads the whole buffer, and more lines as needed.
func (p *parser) parse() *list {
	return p.list(false)
}

func (p *parser) fail(at int, kind ProblemKind, msg string) {
	if p.fatal == nil {
		p.fatal = &syntaxError{at, kind, msg}
	}
}

func (p *parser) warn(at int, msg string) {
	p.probs = append(p.probs, syntaxError{at, ProblemSyntax, msg})
}

func (p *parser) peek() (byte, bool) {
	if p.fatal != nil || p.i >= len(p.buf) {
		return 0, false
	}
	return p.buf[p.i], true
}

// pull appends the next line of a batch file, after a newline when nl.
func (p *parser) pull(nl bool) bool {
	if p.more == nil {
		return false
	}
	text, line, taint, ok := p.more()
	if !ok {
		return false
	}
	if nl {
		p.buf = append(p.buf, '\n')
	}
	p.lines.add(len(p.buf), line)
	p.buf = append(p.buf, text...)
	p.taint = p.taint || taint
	return true
}

func (p *parser) skipBlanks() {
	for p.i < len(p.buf) && (p.buf[p.i] == ' ' || p.buf[p.i] == '\t') {
		p.i++
	}
}

func (p *parser) skipLine() {
	for p.i < len(p.buf) && p.buf[p.i] != '\n' {
		p.i++
	}
}

// list reads pipelines joined by operators, up to the end, a ) closing a
// block, or (when line) a newline.
func (p *parser) list(line bool) *list {
	l := &list{at: p.i}
	for {
		p.skipBlanks()
		c, ok := p.peek()
		switch {
		case !ok:
			if p.fatal == nil && !line && p.groups > 0 && p.pull(true) {
				continue
			}
			return l
		case c == '\n':
			if line {
				return l
			}
			p.i++
			continue
		case c == ')' && p.groups > 0:
			return l
		case c == '&' || c == '|':
			p.fail(p.i, ProblemSyntax, "unexpected "+strconv.Quote(string(c)))
			return l
		}
		if pl := p.pipeline(); len(pl) > 0 {
			l.items = append(l.items, pl)
		}
		p.operator()
	}
}

// operator skips the & && || after a pipeline, if any.
func (p *parser) operator() {
	p.skipBlanks()
	c, ok := p.peek()
	if !ok || c != '&' && c != '|' {
		return
	}
	p.i++
	if p.i < len(p.buf) && p.buf[p.i] == c {
		p.i++
	}
}

func (p *parser) pipeline() []node {
	var pl []node
	for {
		if n := p.command(); n != nil && !isEmpty(n) {
			pl = append(pl, n)
		}
		p.skipBlanks()
		c, ok := p.peek()
		if !ok || c != '|' || p.i+1 < len(p.buf) && p.buf[p.i+1] == '|' {
			return pl
		}
		p.i++
		p.skipBlanks()
		if c, ok := p.peek(); !ok || c == '|' || c == '&' || c == '\n' {
			p.fail(p.i, ProblemSyntax, "| with nothing after it")
			return pl
		}
	}
}

// command reads one command: a block, if, for, a comment or a simple
// command. It returns nil for a comment or a label.
func (p *parser) command() node {
	for p.i < len(p.buf) && strings.IndexByte(" \t@;,=", p.buf[p.i]) >= 0 {
		p.i++
	}
	c, ok := p.peek()
	if !ok {
		return nil
	}
	switch c {
	case '(':
		return p.group()
	case ':':
		p.skipLine()
		return nil
	}
	switch strings.ToLower(p.keyword()) {
	case "rem":
		p.skipLine()
		return nil
	case "if":
		return p.ifCmd()
	case "for":
		return p.forCmd()
	}
	return p.simple()
}

// keyword returns the letters at the cursor when a blank, a newline or
// the end follows them (rem also allows other delimiters).
func (p *parser) keyword() string {
	j := p.i
	for j < len(p.buf) && isLetter(p.buf[j]) {
		j++
	}
	w := string(p.buf[p.i:j])
	if j == len(p.buf) || strings.IndexByte(" \t\n", p.buf[j]) >= 0 {
		return w
	}
	if strings.EqualFold(w, "rem") && strings.IndexByte(".:/;,=(", p.buf[j]) >= 0 {
		return w
	}
	return ""
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func (p *parser) enter(at int) bool {
	p.nest++
	if p.nest > maxNest {
		p.fail(at, ProblemDepth, "parentheses, if and for nested more than "+strconv.Itoa(maxNest)+" deep")
		return false
	}
	return true
}

func (p *parser) group() node {
	g := &group{at: p.i}
	if !p.enter(p.i) {
		return nil
	}
	defer func() { p.nest-- }()
	p.i++
	p.groups++
	g.body = p.list(false)
	p.groups--
	if c, ok := p.peek(); !ok || c != ')' {
		p.fail(g.at, ProblemSyntax, "( without )")
		return g
	}
	p.i++
	for {
		p.skipBlanks()
		c, ok := p.peek()
		if !ok || c != '<' && c != '>' && !(isDigit(c) && p.i+1 < len(p.buf) && (p.buf[p.i+1] == '<' || p.buf[p.i+1] == '>')) {
			return g
		}
		fd := -1
		if isDigit(c) {
			fd = int(c - '0')
			p.i++
		}
		if r, ok := p.redir(fd); ok {
			g.redirs = append(g.redirs, r)
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// body reads the command of if, else or for do: a block, or the rest of
// the line.
func (p *parser) body(at int, what string) node {
	p.skipBlanks()
	c, ok := p.peek()
	if !ok || c == '\n' || c == ')' && p.groups > 0 {
		p.fail(at, ProblemSyntax, what+" without a command")
		return nil
	}
	if c == '(' {
		return p.group()
	}
	return p.list(true)
}

// simple reads a command up to an operator, a newline or a ) closing a
// block.
func (p *parser) simple() node {
	s := &simple{at: p.i, taint: p.taint}
	var b []byte
	for {
		c, ok := p.peek()
		if !ok {
			break
		}
		if c == '\n' || c == '&' || c == '|' || c == ')' && p.groups > 0 {
			break
		}
		switch c {
		case '"':
			b = p.quoted(b)
		case '^':
			b = p.caret(b)
		case '<', '>':
			fd := -1
			if n := len(b); n > 0 && isDigit(b[n-1]) && (n == 1 || b[n-2] == ' ' || b[n-2] == '\t') {
				fd = int(b[n-1] - '0')
				b = b[:n-1]
			}
			if r, ok := p.redir(fd); ok {
				s.redirs = append(s.redirs, r)
			}
		default:
			b = append(b, c)
			p.i++
		}
	}
	s.text = string(b)
	s.taint = s.taint || p.taint
	return s
}

// quoted copies a quoted part, quotes included; an unterminated quote
// runs to the end of the line, as in cmd.exe, and is reported.
func (p *parser) quoted(b []byte) []byte {
	at := p.i
	b = append(b, '"')
	p.i++
	for p.i < len(p.buf) {
		c := p.buf[p.i]
		if c == '\n' {
			break
		}
		b = append(b, c)
		p.i++
		if c == '"' {
			return b
		}
	}
	p.warn(at, "unterminated quote")
	return b
}

// caret copies the character a caret escapes. A caret at the end of a
// line joins the next line.
func (p *parser) caret(b []byte) []byte {
	p.i++
	if !p.fill() {
		return b
	}
	if p.buf[p.i] == '\n' {
		p.i++
		if !p.fill() {
			return b
		}
	}
	b = append(b, p.buf[p.i])
	p.i++
	return b
}

// fill makes sure a byte is at the cursor, joining the next lines of a
// batch file if needed.
func (p *parser) fill() bool {
	for p.i >= len(p.buf) {
		if !p.pull(false) {
			return false
		}
	}
	return true
}

// redir reads a redirection at < or >, after its descriptor if any.
func (p *parser) redir(fd int) (redir, bool) {
	at := p.i
	r := redir{fd: fd, op: string(p.buf[p.i])}
	p.i++
	if r.op == ">" && p.i < len(p.buf) && p.buf[p.i] == '>' {
		r.op = ">>"
		p.i++
	}
	dup := p.i < len(p.buf) && p.buf[p.i] == '&'
	if dup {
		p.i++
	}
	p.skipBlanks()
	t := p.word()
	if t == "" {
		p.fail(at, ProblemSyntax, r.op+" without a target")
		return r, false
	}
	if dup {
		t = "&" + t
	}
	r.target = t
	return r, true
}

// word reads a word, quotes kept and carets removed, up to a blank or an
// operator.
func (p *parser) word() string {
	return p.wordUntil(func(c byte) bool {
		return strings.IndexByte(" \t\n&|<>", c) >= 0 || c == ')' && p.groups > 0
	})
}

// wordUntil reads a word, quotes kept and carets removed, up to the end
// or a byte outside quotes at which end says to stop.
func (p *parser) wordUntil(end func(c byte) bool) string {
	var b []byte
	for {
		c, ok := p.peek()
		if !ok || end(c) {
			return string(b)
		}
		switch c {
		case '"':
			b = p.quoted(b)
		case '^':
			b = p.caret(b)
		default:
			b = append(b, c)
			p.i++
		}
	}
}

// isEmpty reports whether n is a simple command with no text and no
// redirection: nothing to run.
func isEmpty(n node) bool {
	s, ok := n.(*simple)
	return ok && strings.TrimSpace(s.text) == "" && len(s.redirs) == 0
}
