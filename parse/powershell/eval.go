package powershell

import (
	"math"
	"strings"
	"unicode/utf8"
)

// eval evaluates an expression as far as it can be known statically,
// walking the commands inside it.
func (w *walker) eval(x expr) value {
	w.step()
	if w.stopped {
		return unknownValue
	}
	switch x := x.(type) {
	case *strLit:
		return strValue(x.s)
	case *numLit:
		return numValue(x.n)
	case *expandStr:
		return w.expand(x, false)
	case *varExpr:
		return w.variable(x.name)
	case *subExpr:
		return w.subExpr(x)
	case *hashLit:
		h := value{k: kHash, comp: true}
		for i, k := range x.keys {
			h.keys = append(h.keys, w.eval(k).str())
			h.arr = append(h.arr, w.stmt(x.vals[i]))
		}
		return h
	case *blockLit:
		return blockOf(&blockValue{sb: x.sb})
	case *typeLit:
		return value{k: kType, s: fullType(x.name)}
	case *castExpr:
		return w.cast(x.typ, w.eval(x.x)).withComp(true)
	case *memberExpr:
		return w.member(x)
	case *indexExpr:
		return w.index(w.eval(x.x), w.eval(x.idx))
	case *unaryExpr:
		return w.unary(x)
	case *binExpr:
		if x.op == "?:" {
			w.eval(x.x)
			for _, e := range x.y.(*arrayLit).elems {
				w.eval(e)
			}
			return unknownValue
		}
		return w.binop(x.op, w.eval(x.x), w.eval(x.y))
	case *arrayLit:
		v := arrValue(nil)
		for _, e := range x.elems {
			ev := w.eval(e)
			v.arr = append(v.arr, ev)
			v.comp = v.comp || ev.comp
		}
		return v
	}
	return unknownValue
}

// expand evaluates a double-quoted string or a bareword. tilde expands
// a leading ~ to the home directory, as the providers do for cmdlets.
func (w *walker) expand(x *expandStr, tilde bool) value {
	var b strings.Builder
	comp := false
	for i, part := range x.parts {
		if lit, ok := part.(*strLit); ok {
			s := lit.s
			if i == 0 && tilde && x.bare && (s == "~" || strings.HasPrefix(s, `~\`) || strings.HasPrefix(s, "~/")) {
				b.WriteString(w.known(w.cfg.Home).str())
				s = s[1:]
			}
			b.WriteString(s)
			continue
		}
		comp = true
		b.WriteString(w.eval(part).str())
		if !w.grow(0) || b.Len() > maxBytes {
			return unknownValue
		}
	}
	return value{k: kStr, s: b.String(), comp: comp}
}

// subExpr walks $( ), @( ) and ( ) and returns their output.
func (w *walker) subExpr(x *subExpr) value {
	var out []value
	for _, s := range x.stmts {
		v := w.stmt(s)
		if _, ok := s.(*assignStmt); ok && x.kind != '(' {
			continue
		}
		out = append(out, v)
	}
	switch {
	case x.kind == '(' && len(out) == 1:
		return out[0].withComp(true)
	case len(out) == 1 && x.kind == '$':
		return out[0].withComp(true)
	case len(out) == 1 && out[0].k == kArr:
		return out[0].withComp(true)
	case len(out) == 0:
		if x.kind == '@' {
			return value{k: kArr, comp: true}
		}
		return value{k: kNull, comp: true}
	}
	var flat []value
	for _, v := range out {
		flat = append(flat, v.elems()...)
	}
	return value{k: kArr, arr: flat, comp: true}
}

// unary evaluates a unary operator.
func (w *walker) unary(x *unaryExpr) value {
	v := w.eval(x.x)
	switch x.op {
	case "join":
		return w.binop("join", v, strValue(""))
	case "split":
		if !v.known() {
			return unknownValue
		}
		var out []value
		for _, f := range strings.Fields(v.str()) {
			out = append(out, strValue(f))
		}
		return value{k: kArr, arr: out, comp: true}
	case "-":
		if n, ok := v.num(); ok {
			return numValue(-n).withComp(v.comp)
		}
	case "+":
		if n, ok := v.num(); ok {
			return numValue(n).withComp(v.comp)
		}
	case "++", "--", "post":
		if name := baseVar(x.x); name != "" {
			w.setVar(name, unknownValue)
		}
	}
	return unknownValue
}

// index evaluates x[idx].
func (w *walker) index(x, idx value) value {
	comp := x.comp || idx.comp
	switch x.k {
	case kHash:
		if v, ok := x.hashGet(idx.str()); ok && idx.known() {
			return v.withComp(comp)
		}
		return unknownValue
	case kStr, kArr, kBytes:
		if x.k == kStr && !x.known() {
			return unknownValue
		}
		elems := x.elems()
		if x.k == kStr {
			elems = nil
			for _, r := range x.s {
				elems = append(elems, strValue(string(r)))
			}
		}
		pick := func(v value) (value, bool) {
			n, ok := v.num()
			if !ok {
				return value{}, false
			}
			i := int(n)
			if i < 0 {
				i += len(elems)
			}
			if i < 0 || i >= len(elems) {
				return value{k: kNull}, true
			}
			return elems[i], true
		}
		if idx.k == kArr {
			var out []value
			for _, e := range idx.arr {
				v, ok := pick(e)
				if !ok {
					return unknownValue
				}
				if v.k != kNull {
					out = append(out, v)
				}
			}
			return value{k: kArr, arr: out, comp: comp}
		}
		if v, ok := pick(idx); ok {
			return v.withComp(comp)
		}
	}
	return unknownValue
}

// cast converts v to the type named typ.
func (w *walker) cast(typ string, v value) value {
	t := strings.TrimPrefix(strings.ToLower(strings.ReplaceAll(typ, " ", "")), "system.")
	switch t {
	case "string":
		if v.k == kUnknown {
			return unknownValue
		}
		return value{k: kStr, s: v.str(), comp: v.comp}
	case "char":
		return toChar(v)
	case "char[]":
		if v.k == kStr {
			if !v.known() {
				return unknownValue
			}
			var out []value
			for _, r := range v.s {
				out = append(out, strValue(string(r)))
			}
			return value{k: kArr, arr: out, comp: v.comp}
		}
		var out []value
		for _, e := range v.elems() {
			c := toChar(e)
			if c.k == kUnknown {
				return unknownValue
			}
			out = append(out, c)
		}
		return value{k: kArr, arr: out, comp: v.comp}
	case "byte[]":
		var raw []byte
		for _, e := range v.elems() {
			n, ok := e.num()
			if !ok || n < 0 || n > 255 {
				return unknownValue
			}
			raw = append(raw, byte(n))
		}
		return value{k: kBytes, raw: raw, comp: v.comp}
	case "int", "int32", "int64", "long", "byte", "int16", "short", "uint32", "uint64", "uint16", "sbyte":
		if n, ok := v.num(); ok {
			return numValue(math.RoundToEven(n)).withComp(v.comp)
		}
		return unknownValue
	case "double", "single", "float", "decimal":
		if n, ok := v.num(); ok {
			return numValue(n).withComp(v.comp)
		}
		return unknownValue
	case "bool", "boolean", "switch":
		return unknownValue
	case "scriptblock", "management.automation.scriptblock":
		if v.k == kBlock {
			return v
		}
		return unknownValue
	}
	return v
}

// toChar converts a number or a one-character string to a character.
func toChar(v value) value {
	if v.k == kStr && utf8.RuneCountInString(v.s) == 1 && v.known() {
		return v
	}
	if n, ok := v.num(); ok && v.k != kStr && n >= 0 && n <= 0xffff {
		return value{k: kStr, s: string(rune(n)), comp: v.comp}
	}
	return unknownValue
}
