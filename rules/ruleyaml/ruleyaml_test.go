package ruleyaml

import (
	"os"
	"testing"
	"testing/fstest"
)

// TestBuiltinLoads checks that the built-in YAML loads strictly: every
// pattern compiles, no command is defined twice. (rules/internal/genrules
// checks that rules/zbuiltin.go is generated from it.)
func TestBuiltinLoads(t *testing.T) {
	if _, err := LoadFS(os.DirFS(".."), "builtin"); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown-key", "version: 1\ncommands:\n  rm:\n    effectz: []\n", "bad.yaml:4: field effectz not found in type rules.CmdSpec"},
		{"wrong-version", "version: 2\n", "bad.yaml: version 2 is not supported; this cordon reads version 1"},
		{"wrong-type", "version: 1\ncommands:\n  rm:\n    skip: many\n", "bad.yaml:4: cannot unmarshal !!str `many` into int"},
		{"not-yaml", "version: 1\n  commands: [\n", "bad.yaml:2: mapping values are not allowed in this context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("bad.yaml", []byte(tt.yaml))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"bad-effect", "version: 1\ncommands:\n  rm:\n    effects: [{effect: explode, targets: operands}]\n", `bad.yaml: command "rm": unknown effect "explode"`},
		{"bad-targets", "version: 1\ncommands:\n  rm:\n    effects: [{effect: delete, targets: everything}]\n", `bad.yaml: command "rm": effect delete: unknown targets "everything"`},
		{"bad-carries", "version: 1\ncommands:\n  rm:\n    carries: rocket\n", `bad.yaml: command "rm": unknown carries "rocket" (want exec, shell, eval, source, find, interp or remote)`},
		{"bad-regexp", "version: 1\ncommands:\n  py:\n    carries: interp\n    translate: [{pattern: 'a(', argv: [rm]}]\n", `bad.yaml: command "py": pattern "a(" does not compile: error parsing regexp: missing closing ): ` + "`a(`"},
		{"bad-verdict", "version: 1\npolicies:\n  - {id: x, effect: [delete], verdict: maybe}\n", `bad.yaml: policy "x": unknown verdict "maybe" (want allow, ask or deny)`},
		{"bad-category", "version: 1\npolicies:\n  - {id: x, effect: [delete], verdict: ask, category: [outside, fun]}\n", `bad.yaml: policy "x": unknown category "fun"`},
		{"bad-target-class", "version: 1\npolicies:\n  - {id: x, effect: [delete], target: [worksapce], verdict: ask}\n", `bad.yaml: policy "x": unknown target class "worksapce"`},
		{"bad-state", "version: 1\npolicies:\n  - {id: x, effect: [delete], state: [dirty], verdict: ask}\n", `bad.yaml: policy "x": unknown state "dirty"`},
		{"no-id", "version: 1\npolicies:\n  - {effect: [delete], verdict: ask}\n", `bad.yaml: a policy has no id`},
		{"dup-command", "version: 1\ncommands:\n  rm: {}\n  del: {aliases: [rm]}\n", `bad.yaml: command "rm" is defined twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := mapFS(map[string]string{"r/bad.yaml": tt.yaml})
			_, err := LoadFS(fsys, "r")
			if err == nil {
				t.Fatalf("loaded; want %s", tt.want)
			}
			if got := err.Error(); got != "r/"+tt.want && got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return m
}
