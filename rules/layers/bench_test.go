package layers_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/layers"
)

// BenchmarkLoadBuiltin is the built-in rule set alone, as before layers.
func BenchmarkLoadBuiltin(b *testing.B) {
	for b.Loop() {
		rules.Builtin()
	}
}

// BenchmarkLoadLayersNoFiles is what every shim pays when no system,
// user or project rule files exist: a few stat calls.
func BenchmarkLoadLayersNoFiles(b *testing.B) {
	m := benchMachine(b, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := layers.Load(m.ws, m.getenv, decide.JudgeExample); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadLayersCached loads a user file and a project file of 20
// policies each, with examples, from the cache.
func BenchmarkLoadLayersCached(b *testing.B) {
	m := benchMachine(b, true)
	layers.Load(m.ws, m.getenv, decide.JudgeExample) // fills the cache
	b.ReportAllocs()
	for b.Loop() {
		layers.ForgetLast()
		if _, err := layers.Load(m.ws, m.getenv, decide.JudgeExample); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadLayersAgain is the second load in one process (the shim
// loads to judge, then to confine): the files are read and hashed, the
// last load is reused.
func BenchmarkLoadLayersAgain(b *testing.B) {
	m := benchMachine(b, true)
	layers.Load(m.ws, m.getenv, decide.JudgeExample)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := layers.Load(m.ws, m.getenv, decide.JudgeExample); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadLayersUncached loads the same files with no cache: decode
// the YAML, check trust and run the examples.
func BenchmarkLoadLayersUncached(b *testing.B) {
	m := benchMachine(b, true)
	delete(m.env, "XDG_STATE_HOME")
	delete(m.env, "HOME") // no state directory: no cache
	b.ReportAllocs()
	for b.Loop() {
		layers.ForgetLast()
		if _, err := layers.Load(m.ws, m.getenv, decide.JudgeExample); err != nil {
			b.Fatal(err)
		}
	}
}

func benchMachine(b *testing.B, files bool) *machine {
	root := b.TempDir()
	m := &machine{root: root, ws: filepath.Join(root, "ws"), env: map[string]string{
		"HOME":              filepath.Join(root, "home"),
		"XDG_CONFIG_HOME":   filepath.Join(root, "config"),
		"XDG_STATE_HOME":    filepath.Join(root, "state"),
		"CORDON_SYSTEM_DIR": filepath.Join(root, "etc"),
	}}
	os.MkdirAll(m.ws, 0o755)
	if !files {
		return m
	}
	for _, d := range []string{filepath.Join(root, "config", "cordon", "rules"), filepath.Join(m.ws, ".cordon")} {
		os.MkdirAll(d, 0o755)
		var sb strings.Builder
		sb.WriteString("version: 1\npolicies:\n")
		for i := range 20 {
			fmt.Fprintf(&sb, "  - id: p%d-%s\n    effect: [push-to]\n    state: [foreign]\n    verdict: deny\n    match: [\"git push x\"]\n", i, filepath.Base(d))
		}
		os.WriteFile(filepath.Join(d, "rules.yaml"), []byte(sb.String()), 0o644)
	}
	return m
}
