package winetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pwshTerminal runs cordon's Windows binary as an interactive pwsh.exe:
// the stand-in real pwsh (testdata/cmdline with CMDLINE_TERMINAL=1)
// plays the confined shell's Enter handler, connecting to the named
// pipe named in the set-up script on its command line, and prints the
// verdict on each line it sends. Every line is judged by cordon, on the
// host side of the pipe.
func pwshTerminal(t *testing.T, w *wine) {
	pwsh := filepath.Join(w.dir, "pwsh.exe")
	lines := []string{
		"Get-ChildItem",
		`Remove-Item -Recurse -Force C:\users`,
		"Set-PSReadLineKeyHandler -Chord Enter -Function AcceptLine",
		"",
	}
	want := []string{"run|", "refuse|cordon: refused (", "refuse|cordon: pwsh: this terminal does not run the line: it names psreadline", "run|"}
	// A shell-integration script shaped like VS Code's (which cordon does
	// not ship): it wraps the prompt and PSConsoleHostReadLine, and runs
	// an activation script from the environment when one is set.
	integration := filepath.Join(w.cwd, "shellIntegration.ps1")
	if err := os.WriteFile(integration, []byte(integrationPS1), 0o644); err != nil {
		t.Fatal(err)
	}
	vscode := `try { . "` + winPath(integration) + `" } catch {}`
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"no arguments, as Windows Terminal starts it", nil, []string{"-NoLogo"}},
		{"VS Code's shell integration", nil, []string{"-noexit", "-command", vscode}},
		{"a command kept open, as VS Code starts it", nil, []string{"-noexit", "-command", "Write-Output ready"}},
		{"the token backend", []string{"XDG_CONFIG_HOME=" + winPath(w.tokenConfig)}, []string{"-NoLogo"}},
	} {
		env := append([]string{"CMDLINE_TERMINAL=1", "CMDLINE_LINES=" + strings.Join(lines, "\x1e")}, c.env...)
		out, errOut, code := w.run(t, "", env, pwsh, c.args...)
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		ok := code == 0 && len(got) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = strings.HasPrefix(got[i], want[i])
		}
		if !ok {
			t.Errorf("%s: status %d, stdout %q, stderr %q\nwant status 0 and lines starting %q", c.name, code, out, errOut, want)
		}
	}

	t.Run("a refused command line starts no shell", func(t *testing.T) {
		out, errOut, code := w.run(t, "", []string{"CMDLINE_TERMINAL=1"}, pwsh, "-NoExit", "-Command", `Remove-Item -Recurse -Force C:\users`)
		if code != 126 || out != "" || !strings.Contains(errOut, "cordon: refused (") {
			t.Errorf("status %d, stdout %q, stderr %q; want 126 and the refusal", code, out, errOut)
		}
	})
}

// winePipe runs winpipe's tests (the named pipe's claims: a name taken
// before is refused, no second instance, the wrong client is refused)
// as a Windows program under wine.
func winePipe(t *testing.T, w *wine) {
	exe := filepath.Join(w.dir, "winpipe.test.exe")
	build(t, []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0"}, "go", "test", "-c", "-o", exe, "github.com/cordonsh/cordon/winpipe")
	out, errOut, code := w.run(t, "", nil, exe, "-test.v")
	if code != 0 || !strings.Contains(out, "--- PASS: TestPipePreCreated") || !strings.Contains(out, "--- PASS: TestPipeWrongClient") {
		t.Errorf("winpipe's tests under wine: status %d\n%s\n%s", code, out, errOut)
	}
}

// integrationPS1 is a shell-integration script of the kind VS Code
// injects, written for this test.
const integrationPS1 = `if ($Global:__TestIntegration) { return }
$Global:__TestIntegration = @{ OriginalPrompt = $function:Prompt }
if ($env:TEST_ACTIVATE) {
	try { Invoke-Expression $env:TEST_ACTIVATE } catch { Write-Host 'activation failed' }
}
function Global:Prompt() {
	$code = [int]!$global:?
	"$([char]0x1b)]633;A` + "`" + `a" + $Global:__TestIntegration.OriginalPrompt.Invoke() + "$([char]0x1b)]633;B` + "`" + `a"
}
if (Get-Module -Name PSReadLine) {
	$Global:__TestIntegration.ReadLine = $function:PSConsoleHostReadLine
	function Global:PSConsoleHostReadLine {
		$line = $Global:__TestIntegration.ReadLine.Invoke()
		[Console]::Write("$([char]0x1b)]633;E;$line` + "`" + `a")
		$line
	}
}
`
