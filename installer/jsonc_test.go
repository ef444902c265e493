package installer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseRefusesMalformed(t *testing.T) {
	for _, bad := range []string{
		`{"a": 1,, }`, `{"a" 1}`, `{"a": 1 "b": 2}`, `{"a": [1 2]}`, `{a: 1}`, `{"a": tru}`,
		`{"a": "x`, "{\"a\": \"x\ny\"}", `{"a": 1} x`, `{"a": /* open`, `[1,]]`, `{"a": 01x}`, `{"a": "\q"}`,
		strings.Repeat("[", 600) + strings.Repeat("]", 600),
	} {
		if _, err := parseJSONC([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	for _, good := range []string{"", "  // only a comment\n", "\xef\xbb\xbf{}", "{\"a\": [1, 2,], // c\n /* d */ \"b\": {\"c\": null,},}", `{"a": -1.5e3, "b": "\u00fc\"", "c": true}`} {
		if _, err := parseJSONC([]byte(good)); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

func TestPlainJSON(t *testing.T) {
	in := "{\n  // c, with a comma]\n  \"a\": [1, 2,], /* x */\n  \"s\": \"// not a comment, ]\",\n}"
	var v map[string]any
	if err := json.Unmarshal(plainJSON([]byte(in)), &v); err != nil {
		t.Fatalf("%v: %s", err, plainJSON([]byte(in)))
	}
	if v["s"] != "// not a comment, ]" || len(v["a"].([]any)) != 2 {
		t.Errorf("%v", v)
	}
}

// Each edit changes only what it must: the rest of the text, comments and
// layout included, stays byte for byte.
func TestEditsKeepLayout(t *testing.T) {
	st := style{nl: "\n", unit: "  "}
	for _, c := range []struct {
		name, in, want string
		edit           func(src []byte, root *node) []byte
	}{
		{"insert after a line comment", "{\n  \"a\": 1 // one\n}", "{\n  \"a\": 1, // one\n  \"k\": \"v\"\n}",
			func(s []byte, r *node) []byte { return insertMember(s, r, "k", "v", st) }},
		{"insert after a trailing comma", "{\n\t\"a\": 1,\n}", "{\n\t\"a\": 1,\n\t\"k\": \"v\",\n}",
			func(s []byte, r *node) []byte { return insertMember(s, r, "k", "v", st) }},
		{"insert on one line", `{"a": 1}`, `{"a": 1, "k": {"x": [1]}}`,
			func(s []byte, r *node) []byte { return insertMember(s, r, "k", omap{{"x", []any{1}}}, st) }},
		{"insert into empty", "{ }", "{\n  \"k\": \"v\"\n}",
			func(s []byte, r *node) []byte { return insertMember(s, r, "k", "v", st) }},
		{"insert into nothing", "// settings\n", "// settings\n{\n  \"k\": \"v\"\n}\n",
			func(s []byte, r *node) []byte { return insertMember(s, nil, "k", "v", st) }},
		{"append", "{\"h\": [\n    1\n]}", "{\"h\": [\n    1,\n    2\n]}",
			func(s []byte, r *node) []byte { return appendElem(s, r.members[0].value, 2, st) }},
		{"remove middle", "{\n  \"a\": 1, // a\n  // about b\n  \"b\": 2, // b\n  \"c\": 3\n}", "{\n  \"a\": 1, // a\n  // about b\n  \"c\": 3\n}",
			func(s []byte, r *node) []byte { return removeItem(s, r, 1) }},
		{"remove the last of a CRLF file", "{\r\n\t\"a\": 1, // a\r\n\t\"b\": 2\r\n}", "{\r\n\t\"a\": 1 // a\r\n}",
			func(s []byte, r *node) []byte { return removeItem(s, r, 1) }},
		{"remove the only one", "{\n  // mine\n  \"a\": [1,\n  2]\n}", "{\n  // mine\n}",
			func(s []byte, r *node) []byte { return removeItem(s, r, 0) }},
		{"remove inline", `{"a": 1, "b": 2, "c": 3}`, `{"a": 1, "c": 3}`,
			func(s []byte, r *node) []byte { return removeItem(s, r, 1) }},
		{"remove first", "{\n  \"a\": 1,\n  \"b\": 2\n}", "{\n  \"b\": 2\n}",
			func(s []byte, r *node) []byte { return removeItem(s, r, 0) }},
		{"remove last", "{\n  \"a\": 1,\n  \"b\": 2\n}", "{\n  \"a\": 1\n}",
			func(s []byte, r *node) []byte { return removeItem(s, r, 1) }},
	} {
		root, err := parseJSONC([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := string(c.edit([]byte(c.in), root))
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if _, err := parseJSONC([]byte(got)); err != nil {
			t.Errorf("%s: the result does not parse: %v", c.name, err)
		}
	}
}

func TestDiff(t *testing.T) {
	a := []byte("{\n  \"a\": 1\n}")
	b := []byte("{\n  \"a\": 1,\n  \"b\": 2\n}")
	want := "--- f\n+++ f\n@@ -1,3 +1,4 @@\n {\n-  \"a\": 1\n+  \"a\": 1,\n+  \"b\": 2\n }\n\\ No newline at end of file\n"
	if got := Diff("f", a, b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Diff("f", a, a) != "" {
		t.Error("a diff between equal files")
	}
	if got := Diff("f", nil, []byte("x\n")); got != "--- /dev/null\n+++ f\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("new file: %q", got)
	}
	// far-apart changes make two hunks
	var x, y []string
	for i := 0; i < 30; i++ {
		x = append(x, "l")
		y = append(y, "l")
	}
	y[2], y[25] = "m", "m"
	if got := Diff("f", []byte(strings.Join(x, "\n")+"\n"), []byte(strings.Join(y, "\n")+"\n")); strings.Count(got, "@@ -") != 2 {
		t.Errorf("want two hunks:\n%s", got)
	}
}

// A settings file of a few thousand keys is edited in well under a
// second (the comma lookahead once took exponential time).
func TestLargeDocument(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "  \"key.%d\": [1, 2, {\"a\": \"b\",},], // c\n", i)
	}
	b.WriteString("}\n")
	_, e := machine(t, "linux")
	x := Edit{Key: []string{"key.2999"}}
	x.Set.Encode([]any{1, 2, map[string]any{"a": "b"}})
	start := time.Now()
	out, ap, err := e.apply([]byte(b.String()), &x)
	if err != nil || ap != nil || len(out) != b.Len() {
		t.Fatalf("%v %v", err, ap)
	}
	var v map[string]any
	if err := json.Unmarshal(plainJSON([]byte(b.String())), &v); err != nil || len(v) != 3000 {
		t.Fatalf("%v %d", err, len(v))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
