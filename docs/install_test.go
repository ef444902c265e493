package docs

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/internal/pscheck"
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
	code, strs, err := pscheck.Split(string(data))
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
	// Piped to iex, the script runs in the caller's session: after its
	// parameters, everything is one script block run with &, so none of
	// its variables and functions stay there.
	body := strings.TrimSpace(code)
	if i := strings.Index(body, "param("); i >= 0 {
		depth := 0
		for j := i + len("param"); j < len(body); j++ {
			if body[j] == '(' {
				depth++
			}
			if body[j] == ')' {
				depth--
			}
			if depth == 0 {
				body = strings.TrimSpace(body[j+1:])
				break
			}
		}
	}
	if !strings.HasPrefix(body, "& {") || !strings.HasSuffix(body, "}") {
		t.Errorf("install.ps1: after param(...), the script is not one script block run with & (it starts %.40q)", body)
	}
	for _, want := range []string{"param(", "[switch]$Uninstall", "Move-Aside", "Add-UserPath", "DoNotExpandEnvironmentNames", "Get-FileHash -Algorithm SHA256", "checksums.txt", "cordon_windows_${arch}.zip", "CORDON_DOWNLOAD_URL", "releases/latest/download", "HardLink", "Remove-Installed"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("install.ps1 has no %q", want)
		}
	}
}
