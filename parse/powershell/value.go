package powershell

import (
	"math"
	"strconv"
	"strings"
)

// kind is the kind of a statically known value.
type kind uint8

const (
	kUnknown kind = iota // anything: a command's output, $_
	kNull
	kStr  // s, which may hold Unknown parts
	kNum  // n
	kBool // n != 0
	kArr  // arr
	kHash // keys, vals
	kBlock
	kObj   // an object of type s (full name); enc for encodings
	kType  // a type literal, s its full name
	kBytes // raw
)

// value is the walker's idea of a PowerShell value.
type value struct {
	k     kind
	s     string
	n     float64
	arr   []value
	keys  []string // hashtable keys as written
	blk   *blockValue
	raw   []byte
	comp  bool // computed: from a variable or an expression
	extra string
}

// blockValue is a script block: code to walk (nil when unknown) and the
// carriers that made it ("[ScriptBlock]::Create").
type blockValue struct {
	sb  *scriptBlock
	via []string
}

var unknownValue = value{k: kUnknown, comp: true}

func strValue(s string) value         { return value{k: kStr, s: s} }
func numValue(n float64) value        { return value{k: kNum, n: n} }
func objValue(typ string) value       { return value{k: kObj, s: typ} }
func boolValue(b bool) value          { return value{k: kBool, n: b2f(b)} }
func computedStr(s string) value      { return value{k: kStr, s: s, comp: true} }
func arrValue(elems []value) value    { return value{k: kArr, arr: elems} }
func blockOf(b *blockValue) value     { return value{k: kBlock, blk: b} }
func (v value) known() bool           { return v.k != kUnknown && !strings.Contains(v.s, Unknown) }
func (v value) withComp(c bool) value { v.comp = v.comp || c; return v }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// formatNum writes a number as PowerShell does for integers and simple
// reals.
func formatNum(n float64) string {
	if n == math.Trunc(n) && math.Abs(n) < 1e15 {
		return strconv.FormatInt(int64(n), 10)
	}
	return strconv.FormatFloat(n, 'g', -1, 64)
}

// str converts v to a string as PowerShell does; arrays are joined with
// spaces ($OFS).
func (v value) str() string {
	switch v.k {
	case kStr:
		return v.s
	case kNull:
		return ""
	case kNum:
		return formatNum(v.n)
	case kBool:
		if v.n != 0 {
			return "True"
		}
		return "False"
	case kArr:
		parts := make([]string, len(v.arr))
		for i, e := range v.arr {
			parts[i] = e.str()
		}
		return strings.Join(parts, " ")
	case kHash:
		return "System.Collections.Hashtable"
	case kBlock:
		if v.blk.sb == nil {
			return Unknown
		}
		return v.blk.sb.text
	case kObj, kType:
		return v.s
	case kBytes:
		parts := make([]string, len(v.raw))
		for i, b := range v.raw {
			parts[i] = strconv.Itoa(int(b))
		}
		return strings.Join(parts, " ")
	}
	return Unknown
}

// elems returns v as a list: the elements of an array, else v alone.
func (v value) elems() []value {
	switch v.k {
	case kArr:
		return v.arr
	case kBytes:
		out := make([]value, len(v.raw))
		for i, b := range v.raw {
			out[i] = numValue(float64(b))
		}
		return out
	}
	return []value{v}
}

// num returns v as a number, and whether it is one.
func (v value) num() (float64, bool) {
	switch v.k {
	case kNum, kBool:
		return v.n, true
	case kStr:
		n, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
		if err != nil {
			if u, err := strconv.ParseInt(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v.s)), "0x"), 16, 64); err == nil && strings.HasPrefix(strings.ToLower(strings.TrimSpace(v.s)), "0x") {
				return float64(u), true
			}
			return 0, false
		}
		return n, true
	case kNull:
		return 0, true
	}
	return 0, false
}

// hashGet returns the value for key (ignoring case) of a hashtable.
func (v value) hashGet(key string) (value, bool) {
	for i, k := range v.keys {
		if strings.EqualFold(k, key) {
			return v.arr[i], true
		}
	}
	return value{}, false
}
