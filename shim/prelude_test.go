package shim

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestStateOnly(t *testing.T) {
	for src, want := range map[string]string{
		"true && cd .git":        ": && cd .git",
		"make > log && cd build": ": && cd build",
		"f; echo hi":             "f",
		"echo hi | grep h":       "",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range f.Stmts {
			if stateOnly(st, map[string]bool{"f": true}) {
				var b strings.Builder
				syntax.NewPrinter().Print(&b, st)
				got = append(got, b.String())
			}
		}
		if strings.Join(got, "; ") != want {
			t.Errorf("stateOnly(%q) = %q, want %q", src, strings.Join(got, "; "), want)
		}
	}
}
