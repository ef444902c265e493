package powershell

import (
	"regexp"
	"strconv"
	"strings"
)

// maxRange bounds the arrays built by a..b.
const maxRange = 10000

// binop evaluates a binary operator on two values.
func (w *walker) binop(op string, x, y value) value {
	v := w.binop1(op, x, y)
	if v.k != kUnknown {
		v.comp = v.comp || x.comp || y.comp
	}
	return v
}

func (w *walker) binop1(op string, x, y value) value {
	switch op {
	case "+":
		return w.plus(x, y)
	case "-", "/", "%":
		a, ok1 := x.num()
		b, ok2 := y.num()
		if !ok1 || !ok2 || x.k == kUnknown || y.k == kUnknown {
			return unknownValue
		}
		switch op {
		case "-":
			return numValue(a - b)
		case "/":
			if b != 0 {
				return numValue(a / b)
			}
		}
		return unknownValue
	case "*":
		return w.times(x, y)
	case "f":
		if !x.known() && x.k != kStr {
			return unknownValue
		}
		return w.format(x.str(), y.elems())
	case "join":
		return w.join(x.elems(), y.str())
	case "replace", "creplace":
		return w.replace(x, y, op == "replace")
	case "split", "csplit":
		return w.split(x, y, op == "split")
	case "..":
		return rangeValue(x, y)
	case "??":
		if x.k == kNull {
			return y
		}
		if x.k == kUnknown {
			return unknownValue
		}
		return x
	case "as":
		if y.k == kType {
			return w.cast(y.s, x)
		}
	}
	return unknownValue
}

func (w *walker) plus(x, y value) value {
	switch x.k {
	case kStr:
		s := y.str()
		if !w.grow(len(x.s) + len(s)) {
			return unknownValue
		}
		return strValue(x.s + s)
	case kNum:
		if b, ok := y.num(); ok && y.k != kUnknown {
			return numValue(x.n + b)
		}
	case kArr, kBytes:
		elems := append(append([]value(nil), x.elems()...), y.elems()...)
		if !w.grow(8 * len(elems)) {
			return unknownValue
		}
		return arrValue(elems)
	case kHash:
		if y.k == kHash {
			h := value{k: kHash, keys: append([]string(nil), x.keys...), arr: append([]value(nil), x.arr...)}
			h.keys = append(h.keys, y.keys...)
			h.arr = append(h.arr, y.arr...)
			return h
		}
	case kNull:
		return y
	}
	return unknownValue
}

func (w *walker) times(x, y value) value {
	n, ok := y.num()
	if !ok || y.k == kUnknown || n < 0 {
		return unknownValue
	}
	switch x.k {
	case kStr:
		if !w.grow(len(x.s)*int(n)) || n > maxBytes {
			return unknownValue
		}
		return strValue(strings.Repeat(x.s, int(n)))
	case kArr:
		if !w.grow(8*len(x.arr)*int(n)) || n > maxBytes {
			return unknownValue
		}
		var out []value
		for range int(n) {
			out = append(out, x.arr...)
		}
		return arrValue(out)
	case kNum:
		return numValue(x.n * n)
	}
	return unknownValue
}

// join joins the string forms of elems with sep.
func (w *walker) join(elems []value, sep string) value {
	parts := make([]string, len(elems))
	size := 0
	for i, e := range elems {
		parts[i] = e.str()
		size += len(parts[i]) + len(sep)
	}
	if !w.grow(size) {
		return unknownValue
	}
	return strValue(strings.Join(parts, sep))
}

// format is the -f operator: .NET composite formatting, {index[,align][:format]};
// the format part is ignored.
func (w *walker) format(f string, args []value) value {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '{' && i+1 < len(f) && f[i+1] == '{', c == '}' && i+1 < len(f) && f[i+1] == '}':
			b.WriteByte(c)
			i++
		case c == '{':
			j := strings.IndexByte(f[i:], '}')
			if j < 0 {
				return unknownValue
			}
			spec := f[i+1 : i+j]
			i += j
			if k := strings.IndexByte(spec, ':'); k >= 0 {
				spec = spec[:k]
			}
			align := 0
			if k := strings.IndexByte(spec, ','); k >= 0 {
				align, _ = strconv.Atoi(strings.TrimSpace(spec[k+1:]))
				spec = spec[:k]
			}
			n, err := strconv.Atoi(strings.TrimSpace(spec))
			if err != nil || n < 0 || n >= len(args) {
				return unknownValue
			}
			s := args[n].str()
			if pad := abs(align) - len([]rune(s)); pad > 0 && pad < 1<<16 {
				if align > 0 {
					s = strings.Repeat(" ", pad) + s
				} else {
					s += strings.Repeat(" ", pad)
				}
			}
			b.WriteString(s)
		default:
			b.WriteByte(c)
		}
		if !w.grow(0) || b.Len() > maxBytes {
			return unknownValue
		}
	}
	w.grow(b.Len())
	return strValue(b.String())
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// compile compiles a .NET regular expression with Go's regexp, which
// agrees on the common syntax; what Go cannot compile is unknown.
func compile(pattern string, fold bool) *regexp.Regexp {
	if fold {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	return re
}

// replace is -replace: y is the pattern, or the pattern and the
// replacement.
func (w *walker) replace(x, y value, fold bool) value {
	args := y.elems()
	if len(args) == 0 || len(args) > 2 || !y.known() && y.k != kArr {
		return unknownValue
	}
	repl := ""
	if len(args) == 2 {
		if args[1].k == kBlock || !args[1].known() {
			return unknownValue
		}
		repl = args[1].str()
	}
	if !args[0].known() {
		return unknownValue
	}
	re := compile(args[0].str(), fold)
	if re == nil {
		return unknownValue
	}
	one := func(s value) value {
		if !s.known() {
			return unknownValue
		}
		out := replaceAll(re, s.str(), repl)
		if !w.grow(len(out)) {
			return unknownValue
		}
		return strValue(out)
	}
	if x.k == kArr {
		var out []value
		for _, e := range x.arr {
			out = append(out, one(e))
		}
		return arrValue(out)
	}
	return one(x)
}

// replaceAll replaces the matches of re in s with repl, read as a .NET
// substitution: $1, ${name}, $& and $$.
func replaceAll(re *regexp.Regexp, s, repl string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		last = m[1]
		group := func(i int) string {
			if i < 0 || 2*i+1 >= len(m) || m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		for i := 0; i < len(repl); i++ {
			c := repl[i]
			if c != '$' || i+1 >= len(repl) {
				b.WriteByte(c)
				continue
			}
			switch n := repl[i+1]; {
			case n == '$':
				b.WriteByte('$')
				i++
			case n == '&':
				b.WriteString(group(0))
				i++
			case n >= '0' && n <= '9':
				j := i + 1
				for j < len(repl) && repl[j] >= '0' && repl[j] <= '9' {
					j++
				}
				k, _ := strconv.Atoi(repl[i+1 : j])
				b.WriteString(group(k))
				i = j - 1
			case n == '{':
				j := strings.IndexByte(repl[i:], '}')
				if j < 0 {
					b.WriteByte(c)
					continue
				}
				name := repl[i+2 : i+j]
				if k, err := strconv.Atoi(name); err == nil {
					b.WriteString(group(k))
				} else {
					b.WriteString(group(re.SubexpIndex(name)))
				}
				i += j
			default:
				b.WriteByte(c)
			}
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// split is -split: y is the pattern, or the pattern and a maximum count.
func (w *walker) split(x, y value, fold bool) value {
	args := y.elems()
	if len(args) == 0 || !args[0].known() || !x.known() {
		return unknownValue
	}
	max := -1
	if len(args) > 1 {
		n, ok := args[1].num()
		if !ok {
			return unknownValue
		}
		if n > 0 {
			max = int(n)
		}
	}
	re := compile(args[0].str(), fold)
	if re == nil {
		return unknownValue
	}
	var out []value
	for _, e := range x.elems() {
		for _, s := range re.Split(e.str(), max) {
			out = append(out, strValue(s))
		}
	}
	return arrValue(out)
}

// rangeValue is a..b, for numbers and, in PowerShell 7, characters.
func rangeValue(x, y value) value {
	a, ok1 := x.num()
	b, ok2 := y.num()
	if !ok1 || !ok2 || x.k == kUnknown || y.k == kUnknown {
		return unknownValue
	}
	from, to := int(a), int(b)
	if abs(to-from) >= maxRange {
		return unknownValue
	}
	step := 1
	if to < from {
		step = -1
	}
	var out []value
	for i := from; ; i += step {
		out = append(out, numValue(float64(i)))
		if i == to {
			break
		}
	}
	return arrValue(out)
}
