package docs

// rules.schema.json is kept honest against the code:
//
//   - every yaml tag of rules.File, at every level, is a property at the
//     matching place of the schema with the matching type, and the schema
//     has no property the Go types lack (except policies' match and
//     not_match, which the schema may describe before rules.Policy has
//     them);
//   - the schema's lists of names (effects, targets, classes, states,
//     verdicts, categories, carriers, streams) are the lists in package
//     rules' source, read with go/parser;
//   - the built-in rule files and the complete rule files of rules.md use
//     only what the schema allows, checked by a small validator for the
//     part of JSON Schema the schema uses.

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cordonsh/cordon/rules"
)

// A schema is a JSON Schema node.
type schema = map[string]any

func loadSchema(t *testing.T) schema {
	t.Helper()
	data, err := os.ReadFile("rules.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("rules.schema.json: %v", err)
	}
	return s
}

// resolve follows a node's $ref into root's $defs.
func resolve(t testing.TB, root, s schema) schema {
	t.Helper()
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		def, found := root["$defs"].(schema)[name].(schema)
		if !ok || !found {
			t.Fatalf("rules.schema.json: $ref %q does not resolve", ref)
		}
		s = def
	}
}

// yamlTag returns a field's yaml key, or "" for none.
func yamlTag(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	if tag == "" {
		return strings.ToLower(f.Name)
	}
	return tag
}

// schemaOnly are properties the schema may have before the Go struct,
// by struct type.
var schemaOnly = map[reflect.Type][]string{}

// TestSchemaMatchesTypes walks rules.File and the schema side by side.
func TestSchemaMatchesTypes(t *testing.T) {
	root := loadSchema(t)
	walked := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, s schema, at string)
	walk = func(typ reflect.Type, s schema, at string) {
		s = resolve(t, root, s)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ == reflect.TypeFor[rules.Example]() {
			// A bash script, or a mapping.
			alts, _ := s["oneOf"].([]any)
			var obj schema
			var kinds []string
			for _, a := range alts {
				r := resolve(t, root, a.(schema))
				kinds = append(kinds, fmt.Sprint(r["type"]))
				if r["type"] == "object" {
					obj = r
				}
			}
			sort.Strings(kinds)
			if !slices.Equal(kinds, []string{"object", "string"}) || obj == nil {
				t.Errorf("%s: want oneOf a string and an object, got types %v", at, kinds)
				return
			}
			s = obj
		}
		if typ == reflect.TypeFor[rules.Categories]() {
			// One name or a list of names.
			alts, _ := s["anyOf"].([]any)
			if alts == nil {
				alts, _ = s["oneOf"].([]any)
			}
			var kinds []string
			for _, a := range alts {
				kinds = append(kinds, fmt.Sprint(resolve(t, root, a.(schema))["type"]))
			}
			sort.Strings(kinds)
			if !slices.Equal(kinds, []string{"array", "string"}) {
				t.Errorf("%s: want anyOf a string and an array, got types %v", at, kinds)
			}
			return
		}
		want := map[reflect.Kind]string{
			reflect.Struct: "object", reflect.Map: "object", reflect.Slice: "array",
			reflect.String: "string", reflect.Int: "integer", reflect.Bool: "boolean",
		}[typ.Kind()]
		if want == "" {
			t.Fatalf("%s: no schema type for Go kind %s", at, typ.Kind())
		}
		if got := s["type"]; got != want {
			t.Errorf("%s: schema type %v, Go type %s wants %s", at, got, typ, want)
		}
		switch typ.Kind() {
		case reflect.Slice:
			items, ok := s["items"].(schema)
			if !ok {
				t.Errorf("%s: an array without items", at)
				return
			}
			walk(typ.Elem(), items, at+"[]")
		case reflect.Map:
			elem, ok := s["additionalProperties"].(schema)
			if !ok {
				t.Errorf("%s: a map without an additionalProperties schema", at)
				return
			}
			walk(typ.Elem(), elem, at+".*")
		case reflect.Struct:
			if s["additionalProperties"] != false {
				t.Errorf("%s: additionalProperties must be false, as the decoder is strict", at)
			}
			props, _ := s["properties"].(schema)
			first := !walked[typ]
			walked[typ] = true
			tags := map[string]bool{}
			for i := range typ.NumField() {
				tag := yamlTag(typ.Field(i))
				if tag == "" {
					continue
				}
				tags[tag] = true
				p, ok := props[tag].(schema)
				if !ok {
					t.Errorf("%s: the schema lacks %s (%s.%s)", at, tag, typ.Name(), typ.Field(i).Name)
					continue
				}
				if d, _ := p["description"].(string); d == "" && resolve(t, root, p)["description"] == nil {
					t.Errorf("%s.%s: no description", at, tag)
				}
				if !first {
					continue // a recursive type (subcommands): its fields were walked once
				}
				walk(typ.Field(i).Type, p, at+"."+tag)
			}
			for name := range props {
				if !tags[name] && !slices.Contains(schemaOnly[typ], name) {
					t.Errorf("%s: the schema has %s, which %s does not decode", at, name, typ.Name())
				}
			}
		}
	}
	walk(reflect.TypeFor[rules.File](), root, "$")
}

// codeLists reads the fixed lists of names in package rules' source: the
// keys of the map literals named, with constants resolved.
func codeLists(t *testing.T, names ...string) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("../rules/*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	lits := map[string]*ast.CompositeLit{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") || strings.HasPrefix(filepath.Base(p), "z") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					switch v := vs.Values[i].(type) {
					case *ast.BasicLit:
						if g.Tok == token.CONST && v.Kind == token.STRING {
							consts[n.Name], _ = strconv.Unquote(v.Value)
						}
					case *ast.CompositeLit:
						lits[n.Name] = v
					}
				}
			}
		}
	}
	out := map[string][]string{}
	for _, name := range names {
		lit := lits[name]
		if lit == nil {
			t.Fatalf("package rules has no map literal %s any more; update this test", name)
		}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			var key string
			switch k := kv.Key.(type) {
			case *ast.BasicLit:
				key, _ = strconv.Unquote(k.Value)
			case *ast.Ident:
				c, ok := consts[k.Name]
				if !ok {
					t.Fatalf("%s: constant %s not found", name, k.Name)
				}
				key = c
			default:
				t.Fatalf("%s: a key of an unexpected form", name)
			}
			if key != "" { // "": the key left out
				out[name] = append(out[name], key)
			}
		}
		sort.Strings(out[name])
	}
	return out
}

// enumAt returns the enum at a path of property names from the root
// ("[]" steps into items, "*" into additionalProperties).
func enumAt(t *testing.T, root schema, path ...string) []string {
	t.Helper()
	s := root
	for _, p := range path {
		s = resolve(t, root, s)
		var next schema
		switch p {
		case "[]":
			next, _ = s["items"].(schema)
		case "*":
			next, _ = s["additionalProperties"].(schema)
		default:
			props, _ := s["properties"].(schema)
			next, _ = props[p].(schema)
		}
		if next == nil {
			t.Fatalf("rules.schema.json: nothing at %v", path)
		}
		s = next
	}
	s = resolve(t, root, s)
	var out []string
	for _, v := range s["enum"].([]any) {
		out = append(out, fmt.Sprint(v))
	}
	sort.Strings(out)
	return out
}

// TestSchemaEnums compares the schema's lists of names with the code's.
func TestSchemaEnums(t *testing.T) {
	root := loadSchema(t)
	lists := codeLists(t, "knownEffects", "knownTargets", "knownVerdicts", "knownCategories",
		"knownClasses", "knownStates", "carrierKinds", "streamFilters")
	policy := []string{"policies", "[]"}
	command := []string{"commands", "*"}
	for _, c := range []struct {
		code string
		path []string
	}{
		{"knownEffects", append(slices.Clone(command), "effects", "[]", "effect")},
		{"knownEffects", append(slices.Clone(policy), "effect", "[]")},
		{"knownTargets", append(slices.Clone(command), "effects", "[]", "targets")},
		{"knownVerdicts", append(slices.Clone(policy), "verdict")},
		{"knownClasses", append(slices.Clone(policy), "target", "[]")},
		{"knownStates", append(slices.Clone(policy), "state", "[]")},
		{"carrierKinds", append(slices.Clone(command), "carries")},
		{"streamFilters", append(slices.Clone(command), "stream")},
	} {
		if got := enumAt(t, root, c.path...); !slices.Equal(got, lists[c.code]) {
			t.Errorf("schema %v: %v\n rules.%s: %v", c.path, got, c.code, lists[c.code])
		}
	}
	// Categories are one name or a list: both are $defs/category.
	if got := enumAt(t, schema{"$defs": root["$defs"], "properties": schema{"c": schema{"$ref": "#/$defs/category"}}}, "c"); !slices.Equal(got, lists["knownCategories"]) {
		t.Errorf("schema category: %v\n rules.knownCategories: %v", got, lists["knownCategories"])
	}
}

// validate checks a YAML node against a schema, for the part of JSON
// Schema rules.schema.json uses: $ref, type, enum, properties,
// additionalProperties, required, items, anyOf and oneOf. It returns the
// problems, each with its line.
func validate(t testing.TB, root, s schema, n *yaml.Node, at string) []string {
	for n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	s = resolve(t, root, s)
	bad := func(format string, args ...any) []string {
		return []string{fmt.Sprintf("line %d: %s: ", n.Line, at) + fmt.Sprintf(format, args...)}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, ok := s[key].([]any)
		if !ok {
			continue
		}
		ok = false
		for _, a := range alts {
			if len(validate(t, root, a.(schema), n, at)) == 0 {
				ok = true
			}
		}
		if !ok {
			return bad("matches none of %s", key)
		}
	}
	if typ, ok := s["type"].(string); ok && !hasType(n, typ) {
		return bad("want %s, got %s", typ, describeNode(n))
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, v := range enum {
			if fmt.Sprint(v) == n.Value {
				found = true
			}
		}
		if !found {
			return bad("%q is not one of %v", n.Value, enum)
		}
	}
	var out []string
	switch n.Kind {
	case yaml.MappingNode:
		props, _ := s["properties"].(schema)
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			seen[k] = true
			if p, ok := props[k].(schema); ok {
				out = append(out, validate(t, root, p, v, at+"."+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					out = append(out, fmt.Sprintf("line %d: %s: key %q is not allowed", n.Content[i].Line, at, k))
				}
			case schema:
				out = append(out, validate(t, root, ap, v, at+"."+k)...)
			}
		}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if !seen[r.(string)] {
					out = append(out, bad("%s is required", r)...)
				}
			}
		}
	case yaml.SequenceNode:
		if items, ok := s["items"].(schema); ok {
			for i, c := range n.Content {
				out = append(out, validate(t, root, items, c, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	return out
}

// hasType reports whether a node is of a JSON Schema type, as a YAML
// language server sees it: scalars by their resolved tag.
func hasType(n *yaml.Node, typ string) bool {
	switch typ {
	case "object":
		return n.Kind == yaml.MappingNode
	case "array":
		return n.Kind == yaml.SequenceNode
	}
	if n.Kind != yaml.ScalarNode {
		return false
	}
	switch typ {
	case "string":
		return n.ShortTag() == "!!str"
	case "integer":
		return n.ShortTag() == "!!int"
	case "boolean":
		return n.ShortTag() == "!!bool"
	}
	return false
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
}

// knownBuiltinProblems are what the validator may find in the built-in
// rule files: none. cordon's decoder takes a YAML scalar of any type into
// a string, but an editor with the schema flags a bare true or ~ (null,
// not the home directory); the test keeps the files clean.
var knownBuiltinProblems = []string{}

// TestSchemaValidatesRules validates the built-in rule files and the
// complete rule files of rules.md against the schema.
func TestSchemaValidatesRules(t *testing.T) {
	root := loadSchema(t)
	files, err := filepath.Glob("../rules/builtin/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no built-in rule files: %v", err)
	}
	known := slices.Clone(knownBuiltinProblems)
	defer func() {
		for _, p := range known {
			t.Errorf("fixed, remove it from knownBuiltinProblems: %s", p)
		}
	}()
	check := func(name string, data []byte) {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		for _, p := range validate(t, root, root, &n, "$") {
			p = name + ": " + p
			if i := slices.Index(known, p); i >= 0 {
				known = slices.Delete(known, i, i+1)
				t.Logf("known: %s", p)
				continue
			}
			t.Error(p)
		}
	}

	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, data)
	}
	for _, b := range yamlBlocks(t, "rules.md") {
		if b.complete() {
			check(fmt.Sprintf("rules.md block at line %d", b.line), []byte(b.text))
		}
	}
}

// TestSchemaValidator makes sure the validator above finds what it is
// there to find.
func TestSchemaValidator(t *testing.T) {
	root := loadSchema(t)
	for _, c := range []struct{ yaml, want string }{
		{"version: 1\ncommands:\n  x:\n    efects: []\n", `key "efects" is not allowed`},
		{"version: 1\ncommands:\n  x:\n    effects:\n      - {effect: delet}\n", `"delet" is not one of`},
		{"version: 1\npolicies:\n  - {id: x, effect: [delete], verdict: maybe}\n", `"maybe" is not one of`},
		{"version: 1\npolicies:\n  - {id: x, effect: [delete], verdict: ask, category: [outside, nope]}\n", "matches none of anyOf"},
		{"version: 1\npolicies:\n  - {id: x, effect: [delete], verdict: ask, match: [{argv: [a], cmd: b}]}\n", "matches none of oneOf"},
		{"version: 2\n", `"2" is not one of`},
		{"paths: {}\n", "version is required"},
		{"version: 1\ncommands:\n  x:\n    skip: two\n", "want integer"},
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(c.yaml), &n); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(validate(t, root, root, &n, "$"), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.yaml, got, c.want)
		}
	}
	var ok yaml.Node
	yaml.Unmarshal([]byte("version: 1\npolicies:\n  - {id: x, effect: [delete], verdict: ask, category: outside, match: [rm -rf ~, {argv: [rm], cwd: /x, env: {A: b}}]}\n"), &ok)
	if p := validate(t, root, root, &ok, "$"); len(p) > 0 {
		t.Errorf("a valid file: %v", p)
	}
}
