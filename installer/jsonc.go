package installer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// This file is a small editor for JSON with comments and trailing commas
// (VS Code's, Cursor's and Zed's settings; strict JSON is a subset). It
// parses a document into values with their byte offsets and changes a
// document by splicing: every byte outside the value it inserts, replaces
// or removes stays as it was, comments and layout included.

type kind int

const (
	kObject kind = iota
	kArray
	kScalar
)

// A node is one value of a document: src[start:end].
type node struct {
	kind       kind
	start, end int
	members    []member // objects
	elems      []*node  // arrays
	commas     []int    // offset of the comma after each member or element, -1 if none
}

type member struct {
	key      string
	keyStart int
	value    *node
}

// A jsonError is a document that does not parse, with where.
type jsonError struct {
	line, col int
	msg       string
}

func (e *jsonError) Error() string { return fmt.Sprintf("line %d column %d: %s", e.line, e.col, e.msg) }

type parser struct {
	src    []byte
	pos    int
	depth  int
	strict bool // JSON only: a comment or a trailing comma is an error
}

// parseJSONC parses src. The root is nil for a document with nothing but
// white space and comments.
func parseJSONC(src []byte) (*node, error) { return parseDoc(src, false) }

// parseDoc parses src as JSON with comments, or, when strict, as JSON
// alone: the error of a comment or a trailing comma says where it is.
func parseDoc(src []byte, strict bool) (*node, error) {
	p := &parser{src: src, strict: strict}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return nil, nil
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %q after the document", src[p.pos])
	}
	return n, nil
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for _, c := range p.src[:min(p.pos, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &jsonError{line, col, fmt.Sprintf(format, args...)}
}

// skip passes white space and comments.
func (p *parser) skip() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.pos++
		case c == '/' && p.strict && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '/' || p.src[p.pos+1] == '*'):
			return p.errorf("a comment, which strict JSON has not")
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorf("unterminated comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of the document")
	}
	if p.depth > 500 {
		return nil, p.errorf("nested too deeply")
	}
	switch c := p.src[p.pos]; c {
	case '{', '[':
		p.depth++
		defer func() { p.depth-- }()
		return p.container(c)
	case '"':
		start := p.pos
		if err := p.str(); err != nil {
			return nil, err
		}
		return &node{kind: kScalar, start: start, end: p.pos}, nil
	default:
		start := p.pos
		for p.pos < len(p.src) && strings.IndexByte("+-.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", p.src[p.pos]) >= 0 {
			p.pos++
		}
		tok := p.src[start:p.pos]
		if len(tok) == 0 || !json.Valid(tok) {
			p.pos = start
			return nil, p.errorf("unexpected %q", string(p.src[start:min(start+12, len(p.src))]))
		}
		return &node{kind: kScalar, start: start, end: p.pos}, nil
	}
}

// str passes a string, checking its escapes.
func (p *parser) str() error {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
		case '"':
			p.pos++
			if !json.Valid(p.src[start:p.pos]) {
				p.pos = start
				return p.errorf("bad string")
			}
			return nil
		case '\n':
			return p.errorf("newline in a string")
		default:
			p.pos++
		}
	}
	p.pos = start
	return p.errorf("unterminated string")
}

func (p *parser) container(open byte) (*node, error) {
	n := &node{kind: kArray, start: p.pos}
	closing := byte(']')
	if open == '{' {
		n.kind, closing = kObject, '}'
	}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated %c", open)
		}
		if p.src[p.pos] == closing {
			if p.strict && len(n.commas) > 0 && n.commas[len(n.commas)-1] >= 0 {
				p.pos = n.commas[len(n.commas)-1]
				return nil, p.errorf("a comma after the last %s, which strict JSON has not", map[byte]string{'}': "member", ']': "element"}[closing])
			}
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if len(n.commas) > 0 && n.commas[len(n.commas)-1] < 0 {
			return nil, p.errorf("missing comma")
		}
		if open == '{' {
			if p.src[p.pos] != '"' {
				return nil, p.errorf("expected a key in quotes")
			}
			ks := p.pos
			if err := p.str(); err != nil {
				return nil, err
			}
			var key string
			json.Unmarshal(p.src[ks:p.pos], &key)
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return nil, p.errorf("expected ':'")
			}
			p.pos++
			if err := p.skip(); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: key, keyStart: ks, value: v})
		} else {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		comma := -1
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			comma = p.pos
			p.pos++
		}
		n.commas = append(n.commas, comma)
	}
}

// plainJSON returns JSONC text as JSON: comments and trailing commas
// dropped.
func plainJSON(src []byte) []byte {
	var out []byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, src[i:min(j+1, len(src))]...)
			i = j
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += 2 + end + 1
			out = append(out, ' ')
		case c == ',':
			p := &parser{src: src, pos: i + 1}
			if p.skip() == nil && p.pos < len(src) && (src[p.pos] == '}' || src[p.pos] == ']') {
				continue // a trailing comma
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// decoded is the value of n as encoding/json would decode it.
func decoded(src []byte, n *node) any {
	var v any
	json.Unmarshal(plainJSON(src[n.start:n.end]), &v)
	return v
}

// sameValue reports whether n holds the value v.
func sameValue(src []byte, n *node, v any) bool {
	var want any
	json.Unmarshal([]byte(render(v, "", "", "")), &want)
	return reflect.DeepEqual(decoded(src, n), want)
}

// An omap is a JSON object with its keys in order.
type omap []kv

type kv struct {
	key   string
	value any
}

// render writes v as JSON: indented by unit from indent with newline nl,
// or on one line when nl is "".
func render(v any, indent, unit, nl string) string {
	var b strings.Builder
	renderTo(&b, v, indent, unit, nl)
	return b.String()
}

func renderTo(b *strings.Builder, v any, indent, unit, nl string) {
	sep := ", "
	if nl != "" {
		sep = ","
	}
	inner := indent + unit
	switch v := v.(type) {
	case omap:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{" + nl)
		for i, e := range v {
			if i > 0 {
				b.WriteString(sep + nl)
			}
			b.WriteString(inner + quote(e.key) + ": ")
			renderTo(b, e.value, inner, unit, nl)
		}
		b.WriteString(nl + indent + "}")
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := make(omap, len(keys))
		for i, k := range keys {
			m[i] = kv{k, v[k]}
		}
		renderTo(b, m, indent, unit, nl)
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[" + nl)
		for i, e := range v {
			if i > 0 {
				b.WriteString(sep + nl)
			}
			b.WriteString(inner)
			renderTo(b, e, inner, unit, nl)
		}
		b.WriteString(nl + indent + "]")
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
		b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
}

func quote(s string) string { return render(s, "", "", "") }

// A style is how a document lays itself out, for the text put into it.
type style struct {
	nl, unit string
}

// styleOf finds the newline and the indentation unit src uses (CRLF or
// LF; the leading white space of the first indented line), defaulting to
// LF and two spaces.
func styleOf(src []byte) style {
	s := style{nl: "\n", unit: "  "}
	if bytes.Contains(src, []byte("\r\n")) {
		s.nl = "\r\n"
	}
	for _, line := range bytes.Split(src, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if n := len(line) - len(t); n > 0 && len(t) > 0 && (t[0] == '"' || t[0] == '{' || t[0] == '[') {
			s.unit = string(line[:n])
			break
		}
	}
	return s
}

// indentAt is the leading white space of the line holding offset i.
func indentAt(src []byte, i int) string {
	ls := bytes.LastIndexByte(src[:i], '\n') + 1
	j := ls
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[ls:j])
}

// onOwnLine reports whether only white space precedes offset i on its line.
func onOwnLine(src []byte, i int) bool {
	ls := bytes.LastIndexByte(src[:i], '\n') + 1
	return len(bytes.TrimLeft(src[ls:i], " \t")) == 0
}

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

// find returns the member of object n named key, or -1.
func (n *node) find(key string) int {
	for i := len(n.members) - 1; i >= 0; i-- { // the last one wins, as in the editors
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

// walk follows path from root through objects. It returns the deepest
// object reached, how many elements of path were found (all but the last
// lead to objects), and the node of the last one found.
func walk(root *node, path []string) (parent *node, found int, last *node, err error) {
	parent = root
	for i, key := range path {
		j := parent.find(key)
		if j < 0 {
			return parent, i, nil, nil
		}
		v := parent.members[j].value
		if i == len(path)-1 {
			return parent, i + 1, v, nil
		}
		if v.kind != kObject {
			return nil, i, nil, fmt.Errorf("%s is not an object", strings.Join(path[:i+1], " → "))
		}
		parent = v
	}
	return parent, len(path), root, nil
}

// insertMember adds "key": v as the last member of object obj.
func insertMember(src []byte, obj *node, key string, v any, st style) []byte {
	if obj == nil { // an empty document
		text := "{" + st.nl + st.unit + quote(key) + ": " + render(v, st.unit, st.unit, st.nl) + st.nl + "}" + st.nl
		if len(bytes.TrimSpace(src)) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			text = st.nl + text
		}
		return append(append([]byte{}, src...), text...)
	}
	if len(obj.members) == 0 {
		outer := indentAt(src, obj.start)
		text := st.nl + outer + st.unit + quote(key) + ": " + render(v, outer+st.unit, st.unit, st.nl) + st.nl + outer
		inside := src[obj.start+1 : obj.end-1]
		if len(bytes.TrimSpace(inside)) == 0 {
			return splice(src, obj.start+1, obj.end-1, text)
		}
		return splice(src, obj.start+1, obj.start+1, text)
	}
	first := obj.members[0]
	if !onOwnLine(src, first.keyStart) { // {"a": 1, "b": 2} on one line
		lastV := obj.members[len(obj.members)-1].value
		return splice(src, lastV.end, lastV.end, ", "+quote(key)+": "+render(v, "", "", ""))
	}
	ind := indentAt(src, first.keyStart)
	text := quote(key) + ": " + render(v, ind, st.unit, st.nl)
	i := len(obj.members) - 1
	return insertAfter(src, obj.members[i].value.end, obj.commas[i], ind, text, st)
}

// insertAfter puts text on a line of its own after the item ending at
// end (comma: the comma after it, or -1), indented by ind.
func insertAfter(src []byte, end, comma int, ind, text string, st style) []byte {
	if comma >= 0 { // a trailing comma: keep one after the new last item
		at := lineRest(src, comma+1)
		return splice(src, at, at, st.nl+ind+text+",")
	}
	at := lineRest(src, end)
	out := splice(src, at, at, st.nl+ind+text)
	return splice(out, end, end, ",")
}

// lineRest returns the offset after the white space and a line comment
// that follow i on its line, so that a comment stays with its item.
func lineRest(src []byte, i int) int {
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	if j+1 < len(src) && src[j] == '/' && src[j+1] == '/' {
		for j < len(src) && src[j] != '\n' && src[j] != '\r' {
			j++
		}
		return j
	}
	return i
}

// appendElem adds v as the last element of array arr.
func appendElem(src []byte, arr *node, v any, st style) []byte {
	if len(arr.elems) == 0 {
		outer := indentAt(src, arr.start)
		text := st.nl + outer + st.unit + render(v, outer+st.unit, st.unit, st.nl) + st.nl + outer
		if len(bytes.TrimSpace(src[arr.start+1:arr.end-1])) == 0 {
			return splice(src, arr.start+1, arr.end-1, text)
		}
		return splice(src, arr.start+1, arr.start+1, text)
	}
	first := arr.elems[0]
	if !onOwnLine(src, first.start) {
		lastE := arr.elems[len(arr.elems)-1]
		return splice(src, lastE.end, lastE.end, ", "+render(v, "", "", ""))
	}
	ind := indentAt(src, first.start)
	i := len(arr.elems) - 1
	return insertAfter(src, arr.elems[i].end, arr.commas[i], ind, render(v, ind, st.unit, st.nl), st)
}

// removeItem removes item i of container n (a member or an element) with
// the comma that separated it. An item on lines of its own goes with its
// lines (and a line comment after it); comments on other lines stay.
func removeItem(src []byte, n *node, i int) []byte {
	count, startOf := len(n.elems), func(k int) int { return n.elems[k].start }
	endOf := func(k int) int { return n.elems[k].end }
	if n.kind == kObject {
		count, startOf = len(n.members), func(k int) int { return n.members[k].keyStart }
		endOf = func(k int) int { return n.members[k].value.end }
	}
	start, stop, comma := startOf(i), endOf(i), n.commas[i]
	if comma >= 0 {
		stop = comma + 1
	}
	if rest := lineRest(src, stop); onOwnLine(src, start) && lineBlank(src, rest) {
		from := bytes.LastIndexByte(src[:start], '\n') + 1
		to := len(src)
		if nl := bytes.IndexByte(src[rest:], '\n'); nl >= 0 {
			to = rest + nl + 1
		}
		out := splice(src, from, to, "")
		if comma < 0 && i > 0 { // it was the last: the one before it keeps no comma
			out = splice(out, n.commas[i-1], n.commas[i-1]+1, "")
		}
		return out
	}
	switch {
	case count == 1:
		return splice(src, start, stop, "")
	case i == 0:
		return splice(src, start, startOf(1), "")
	default: // from the comma before it to its end
		return splice(src, n.commas[i-1], endOf(i), "")
	}
}

// lineBlank reports whether only white space follows offset i on its line.
func lineBlank(src []byte, i int) bool {
	for ; i < len(src) && src[i] != '\n'; i++ {
		if src[i] != ' ' && src[i] != '\t' && src[i] != '\r' {
			return false
		}
	}
	return true
}
