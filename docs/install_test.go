package docs

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// install.ps1 cannot be run here (no PowerShell): this reads it the way
// PowerShell's tokenizer would, far enough to catch what breaks a script
// before it runs: unbalanced brackets and strings, and shell-isms that
// Windows PowerShell 5.1 rejects or reads otherwise.
func TestInstallPS1(t *testing.T) {
	data, err := os.ReadFile("../install.ps1")
	if err != nil {
		t.Fatal(err)
	}
	code, strs, err := splitPS1(string(data))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(code, "\n") {
		for _, bad := range []struct{ re, why string }{
			{`&&|\|\|`, "&& and || are PowerShell 7 only: Windows PowerShell 5.1 rejects them"},
			{`/dev/null|\bexport\s|\bfi\b|\bdone\b|\bthen\b|\[\[`, "a POSIX shell construct"},
			{`\\\s*$`, "a line continued with \\ (PowerShell's is a backtick)"},
			{`\bexit\b`, "exit closes the window that piped the script to iex: throw, or return"},
			{`\$\?\s*-`, "$? is a boolean in PowerShell, not a status"},
		} {
			if regexp.MustCompile(bad.re).MatchString(line) {
				t.Errorf("install.ps1:%d: %s:\n%s", i+1, bad.why, line)
			}
		}
	}
	// "$name:" in a double-quoted string is a scope-qualified variable
	// ($env:X), an error for any other name.
	scoped := regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*):`)
	for _, s := range strs {
		for _, m := range scoped.FindAllStringSubmatch(s, -1) {
			switch strings.ToLower(m[1]) {
			case "env", "script", "global", "local", "private", "using", "function", "variable":
			default:
				t.Errorf("install.ps1: %q in %q: write ${%s}:", m[0], s, m[1])
			}
		}
	}
	for _, want := range []string{"param(", "[switch]$Uninstall", "Get-FileHash -Algorithm SHA256", "checksums.txt", "cordon_windows_${arch}.zip", "CORDON_DOWNLOAD_URL", "releases/latest/download", "HardLink", "Remove-Installed"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("install.ps1 has no %q", want)
		}
	}
}

// TestSplitPS1 shows that the reader above can fail: it finds the
// mistakes it is meant to find.
func TestSplitPS1(t *testing.T) {
	for _, bad := range []string{"function f {", "if ($a) { 'x' ))", `"unterminated`, "@\"\nhere\n", "'a''", "<# open"} {
		if _, _, err := splitPS1(bad); err == nil {
			t.Errorf("splitPS1(%q): no error", bad)
		}
	}
	code, strs, err := splitPS1("# a comment {\n$x = 'it''s {' + \"a `\" $($y) }\" <# ( #>\n@\"\n{ here\n\"@\n")
	if err != nil || strings.ContainsAny(code, "{}()") || len(strs) != 2 {
		t.Errorf("splitPS1: code %q, strings %q, %v", code, strs, err)
	}
}

// splitPS1 splits a PowerShell script into its code (strings and
// comments blanked) and its double-quoted strings, and checks that
// brackets balance in the code.
func splitPS1(src string) (code string, strs []string, err error) {
	var b strings.Builder
	var stack []byte
	pairs := map[byte]byte{')': '(', '}': '{', ']': '['}
	line := 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
			b.WriteByte(c)
		case c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			i += j - 1
		case strings.HasPrefix(src[i:], "<#"):
			j := strings.Index(src[i:], "#>")
			if j < 0 {
				return "", nil, errorf(line, "unterminated <# comment")
			}
			line += strings.Count(src[i:i+j], "\n")
			i += j + 1
		case strings.HasPrefix(src[i:], "@\"\n") || strings.HasPrefix(src[i:], "@'\n"):
			end := "\n" + string(src[i+1]) + "@"
			j := strings.Index(src[i+3:], end)
			if j < 0 {
				return "", nil, errorf(line, "unterminated here-string")
			}
			if src[i+1] == '"' {
				strs = append(strs, src[i+3:i+3+j])
			}
			line += strings.Count(src[i:i+3+j+len(end)], "\n")
			i += 2 + j + len(end)
			b.WriteString(`""`)
		case c == '\'':
			j := i + 1
			for ; j < len(src); j++ {
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(src) {
				return "", nil, errorf(line, "unterminated '")
			}
			line += strings.Count(src[i:j], "\n")
			i = j
			b.WriteString("''")
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '`' {
					j++
				}
			}
			if j >= len(src) {
				return "", nil, errorf(line, "unterminated \"")
			}
			strs = append(strs, src[i+1:j])
			line += strings.Count(src[i:j], "\n")
			i = j
			b.WriteString(`""`)
		default:
			switch c {
			case '(', '{', '[':
				stack = append(stack, c)
			case ')', '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != pairs[c] {
					return "", nil, errorf(line, "unbalanced "+string(c))
				}
				stack = stack[:len(stack)-1]
			}
			b.WriteByte(c)
		}
	}
	if len(stack) > 0 {
		return "", nil, errorf(line, "unclosed "+string(stack[len(stack)-1]))
	}
	return b.String(), strs, nil
}

func errorf(line int, msg string) error { return fmt.Errorf("install.ps1:%d: %s", line, msg) }
