package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every command an agent runs starts this binary at least once (the
// shim), and every package's initialisation runs before any role is
// chosen: a table, map or regular expression built at package level is
// paid by every start of every role, whether or not the role uses it
// (docs/performance.md, "The binary's start"). These budgets are in
// allocations, which do not depend on how loaded the machine is; they
// leave a third to a half again of what the packages allocate today.
const (
	// ownInitAllocs bounds the init of cordon's own packages (208 when
	// written; a single regular expression compiled at package level
	// costs a few hundred).
	ownInitAllocs = 300
	// allInitAllocs bounds every package linked, the standard library's
	// and the dependencies' included (about 930 when written, with Go
	// 1.26; yaml 276 of them): a dependency with an expensive init,
	// added for one role, shows here (encoding/gob alone was 367).
	allInitAllocs = 1200
)

// initCost is what GODEBUG=inittrace=1 reports for one package.
type initCost struct {
	pkg           string
	bytes, allocs int
}

// TestInitBudget starts the built binary with GODEBUG=inittrace=1 and
// fails when its packages' initialisation allocates more than the
// budgets above.
func TestInitBudget(t *testing.T) {
	bin := buildCordon(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cordon version: %v\n%s", err, stderr.Bytes())
	}
	costs := parseInitTrace(t, stderr.Bytes())
	if len(costs) < 50 {
		t.Fatalf("only %d packages in the init trace:\n%s", len(costs), stderr.Bytes())
	}
	var own, all int
	for _, c := range costs {
		all += c.allocs
		if strings.HasPrefix(c.pkg, "github.com/cordonsh/cordon") {
			own += c.allocs
		}
	}
	sort.Slice(costs, func(i, j int) bool { return costs[i].allocs > costs[j].allocs })
	top := costs[:min(8, len(costs))]
	t.Logf("init allocations: cordon's packages %d, all %d; most: %v", own, all, top)
	if own > ownInitAllocs {
		t.Errorf("cordon's packages allocate %d times at init (budget %d): build tables and regular expressions on first use (sync.OnceValue); most: %v", own, ownInitAllocs, top)
	}
	if all > allInitAllocs {
		t.Errorf("the linked packages allocate %d times at init (budget %d); most: %v", all, allInitAllocs, top)
	}
}

// parseInitTrace reads lines like
// "init os @0.4 ms, 0.012 ms clock, 496 bytes, 9 allocs".
func parseInitTrace(t *testing.T, trace []byte) []initCost {
	var out []initCost
	sc := bufio.NewScanner(bytes.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("unreadable init trace line %q", sc.Text())
		}
		out = append(out, initCost{pkg: f[1], bytes: b, allocs: a})
	}
	return out
}

func (c initCost) String() string { return fmt.Sprintf("%s %d", c.pkg, c.allocs) }

// buildCordon builds the binary as install.sh and scripts/bench.sh do.
func buildCordon(tb testing.TB) string {
	bin := filepath.Join(tb.TempDir(), "cordon")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkStart runs whole processes: the start alone (cordon version)
// and judging a typical command (cordon check), with a state directory
// of their own. Compare with -count and benchstat; the CPU time per run
// is reported too, being less noisy than the wall time on a shared
// machine.
func BenchmarkStart(b *testing.B) {
	bin := buildCordon(b)
	state := b.TempDir()
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"check", []string{"check", "--", "bash", "-lc", "rm -rf build && npm test"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(bin, bc.args...)
				cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
				if err := cmd.Run(); err != nil {
					b.Fatalf("cordon %v: %v", bc.args, err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
