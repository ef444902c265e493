package winargs

import (
	"slices"
	"strings"
	"testing"
)

// The examples of Microsoft's "Parsing C command-line arguments", and the
// shapes agents send.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{`prog "a b c" d e`, []string{"prog", "a b c", "d", "e"}},
		{`prog "ab\"c" "\\" d`, []string{"prog", `ab"c`, `\`, "d"}},
		{`prog a\\\b d"e f"g h`, []string{"prog", `a\\\b`, "de fg", "h"}},
		{`prog a\\\"b c d`, []string{"prog", `a\"b`, "c", "d"}},
		{`prog a\\\\"b c" d e`, []string{"prog", `a\\b c`, "d", "e"}},
		{`prog a"b"" c d`, []string{"prog", `ab" c d`}},
		{`prog ""`, []string{"prog", ""}},
		{`prog   	x  `, []string{"prog", "x"}},
		{`"C:\Program Files\Git\bin\bash.exe" -c -l "echo \"hi\" && ls"`, []string{`C:\Program Files\Git\bin\bash.exe`, "-c", "-l", `echo "hi" && ls`}},
		// The program name: quotes group, backslashes are literal.
		{`"C:\dir\"x y`, []string{`C:\dir\x`, "y"}},
		{`C:\a\b.exe\" z`, []string{`C:\a\b.exe\ z`}}, // the quote opens, never closes
		{``, []string{""}},
	} {
		if got := Split(c.line); !slices.Equal(got, c.want) {
			t.Errorf("Split(%s) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestCmd(t *testing.T) {
	exe := func(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".exe") }
	for _, c := range []struct {
		line    string
		run     string
		command string
		opts    []string
		kept    bool
	}{
		// Node, shell: true.
		{`C:\Windows\System32\cmd.exe /d /s /c "npm run build && echo "done""`, "C", `npm run build && echo "done"`, []string{"D", "S"}, false},
		// Python: two quotes, but git status is no executable file.
		{`C:\Windows\system32\cmd.exe /c "git status"`, "C", `git status`, nil, false},
		{`cmd.exe /c "C:\Program Files\Git\bin\git.exe"`, "C", `"C:\Program Files\Git\bin\git.exe"`, nil, true},
		{`cmd.exe /s /c "C:\Program Files\Git\bin\git.exe"`, "C", `C:\Program Files\Git\bin\git.exe`, []string{"S"}, false},
		// VS Code task: outer quotes around quoted words.
		{`cmd.exe /d /c ""C:\Tools\my tool.exe" "arg 1""`, "C", `"C:\Tools\my tool.exe" "arg 1"`, []string{"D"}, false},
		// Codex: MSVCRT-escaped quotes reach cmd.exe as they are.
		{`cmd.exe /c "dir \"C:\Program Files\""`, "C", `dir \"C:\Program Files\"`, nil, false},
		// Text after the last quote is kept.
		{`cmd /c "echo a" & echo b`, "C", `echo a & echo b`, nil, false},
		// Switch spellings.
		{`cmd /D/S/C "x"`, "C", "x", []string{"D", "S"}, false},
		{`cmd /cdir`, "C", "dir", nil, false},
		{`CMD.EXE /E:ON /V:ON /C "echo !x!"`, "C", "echo !x!", []string{"E:ON", "V:ON"}, false},
		{`cmd /v:off/q/c echo %PATH%`, "C", "echo %PATH%", []string{"V:OFF", "Q"}, false},
		{`cmd /K "x"`, "K", "x", nil, false},
		{`cmd /R x`, "C", "x", nil, false},
		{`cmd /T:1F /C x`, "C", "x", []string{"T:1F"}, false},
		{`cmd /C pwsh -NoProfile -Command $PSHOME`, "C", "pwsh -NoProfile -Command $PSHOME", nil, false},
		// Interactive.
		{`"C:\Windows\System32\cmd.exe"`, "", "", nil, false},
		{`cmd.exe /d`, "", "", []string{"D"}, false},
	} {
		got, err := Cmd(c.line, exe)
		if err != nil {
			t.Errorf("Cmd(%s): %v", c.line, err)
			continue
		}
		if got.Run != c.run || got.Command != c.command || !slices.Equal(got.Options, c.opts) || got.KeptQuotes != c.kept {
			t.Errorf("Cmd(%s) = run %q command %q options %q kept %v; want %q %q %q %v",
				c.line, got.Run, got.Command, got.Options, got.KeptQuotes, c.run, c.command, c.opts, c.kept)
		}
	}
	if c, _ := Cmd(`cmd /e:on /v:on /c x`, nil); !c.DelayedExpansion() || !c.Has("E:ON") {
		t.Errorf("options: %q", c.Options)
	}
}

// What cmd.exe would read some other way is an error, not a guess.
func TestCmdErrors(t *testing.T) {
	for _, line := range []string{`cmd /Z /c x`, `cmd /V /c x`, `cmd /V:maybe /c x`, `cmd dir`, `cmd /`, `cmd /T /c x`} {
		if c, err := Cmd(line, nil); err == nil {
			t.Errorf("Cmd(%s) = %+v, want an error", line, c)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{`prog "a b" c`, `prog a\\"b`, `"x\" y`, `prog """"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := Split(line)
		if len(args) == 0 {
			t.Fatal("no program name")
		}
		for _, a := range args[1:] {
			if strings.ContainsAny(a, " \t") && !strings.Contains(line, `"`) {
				t.Fatalf("%q: argument %q holds a space without quotes in the line", line, a)
			}
		}
	})
}

func FuzzCmd(f *testing.F) {
	for _, s := range []string{`cmd /d /s /c "a && "b""`, `cmd /cdir`, `cmd /V:ON/C x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := Cmd(line, func(string) bool { return true })
		if err == nil && c.Run == "" && c.Command != "" {
			t.Fatalf("%q: a command without /C or /K", line)
		}
	})
}

func TestQuote(t *testing.T) {
	for arg, want := range map[string]string{
		"plain": "plain", "": `""`, "a b": `"a b"`, `a"b`: `"a\"b"`, `C:\dir\`: `C:\dir\`,
		`C:\dir with space\`: `"C:\dir with space\\"`, `a\"b`: `"a\\\"b"`,
	} {
		if got := Quote(arg); got != want {
			t.Errorf("Quote(%q) = %s, want %s", arg, got, want)
		}
	}
}

// Join and Split are each other's inverse.
func FuzzJoinSplit(f *testing.F) {
	f.Add("prog", "a b", `c"d`, `e\`)
	f.Add(`C:\Program Files\x.exe`, `\\"`, "", "\t")
	f.Fuzz(func(t *testing.T, prog, a, b, c string) {
		args := []string{prog, a, b, c}
		line, err := Join(args)
		if err != nil {
			return
		}
		if got := Split(line); !slices.Equal(got, args) {
			t.Fatalf("Split(Join(%q)) = %q (line %s)", args, got, line)
		}
	})
}
