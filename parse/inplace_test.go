package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPipeSidesInPlace: a pipeline's sides and the right side of && or
// || are walked in the state of the code around them and the state put
// back afterwards (see [walker.inSubshell], [walker.aside]), not in a
// copy. Nothing a side changes may last past it: a cd, an assignment, a
// function, an option, an exit; and a right side of && keeps its cd
// alone. Each case shows the commands with their directory, and which
// are functions.
func TestPipeSidesInPlace(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, c := range []struct{ name, script, want string }{
		{"cd-in-side", "cd sub | cat; rm -rf x", "cd sub @.\ncat @.\nrm -rf x @."},
		{"cd-in-right-side", "cd sub | cat && cd sub; rm -rf x", "cd sub @.\ncat @.\ncd sub @.\nrm -rf x @sub"},
		{"assign-in-side", "X=/x | cat; rm -rf /y$X", "cat @.\nrm -rf /y @."},
		{"assign-in-both-sides", "X=/a | Y=/b; rm -rf /y$X$Y", "rm -rf /y @."},
		{"export-in-side", "export X=/x | cat; bash -c 'rm -rf /y$X'", "cat @.\nbash -c rm -rf /y$X @.\nrm -rf /y @. <- bash -c"},
		{"function-in-side", "{ rm() { :; }; } | cat; rm -rf /x", "cat @.\nrm -rf /x @."},
		{"function-by-eval-in-side", "{ eval 'g() { :; }'; g; } | cat; g", "eval g() { :; } @.\ng @. fn\n: @. <- g()\ncat @.\ng @."},
		{"function-seen-in-side", "h() { :; }; h | h", "h @. fn\n: @. <- h()\nh @. fn\n: @. <- h()"},
		{"nounset-in-side", "set -u | cat; rm -rf /y$UNSET", "set -u @.\ncat @.\nrm -rf /y @."},
		{"exit-in-side", "exit | cat; rm -rf /x", "exit @.\ncat @.\nrm -rf /x @."},
		{"exit-in-right-side", "true && exit; rm -rf /x", "true @.\nexit @.\nrm -rf /x @."},
		{"option-in-right-side", "true && set -u; rm -rf /y$UNSET", "true @.\nset -u @.\nrm -rf /y @."},
		{"assign-in-right-side-kept", "true && X=/x; rm -rf /y$X", "true @.\nrm -rf /y/x @."},
		{"cd-in-branch", "if [ -n \"$RANDOM\" ]; then cd sub; fi; rm -rf x", "[ -n ? ] @.\ncd sub @.\nrm -rf x @?"},
		{"nested-sides", "cd sub | { cd sub | cat; pwd; }; rm -rf x", "cd sub @.\ncd sub @.\ncat @.\npwd @.\nrm -rf x @."},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := Parse(c.script, testConfig(dir))
			var lines []string
			for _, cmd := range res.Commands {
				at := "@?"
				switch cmd.Dir {
				case dir:
					at = "@."
				case sub:
					at = "@sub"
				}
				line := cmd.Line() + " " + at
				if len(cmd.Via) > 0 {
					line += " <- " + strings.Join(cmd.Via, " | ")
				}
				if cmd.Function {
					line += " fn"
				}
				lines = append(lines, line)
			}
			if got := strings.Join(lines, "\n"); got != c.want {
				t.Errorf("%s:\ngot\n%s\nwant\n%s", c.script, got, c.want)
			}
		})
	}
}
