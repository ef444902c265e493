package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// doubling is a script that doubles x n times.
func doubling(n int) string {
	return "x=ab" + strings.Repeat("; x=$x$x", n) + "; rm $x"
}

// budgetAttacks are scripts that, without a budget, exhaust the judge's
// memory or time; each must end in a budget problem.
var budgetAttacks = map[string]string{
	"concat doubling":      doubling(40),
	"replace squaring":     "y=abcdefgh" + strings.Repeat("; y=${y//?/$y}", 6) + "; rm $y",
	"replace in assign":    "y=$(printf %064d 0); z=${y//?/${y//?/${y//?/${y//?/${y//?/$y}}}}}; rm $z",
	"nested repl in arith": "y=$(printf %064d 0); echo $(( ${#y} + ${y//?/${y//?/${y//?/${y//?/${y//?/$y}}}}} ))",
	"array doubling":       "a=(x y)" + strings.Repeat(`; a=("${a[@]}" "${a[@]}")`, 40) + `; rm "${a[@]}"`,
	"here-doc":             doubling(20) + "; cat <<EOF\n" + strings.Repeat("$x", 8) + "\nEOF",
	"quote op":             doubling(20) + `; rm "${x@Q}${x@Q}"`,
	"function fan-out":     "f(){ (f;f;f;f;f;f;f;f;f;f); }; f; rm -rf /x",
	"subshell fan-out":     "f(){ f;f;f;f;f;f;f;f;f;f; }; f",
	"many commands":        strings.Repeat("a;", 30000),
	"loop nest":            strings.Repeat("for a in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do ", 6) + "x=$a" + strings.Repeat("; done", 6),
	"alias fan-out":        aliasChain(10),
	"split words":          doubling(18) + `; y=${x//?/a }; rm $y`,
}

// aliasChain is n aliases, each the next one four times: an alias is not
// expanded inside its own text, but a chain of them fans out.
func aliasChain(n int) string {
	s := "shopt -s expand_aliases\n"
	for i := range n {
		s += fmt.Sprintf("alias a%d='a%d;a%d;a%d;a%d'\n", i, i+1, i+1, i+1, i+1)
	}
	return s + "a0"
}

func TestBudgetAttacks(t *testing.T) {
	for name, script := range budgetAttacks {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res := Parse(script, testConfig(t.TempDir()))
			if d := time.Since(start); d > DefaultBudget.Time+time.Second {
				t.Errorf("took %v, budget %v", d, DefaultBudget.Time)
			}
			if !hasBudgetProblem(res) {
				t.Errorf("no budget problem; problems %v, %d commands", res.Problems, len(res.Commands))
			}
		})
	}
}

func hasBudgetProblem(res *Result) bool {
	for _, p := range res.Problems {
		if p.Kind == ProblemBudget {
			return true
		}
	}
	return false
}

// TestBudgetMemory checks that the attacks stay within a memory bound:
// the heap the walk allocates in all is a small multiple of the budget.
func TestBudgetMemory(t *testing.T) {
	for _, name := range []string{"concat doubling", "replace squaring", "array doubling", "split words"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		Parse(budgetAttacks[name], testConfig(t.TempDir()))
		runtime.ReadMemStats(&after)
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(4*DefaultBudget.Bytes); got > limit {
			t.Errorf("%s: allocated %d MB, want under %d MB", name, got>>20, limit>>20)
		}
	}
}

// TestGlobBudget walks a tree wider than the glob budget with globstar.
func TestGlobBudget(t *testing.T) {
	dir := t.TempDir()
	for i := range 30 {
		for j := range 10 {
			if err := os.MkdirAll(filepath.Join(dir, fmt.Sprint(i), fmt.Sprint(j)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	small := DefaultBudget
	small.GlobDirs = 100
	for _, script := range []string{"shopt -s globstar; ls " + dir + "/**/x", "ls " + dir + "/*/*/x"} {
		cfg := testConfig(dir)
		cfg.Budget = &small
		res := Parse(script, cfg)
		if !hasBudgetProblem(res) {
			t.Errorf("%s: no budget problem; problems %v", script, res.Problems)
		}
	}
	// The same globs within the default budget are matched.
	res := Parse("shopt -s globstar; echo "+dir+"/**/9", testConfig(dir))
	if hasBudgetProblem(res) || len(res.Commands) != 2 || len(res.Commands[1].Args) != 32 { // echo, 9 and 0/9 ... 29/9
		t.Errorf("problems %v, commands %d", res.Problems, len(res.Commands))
	}

	small.Entries = 50
	small.GlobDirs = 1000
	cfg := testConfig(dir)
	cfg.Budget = &small
	if res := Parse("echo "+dir+"/*/*", cfg); !hasBudgetProblem(res) {
		t.Errorf("entries: no budget problem; problems %v", res.Problems)
	}
}

// TestBudgetDeadline: a walk that stays under every count still ends at
// the deadline.
func TestBudgetDeadline(t *testing.T) {
	// Every count far out of reach, so that only the clock can end the
	// walk: on a fast machine the words bound (100,000 assignments) came
	// first, and the result was rightly not overdue.
	b := DefaultBudget
	b.Time = 50 * time.Millisecond
	b.Steps, b.Commands, b.Words, b.Bytes = 1<<30, 1<<30, 1<<30, 1<<40
	cfg := testConfig(t.TempDir())
	cfg.Budget = &b
	start := time.Now()
	res := Parse(budgetAttacks["loop nest"], cfg)
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v past a 50ms deadline", d)
	}
	if !hasBudgetProblem(res) {
		t.Fatalf("no budget problem: %v", res.Problems)
	}
	if p := res.Problems[len(res.Problems)-1]; !strings.Contains(p.Msg, "took longer") {
		t.Errorf("the walk ended by another bound than the clock: %v", p)
	}
	if _, late := res.Overdue(); !late {
		t.Error("result not overdue after its deadline")
	}
}

// TestBudgetOrdinary: ordinary scripts stay far inside the budget.
func TestBudgetOrdinary(t *testing.T) {
	for _, script := range []string{
		`for f in *.go; do gofmt -l "$f"; done`,
		`x=$(git rev-parse HEAD); echo "${x//[0-9]/}" "${PATH//:/ }" "${HOME@Q}"`,
		`cat <<EOF > out.txt` + "\n" + strings.Repeat("line $HOME\n", 2000) + "EOF",
		strings.Repeat("echo step; go build ./...\n", 2000),
		`eval "$(echo 'ls -la')"; ls {a,b,c}{1..100}`,
	} {
		res := Parse(script, testConfig(t.TempDir()))
		if hasBudgetProblem(res) {
			t.Errorf("%.40q: %v", script, res.Problems)
		}
	}
}
