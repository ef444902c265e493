package shim

import (
	"strings"
	"testing"

	"github.com/cordonsh/cordon/winargs"
)

// TestPowerShellLaunch: the argv cordon starts the real PowerShell with,
// for the command lines VS Code, Cursor, Windows Terminal and JetBrains
// IDEs start a terminal's PowerShell with (golden), and that on Windows
// it reaches PowerShell whole: joined into a command line and read back
// as PowerShell reads it, the set-up script is -Command's text, byte for
// byte, and -NoExit is on.
func TestPowerShellLaunch(t *testing.T) {
	const channel = "cordon-00112233445566778899aabbccddeeff"
	for _, c := range []struct {
		who, cmdline string
		keep         []string // the options kept, before -NoExit -Command
		caller       string   // what the set-up runs first
	}{
		{"VS Code, Windows PowerShell", `C:\WINDOWS\System32\WindowsPowerShell\v1.0\powershell.exe -noexit -command "try { . \"c:\Program Files\Microsoft VS Code\resources\app\out\vs\workbench\contrib\terminal\common\scripts\shellIntegration.ps1\" } catch {}"`,
			nil, `try { . "c:\Program Files\Microsoft VS Code\resources\app\out\vs\workbench\contrib\terminal\common\scripts\shellIntegration.ps1" } catch {}`},
		{"VS Code, login pwsh", `pwsh.exe -l -noexit -command "try { . \"c:\vscode\shellIntegration.ps1\" } catch {}"`,
			[]string{"-l"}, `try { . "c:\vscode\shellIntegration.ps1" } catch {}`},
		{"VS Code, pwsh on Linux and macOS", `pwsh -noexit -command ". \"/usr/share/code/resources/app/out/vs/workbench/contrib/terminal/common/scripts/shellIntegration.ps1\""`,
			nil, `. "/usr/share/code/resources/app/out/vs/workbench/contrib/terminal/common/scripts/shellIntegration.ps1"`},
		{"VS Code or Cursor, no integration", `pwsh.exe`, nil, ``},
		{"Windows Terminal", `pwsh.exe -NoLogo`, []string{"-NoLogo"}, ``},
		{"Windows Terminal, Windows PowerShell", `%SystemRoot%\System32\WindowsPowerShell\v1.0\powershell.exe -NoProfile -ExecutionPolicy Bypass`,
			[]string{"-NoProfile", "-ExecutionPolicy", "Bypass"}, ``},
		{"JetBrains", `powershell.exe -NoExit -ExecutionPolicy Bypass -File "C:\Program Files\JetBrains\IntelliJ IDEA\plugins\terminal\shell-integrations\powershell\powershell-integration.ps1"`,
			[]string{"-ExecutionPolicy", "Bypass"}, `. 'C:\Program Files\JetBrains\IntelliJ IDEA\plugins\terminal\shell-integrations\powershell\powershell-integration.ps1'`},
		{"an encoded command kept open", `pwsh -NoExit -EncodedCommand VwByAGkAdABlAC0ASABvAHMAdAAgAGgAaQA= -NoLogo`,
			[]string{"-NoLogo"}, `Write-Host hi`},
		{"a file kept open, with arguments", `pwsh -noe -f C:\s\x.ps1 -Name "a b" it's`,
			nil, `. 'C:\s\x.ps1' -Name 'a b' 'it''s'`},
	} {
		args := winargs.Split(c.cmdline)
		pwsh := !strings.Contains(strings.ToLower(args[0]), `powershell.exe`)
		got, err := PowerShellLaunch(args[1:], pwsh, channel)
		if err != nil {
			t.Errorf("%s: %v", c.who, err)
			continue
		}
		want := append(append([]string{}, c.keep...), "-NoExit", "-Command", PowerShellSetup(channel, c.caller))
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s: %q\nstarts the real shell with %q\nwant %q", c.who, c.cmdline, short(got), short(want))
			continue
		}
		line, err := winargs.Join(append([]string{`C:\Program Files\PowerShell\7\pwsh.exe`}, got...))
		if err != nil {
			t.Fatal(err)
		}
		call, err := winargs.PowerShell(winargs.Split(line)[1:], pwsh)
		if err != nil || !call.NoExit || call.Command != PowerShellSetup(channel, c.caller) {
			t.Errorf("%s: the command line %q reads back as %+v, %v", c.who, short([]string{line}), call, err)
		}
	}
	for _, bad := range []string{"-CommandWithArgs x", "-Version", "-Bogus"} {
		if _, err := PowerShellLaunch(strings.Fields(bad), true, channel); err == nil {
			t.Errorf("pwsh %s: started", bad)
		}
	}
}

// short abbreviates the set-up script in args.
func short(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 200 {
			a = a[:60] + "..." + a[len(a)-60:]
		}
		out[i] = a
	}
	return out
}
