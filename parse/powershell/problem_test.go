package powershell

import (
	"strings"
	"testing"
	"time"
)

var problemTests = []struct {
	name string
	src  string
	kind ProblemKind
	cmds int // commands still found
}{
	{"UnterminatedString", "rm a\nrm 'b", ProblemSyntax, 1},
	{"UnterminatedHereString", "rm a\n$x = @'\nfoo", ProblemSyntax, 1},
	{"UnterminatedBrace", "rm a\nif ($x) { rm b", ProblemSyntax, 1},
	{"DeepParens", "rm a\n" + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000), ProblemSyntax, 1},
	{"DeepBlocks", strings.Repeat("& {", 5000), ProblemSyntax, 0},
	{"IexLoop", "$s = 'iex $s'; iex $s", ProblemDepth, 13},
	{"BadBase64", "iex ([Text.Encoding]::Unicode.GetString([Convert]::FromBase64String('@@@')))", ProblemKind(255), 2},
}

func TestProblems(t *testing.T) {
	for _, tt := range problemTests {
		t.Run(tt.name, func(t *testing.T) {
			res := Commands(tt.src, testConfig())
			if len(res.Commands) != tt.cmds {
				t.Errorf("got %d commands, want %d", len(res.Commands), tt.cmds)
			}
			if tt.kind == ProblemKind(255) {
				if len(res.Problems) != 0 {
					t.Errorf("problems: %v", res.Problems)
				}
				return
			}
			if len(res.Problems) == 0 || res.Problems[0].Kind != tt.kind {
				t.Fatalf("problems %v, want a %v", res.Problems, tt.kind)
			}
		})
	}
}

func TestBigScript(t *testing.T) {
	var b strings.Builder
	for b.Len() < 5<<20 {
		b.WriteString("$x = 'a' + $x; Remove-Item \"C:\\dir\\$x\" -Recurse | Out-Null # comment\n")
	}
	start := time.Now()
	res := Commands(b.String(), testConfig())
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	if len(res.Commands) != maxCommands || len(res.Problems) == 0 || res.Problems[0].Kind != ProblemLimit {
		t.Errorf("got %d commands, problems %v", len(res.Commands), res.Problems)
	}
}

func TestDir(t *testing.T) {
	res := Commands(`cd sub; rm a; pushd ..\other; rm b; popd; rm c; cd $x; rm d`, testConfig())
	want := []string{`C:\work\proj`, `C:\work\proj\sub`, `C:\work\proj\sub`, `C:\work\proj\other`, `C:\work\proj\other`, `C:\work\proj\sub`, `C:\work\proj\sub`, ``}
	var got []string
	for _, c := range res.Commands {
		got = append(got, c.Dir)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("dirs %q, want %q", got, want)
	}
}

func TestCommandLine(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{`cmd /c "rd /s /q C:\x"`, `cmd /c "rd /s /q C:\x"`},
		{`& 'C:\Program Files\x.exe' a 'b c'`, `"C:\Program Files\x.exe" a "b c"`},
		{`git commit -m:"a b"`, `git commit "-m:a b"`},
		{`Start-Process cmd -ArgumentList '/c','del x'`, `cmd /c del x`},
	} {
		res := Commands(tt.src, testConfig())
		last := res.Commands[len(res.Commands)-1]
		if last.CommandLine != tt.want {
			t.Errorf("%s: CommandLine %q, want %q", tt.src, last.CommandLine, tt.want)
		}
	}
}

func TestPos(t *testing.T) {
	res := Commands("rm a\n  iex 'x;  rm b'", testConfig())
	var got []string
	for _, c := range res.Commands {
		got = append(got, c.Pos)
	}
	if strings.Join(got, " ") != "1:1 2:3 1:1 1:5" {
		t.Errorf("positions %v", got)
	}
}

func FuzzCommands(f *testing.F) {
	for _, tt := range walkTests {
		f.Add(tt.src)
	}
	for _, tt := range problemTests {
		if len(tt.src) < 1000 {
			f.Add(tt.src)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		res := Commands(src, testConfig())
		for _, p := range res.Problems {
			if strings.Contains(p.Msg, "internal error") {
				t.Fatalf("%q: %s", src, p.Msg)
			}
		}
	})
}

// TestScopedSpecialVariables: $global:? (VS Code's shell integration
// reads it as [int]!$global:?) parses, and a command after it is found.
func TestScopedSpecialVariables(t *testing.T) {
	for _, src := range []string{"$c = [int]!$global:?; rm a", "$x = $script:^; rm a", "if (!$global:?) { rm a }"} {
		res := Commands(src, testConfig())
		if len(res.Problems) != 0 || len(res.Commands) != 1 || res.Commands[0].Name != "Remove-Item" {
			t.Errorf("%q: commands %v, problems %v", src, res.Commands, res.Problems)
		}
	}
}
