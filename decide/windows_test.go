package decide

import (
	"strings"
	"testing"

	"github.com/cordonsh/cordon/internal/testenv"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

func TestDecodeWindows(t *testing.T) {
	tests := []struct {
		line    string
		shell   string
		mode    invocation.Mode
		dialect parse.Dialect
		script  string
		delayed bool
	}{
		{`C:\Windows\System32\cmd.exe /d /s /c "npm run build && echo "done""`, "cmd", invocation.ModeCommand, parse.Cmd, `npm run build && echo "done"`, false},
		{`cmd.exe /c "git status"`, "cmd", invocation.ModeCommand, parse.Cmd, `git status`, false},
		{`cmd /D/S/C "x"`, "cmd", invocation.ModeCommand, parse.Cmd, `x`, false},
		{`cmd /cdir`, "cmd", invocation.ModeCommand, parse.Cmd, `dir`, false},
		{`cmd /E:ON /V:ON /C "echo !x!"`, "cmd", invocation.ModeCommand, parse.Cmd, `echo !x!`, true},
		{`CMD.EXE /K "x"`, "cmd", invocation.ModeCommand, parse.Cmd, `x`, false},
		{`cmd.exe`, "cmd", invocation.ModeInteractive, parse.Cmd, ``, false},
		{`pwsh -NoProfile -NonInteractive -Command "Get-ChildItem"`, "pwsh", invocation.ModeCommand, parse.PowerShell, `Get-ChildItem`, false},
		{`powershell.exe -nop -c Write-Output "a b"`, "powershell", invocation.ModeCommand, parse.PowerShell, `Write-Output a b`, false},
		{`powershell.exe Get-Date`, "powershell", invocation.ModeCommand, parse.PowerShell, `Get-Date`, false},
		{`pwsh script.ps1 a`, "pwsh", invocation.ModeFile, parse.PowerShell, ``, false},
		{`pwsh -Command -`, "pwsh", invocation.ModeStdin, parse.PowerShell, ``, false},
		{`pwsh.exe --version`, "pwsh", invocation.ModeInfo, parse.PowerShell, ``, false},
		{`pwsh -NoExit -Command ". x.ps1"`, "pwsh", invocation.ModeCommand, parse.PowerShell, `. x.ps1`, false},
		{"pwsh -EncodedCommand " + testenv.EncodeUTF16("Remove-Item x"), "pwsh", invocation.ModeCommand, parse.PowerShell, "Remove-Item x", false},
		{`"C:\Program Files\Git\bin\bash.exe" -c "ls /c/Users"`, "bash", invocation.ModeCommand, parse.Bash, `ls /c/Users`, false},
		{`C:\Windows\System32\reg.exe add HKLM\x /f`, "", invocation.ModeExec, parse.Bash, ``, false},
	}
	for _, tt := range tests {
		inv, err := invocation.DecodeWindows(tt.line)
		if err != nil {
			t.Errorf("invocation.DecodeWindows(%q): %v", tt.line, err)
			continue
		}
		if inv.Shell != tt.shell || inv.Mode != tt.mode || inv.Dialect != tt.dialect || inv.Script != tt.script || inv.Delayed != tt.delayed {
			t.Errorf("invocation.DecodeWindows(%q) = shell %q mode %v dialect %v script %q delayed %v; want %q %v %v %q %v",
				tt.line, inv.Shell, inv.Mode, inv.Dialect, inv.Script, inv.Delayed, tt.shell, tt.mode, tt.dialect, tt.script, tt.delayed)
		}
	}
}

// TestCheckWindowsBadInput: what cannot be decoded, read or followed is
// asked about, with the reason, never allowed and never a crash.
func TestCheckWindowsBadInput(t *testing.T) {
	deep := `rd /s /q C:\Users\dev`
	for range 14 {
		deep = "cmd /c " + deep
	}
	deepPS := `Remove-Item C:\Users\dev`
	for range 7 {
		deepPS = "powershell -EncodedCommand " + testenv.EncodeUTF16(deepPS)
	}
	deepPS = "pwsh -c " + strings.Repeat("iex '", 1) + strings.ReplaceAll(deepPS, "'", "''") + "'"
	tests := []struct{ line, reason string }{
		{`pwsh -EncodedCommand !!!notbase64`, "base64"},
		{"pwsh -enc A", "base64"},
		{`pwsh -e QUJD`, "UTF-16"},
		{`cmd /Z /c dir`, "cmd.exe"},
		{`pwsh -no x`, "ambiguous"},
		{`pwsh -File C:\work\proj\nope.ps1`, "cannot be read"},
		{`cmd /c echo "unterminated & rd /s /q C:\Users`, ""},
		{`pwsh -c "Remove-Item 'unterminated`, ""},
		{`cmd /c call C:\work\proj\build.bat`, ""},
		{deep, "nested"},
		{deepPS, ""},
		{`pwsh -Command -`, "standard input"},
	}
	for _, tt := range tests {
		j, err := CheckWindows(tt.line, `C:\work\proj`, windowsScenarioEnv)
		if err != nil {
			t.Errorf("CheckWindows(%.60q): %v", tt.line, err)
			continue
		}
		if j.Verdict == rules.Allow {
			t.Errorf("CheckWindows(%.60q) allowed: %+v", tt.line, j.Reasons)
			continue
		}
		var msgs []string
		for _, r := range j.Reasons {
			msgs = append(msgs, r.Message)
		}
		if all := strings.Join(msgs, "\n"); !strings.Contains(all, tt.reason) {
			t.Errorf("CheckWindows(%.60q): reasons %q do not mention %q", tt.line, all, tt.reason)
		}
	}
}
