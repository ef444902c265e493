package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestCountCallsAsWalk: countCalls, which goes through the lists and
// compound commands itself, counts what a walk of the whole tree counts:
// the simple commands outside functions' bodies.
func TestCountCallsAsWalk(t *testing.T) {
	scripts := []string{
		"go test ./p1/... 2>&1 | grep -v ok > o1.log || echo f1",
		"X=1 cmd; Y=$(a; b) c; d > \"$(e)\"; f <<EOF\n$(g)\nEOF\n",
		"if a; then b | c; elif d; then e; else f; fi; while g; do h; done; for i in $(j); do k; done",
		"case $(l) in x) m;; y) n & ;; esac; { o; p; } && (q || r); time s; coproc t",
		"f() { a; b; }; function g { c; }; declare x=$(d); let y=$(e); [[ $(f) ]]; (( $(g) ))",
		"echo 'quoted' \"$(h)\" $(( $(i) )) <(j) >(k); ! l; m 2>/dev/null",
	}
	for _, name := range []string{"../testdata/shell-snapshots/codex-bash.sh"} {
		if data, err := os.ReadFile(filepath.FromSlash(name)); err == nil {
			scripts = append(scripts, string(data))
		}
	}
	for _, src := range scripts {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		want := 0
		syntax.Walk(f, func(node syntax.Node) bool {
			switch node.(type) {
			case *syntax.FuncDecl:
				return false
			case *syntax.CallExpr:
				want++
			}
			return true
		})
		if got := countCalls(f.Stmts); got != want {
			t.Errorf("%.60q: %d simple commands counted, a walk finds %d", src, got, want)
		}
	}
}
