package winargs

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// encode is what -EncodedCommand wants: base64 of UTF-16LE.
func encode(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestPowerShell(t *testing.T) {
	claude := "git status\n; $_ec = if ($null -ne $LASTEXITCODE) { $LASTEXITCODE } else { 0 }"
	for _, c := range []struct {
		line    string
		pwsh    bool
		command string
		file    string
		args    []string
		stdin   bool
		encoded bool
	}{
		{`pwsh -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "Remove-Item -Recurse C:\x"`, true, `Remove-Item -Recurse C:\x`, "", nil, false, false},
		{`pwsh -NoProfile -NonInteractive -EncodedCommand ` + encode(claude), true, claude, "", nil, false, true},
		{`powershell.exe -NoLogo -NoProfile -Command "[Console]::OutputEncoding=[System.Text.Encoding]::UTF8;Get-ChildItem"`, false, `[Console]::OutputEncoding=[System.Text.Encoding]::UTF8;Get-ChildItem`, "", nil, false, false},
		// -Command takes the rest, joined after the split.
		{`pwsh -c Write-Output "a b"`, true, `Write-Output a b`, "", nil, false, false},
		{`powershell.exe -Command & 'C:\my tool.exe' 'a b'`, false, `& 'C:\my tool.exe' 'a b'`, "", nil, false, false},
		{`pwsh -Command -`, true, "", "", nil, true, false},
		// Spellings.
		{`pwsh /Command x`, true, "x", "", nil, false, false},
		{`pwsh --command x`, true, "x", "", nil, false, false},
		{`pwsh -com x`, true, "x", "", nil, false, false},
		{"pwsh \u2013Command x", true, "x", "", nil, false, false},
		{`pwsh -nop -noni -ep Bypass -w hidden -c x`, true, "x", "", nil, false, false},
		{`powershell -ex Bypass -NoLogo -e ` + encode("Get-Date"), false, "Get-Date", "", nil, false, true},
		{`powershell -ec ` + encode("Get-Date"), false, "Get-Date", "", nil, false, true},
		{`pwsh -EncodedC ` + encode("Get-Date"), true, "Get-Date", "", nil, false, true},
		// Defaults: pwsh runs a file, powershell.exe a command.
		{`pwsh script.ps1 a b`, true, "", "script.ps1", []string{"a", "b"}, false, false},
		{`powershell.exe Get-Date -Format o`, false, "Get-Date -Format o", "", nil, false, false},
		{`pwsh -File x.ps1 -Arg v`, true, "", "x.ps1", []string{"-Arg", "v"}, false, false},
		{`pwsh -CommandWithArgs '$args' a b`, true, "'$args'", "", []string{"a", "b"}, false, false},
	} {
		args := Split(c.line)[1:]
		got, err := PowerShell(args, c.pwsh)
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if got.Command != c.command || got.File != c.file || !slices.Equal(got.Args, c.args) || got.Stdin != c.stdin || got.Encoded != c.encoded {
			t.Errorf("%s:\n got %+v\nwant command %q file %q args %q stdin %v encoded %v", c.line, got, c.command, c.file, c.args, c.stdin, c.encoded)
		}
	}
	got, _ := PowerShell(Split(`pwsh -NoProfile -NonInteractive -NoExit -wd C:\w -c x`)[1:], true)
	if !got.NoProfile || !got.NonInteractive || !got.NoExit || got.WorkingDirectory != `C:\w` {
		t.Errorf("switches: %+v", got)
	}
	if got, _ := PowerShell([]string{"--version"}, true); !got.ShowVersion {
		t.Errorf("--version: %+v", got)
	}
}

// What PowerShell would refuse, or read in a way cordon cannot tell, is
// an error: -no is ambiguous, a bad -EncodedCommand cannot be judged.
func TestPowerShellErrors(t *testing.T) {
	for _, line := range []string{
		`pwsh -no x`, `powershell -Frobnicate`, `pwsh -Command`, `pwsh -EncodedCommand`,
		`pwsh -EncodedCommand not*base64`, `pwsh -e ` + base64.StdEncoding.EncodeToString([]byte("odd")),
		`pwsh -e ` + encode("a") + ` -c b`,
	} {
		if c, err := PowerShell(Split(line)[1:], true); err == nil {
			t.Errorf("%s = %+v, want an error", line, c)
		}
	}
	if _, err := DecodeCommand("QQBC\nAEMA"); err != nil {
		t.Errorf("line breaks in base64: %v", err)
	}
	if s, _ := DecodeCommand(encode("a😀b")); s != "a😀b" {
		t.Errorf("surrogate pairs: %q", s)
	}
	if _, err := DecodeCommand("QQ=="); err == nil || !strings.Contains(err.Error(), "even") {
		t.Errorf("one byte: %v", err)
	}
}

func FuzzPowerShell(f *testing.F) {
	f.Add(`-nop -c "x y"`, true)
	f.Add(`-e QQBCAEMA`, false)
	f.Fuzz(func(t *testing.T, line string, pwsh bool) {
		PowerShell(Split("pwsh " + line)[1:], pwsh)
	})
}
