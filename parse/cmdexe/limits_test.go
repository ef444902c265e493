package cmdexe

import (
	"strings"
	"testing"
	"time"
)

func TestNestedParentheses(t *testing.T) {
	line := strings.Repeat("(", 10000) + "del x" + strings.Repeat(")", 10000)
	res := Commands(line, nil)
	if len(res.Problems) == 0 || res.Problems[0].Kind != ProblemDepth {
		t.Errorf("problems %v, want a depth problem", res.Problems)
	}
}

func TestLongLine(t *testing.T) {
	line := strings.Repeat("echo %USERPROFILE% & ", 5<<20/21)
	start := time.Now()
	res := Commands(line, &Config{Getenv: getenv(testEnv)})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 5 MB line took %v", d)
	}
	if len(res.Commands) > maxCommands {
		t.Errorf("%d commands, want at most %d", len(res.Commands), maxCommands)
	}
	if len(res.Problems) == 0 || res.Problems[0].Kind != ProblemDepth {
		t.Errorf("problems %v, want the command limit", res.Problems)
	}
}

func TestBytesBound(t *testing.T) {
	// Each set doubles X: without a bound, 2^40 bytes.
	env := map[string]string{"X": "xxxxxxxx"}
	line := "setlocal enabledelayedexpansion\n" + strings.Repeat("set X=!X!!X!\n", 40) + "del !X!\n"
	res := Commands(line, &Config{Getenv: getenv(env), Batch: true})
	last := res.Commands[len(res.Commands)-1]
	if !strings.Contains(last.Args[1], Unknown) {
		t.Errorf("del %.40q..., want Unknown past the byte bound", last.Args[1])
	}
}

func TestRecursiveBatch(t *testing.T) {
	read := func(string) ([]byte, error) { return []byte("call self.bat\ncall self.bat\n"), nil }
	res := Commands("self.bat", &Config{Dir: `C:\w`, ReadFile: read})
	if len(res.Problems) == 0 || res.Problems[0].Kind != ProblemDepth {
		t.Errorf("problems %v, want a depth problem", res.Problems)
	}
	if len(res.Commands) > maxCommands {
		t.Errorf("%d commands", len(res.Commands))
	}
}

func TestDepthFromCaller(t *testing.T) {
	res := Commands(`call del x`, &Config{Depth: maxDepth})
	if len(res.Commands) != 1 || len(res.Problems) != 1 || res.Problems[0].Kind != ProblemDepth {
		t.Errorf("commands %v problems %v, want call alone and a depth problem", res.Commands, res.Problems)
	}
}

func TestLoopsWithoutCommands(t *testing.T) {
	items := strings.TrimSpace(strings.Repeat("a ", maxItems))
	line := strings.Repeat("for %a in ("+items+") do ", 5) + "rem"
	start := time.Now()
	Commands(line, nil)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("nested loops took %v", d)
	}
}

func TestPosAndCommandLine(t *testing.T) {
	res := Commands("echo a\n  del  \"b c\"  ^& x >out & rd y\n", &Config{Batch: true})
	want := []struct{ pos, line string }{{"1:1", "echo a"}, {"2:3", `del  "b c"  & x`}, {"2:27", "rd y"}}
	if len(res.Commands) != len(want) {
		t.Fatalf("got %d commands, want %d", len(res.Commands), len(want))
	}
	for i, w := range want {
		c := res.Commands[i]
		if c.Pos != w.pos || c.CommandLine != w.line {
			t.Errorf("command %d: pos %s line %q, want %s %q", i, c.Pos, c.CommandLine, w.pos, w.line)
		}
	}
}

func FuzzCommands(f *testing.F) {
	for _, tests := range [][]test{lineTests, delayedTests, batchTests} {
		for _, tc := range tests {
			f.Add(tc.in, false, false)
			f.Add(tc.in, true, true)
		}
	}
	f.Fuzz(func(t *testing.T, line string, batch, delayed bool) {
		cfg := &Config{Getenv: getenv(testEnv), Dir: `C:\work`, ReadFile: readFile, Batch: batch, Delayed: delayed,
			Params: []string{"x.bat", "a"}}
		res := Commands(line, cfg)
		for _, c := range res.Commands {
			if c.StdinFrom >= len(res.Commands) {
				t.Fatalf("StdinFrom %d out of range", c.StdinFrom)
			}
		}
	})
}
