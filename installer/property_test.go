package installer

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// randomDoc writes a random JSONC object in a random layout: indentation,
// line ends, comments, trailing commas, one-line containers.
func randomDoc(r *rand.Rand) string {
	nl := []string{"\n", "\r\n"}[r.Intn(2)]
	unit := []string{"  ", "    ", "\t", "   "}[r.Intn(4)]
	var obj func(depth int, indent string) string
	scalar := func() string {
		return []string{`1`, `-2.5e3`, `true`, `null`, `"x"`, `"ü ✓ \" \\ //"`, `""`}[r.Intn(7)]
	}
	comment := func() string {
		switch r.Intn(6) {
		case 0:
			return " // note, with ] and }"
		case 1:
			return " /* c */"
		}
		return ""
	}
	var value func(depth int, indent string) string
	value = func(depth int, indent string) string {
		if depth > 2 || r.Intn(3) > 0 {
			return scalar()
		}
		if r.Intn(2) == 0 {
			return obj(depth+1, indent)
		}
		n := r.Intn(3)
		var items []string
		for i := 0; i < n; i++ {
			items = append(items, value(depth+1, indent+unit))
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	obj = func(depth int, indent string) string {
		n := r.Intn(4)
		if depth > 0 && r.Intn(3) == 0 { // one line
			var items []string
			for i := 0; i < n; i++ {
				items = append(items, fmt.Sprintf("%q: %s", fmt.Sprint("k", i), scalar()))
			}
			return "{" + strings.Join(items, ", ") + "}"
		}
		if n == 0 {
			return []string{"{}", "{ }", "{" + nl + indent + "}"}[r.Intn(3)]
		}
		var b strings.Builder
		b.WriteString("{" + nl)
		for i := 0; i < n; i++ {
			if r.Intn(5) == 0 {
				b.WriteString(indent + unit + "// about k" + fmt.Sprint(i) + nl)
			}
			b.WriteString(fmt.Sprintf("%s%q: %s", indent+unit, fmt.Sprint("k", i), value(depth, indent+unit)))
			if i < n-1 || r.Intn(3) == 0 {
				b.WriteString(",")
			}
			b.WriteString(comment() + nl)
		}
		b.WriteString(indent + "}")
		return b.String()
	}
	doc := obj(0, "")
	if r.Intn(2) == 0 {
		doc += nl
	}
	if r.Intn(4) == 0 {
		doc = "// settings" + nl + doc
	}
	return doc
}

func decodeAny(t *testing.T, src []byte) any {
	t.Helper()
	if _, err := parseJSONC(src); err != nil {
		t.Fatalf("does not parse: %v\n%s", err, src)
	}
	var v any
	if err := json.Unmarshal(plainJSON(src), &v); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return v
}

// For random documents: an edit leaves a document that parses and holds
// exactly the old value plus the edit; taking the edit out again (as for
// a file edited since install) gives the old value back; comment lines
// stay; and making the edit again changes nothing.
func TestEditsOnRandomDocuments(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	_, e := machine(t, "linux")
	edits := []Edit{}
	for _, text := range []string{
		"key: [k1, inner]\nset: {path: x}", "key: [k0]\nset: [1, 2]", "key: [new, deeper, leaf]\nset: cordon",
		"key: [k2, list]\nappend: {command: c}", "key: [k1]\ndefault: 7", "key: [hooks, Pre]\nappend: {m: B}",
	} {
		var x Edit
		if err := yamlUnmarshal(text, &x); err != nil {
			t.Fatal(err)
		}
		edits = append(edits, x)
	}
	for i := 0; i < iterations; i++ {
		doc := []byte(randomDoc(r))
		before := decodeAny(t, doc)
		x := &edits[r.Intn(len(edits))]
		after, ap, err := e.apply(doc, x)
		if err != nil {
			// a key on the path holds something other than an object or array: refused, fine
			if !strings.Contains(err.Error(), "is not") {
				t.Fatalf("%v\n%s", err, doc)
			}
			continue
		}
		got := decodeAny(t, after)
		if ap == nil {
			if string(after) != string(doc) {
				t.Fatalf("no edit, yet the text changed:\n%s\n%s", doc, after)
			}
			continue
		}
		// comments stay, but those inside a value replaced
		for _, line := range strings.Split(string(doc), "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "//") && !strings.Contains(ap.Old, l) && !strings.Contains(string(after), strings.TrimRight(line, "\r")) {
				t.Fatalf("comment %q lost:\n%s\n%s", l, doc, after)
			}
		}
		// the same document as before with the edit made
		want := deepCopy(before)
		applyToValue(want.(map[string]any), ap)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("edit %v on\n%s\ngave\n%s", ap, doc, after)
		}
		back, _, err := unapply(after, ap)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(decodeAny(t, back), before) {
			t.Fatalf("undo of %v:\n%s\n->\n%s\n->\n%s", ap, doc, after, back)
		}
		for _, line := range strings.Split(string(doc), "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "//") && !strings.Contains(string(back), l) {
				t.Fatalf("undo lost comment %q:\n%s\n->\n%s\n->\n%s", l, doc, after, back)
			}
		}
		if again, ap2, _ := e.apply(after, x); ap2 != nil || string(again) != string(after) {
			t.Fatalf("the edit is not idempotent:\n%s\n%s", after, again)
		}
	}
}

// iterations of TestEditsOnRandomDocuments (300000 ran clean once; 400
// keep the suite fast).
var iterations = 400

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// applyToValue makes edit a on a decoded document, as a reference.
func applyToValue(m map[string]any, a *applied) {
	var v any
	json.Unmarshal([]byte(a.Value), &v)
	for _, k := range a.Key[:len(a.Key)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	leaf := a.Key[len(a.Key)-1]
	if a.Op == "append" {
		list, _ := m[leaf].([]any)
		m[leaf] = append(list, v)
		return
	}
	m[leaf] = v
}
