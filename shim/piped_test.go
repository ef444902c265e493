package shim

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/stream"
)

// BenchmarkPipedStatement is the judge's work for one statement of a
// piped shell whose prelude holds a cd and a few variables and a function.
func BenchmarkPipedStatement(b *testing.B) {
	dir := b.TempDir()
	inv, err := invocation.Decode([]string{"bash", "-s"}, false)
	if err != nil {
		b.Fatal(err)
	}
	s := &piped{r: &run{name: "bash", env: []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}}, inv: inv, dir: dir, rules: invocation.BuiltinRules}
	for _, line := range []string{"cd " + dir + "\n", "X=1\n", "export Y=2\n", "f() { echo $1; }\n"} {
		f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
		if err != nil {
			b.Fatal(err)
		}
		if msg := s.judge(stream.Chunk{Text: []byte(line), Stmts: f.Stmts}); msg != "" {
			b.Fatal(msg)
		}
	}
	f, _ := syntax.NewParser().Parse(strings.NewReader("ls -la src | grep x\n"), "")
	c := stream.Chunk{Text: []byte("ls -la src | grep x\n"), Stmts: f.Stmts}
	b.ReportAllocs()
	for b.Loop() {
		if msg := s.judge(c); msg != "" {
			b.Fatal(msg)
		}
	}
}
