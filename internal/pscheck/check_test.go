package pscheck

import (
	"os"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/parse/powershell"
	"github.com/cordonsh/cordon/shim"
)

// allow is what cordon's PowerShell scripts may call: each entry exists
// in Windows PowerShell 5.1 (PSReadLine 2.0) and in PowerShell 7, except
// where a script picks it only on PowerShell 7 (SafeSocketHandle, for
// Linux and macOS).
var allow = &Allow{
	Commands: []string{
		// cmdlets
		"Export-ModuleMember", "Get-ChildItem", "Get-Command", "Get-Content", "Get-FileHash", "Get-Item",
		"Get-Module", "Get-PSReadLineKeyHandler", "Get-PSReadLineOption", "Invoke-RestMethod", "Invoke-WebRequest",
		"Join-Path", "New-Item", "New-Module", "Out-Null", "Remove-Item", "Remove-Variable", "Set-Content",
		"Set-PSReadLineKeyHandler", "Set-Variable", "New-Variable", "Split-Path", "Test-Path", "Write-Host", "Add-Content",
		"Copy-Item", "Expand-Archive", "Resolve-Path", "Select-Object", "Where-Object", "ForEach-Object",
		"Get-Location", "Set-Location", "Push-Location", "Pop-Location", "Write-Output", "Move-Item", "Sort-Object", "Out-File",
		"New-ItemProperty", "Set-PSReadLineOption",
		// programs
		"go", "git", "fsutil",
		// .NET static members and constructors
		"[System.Management.Automation.ScriptBlock]::Create", "[System.Net.Sockets.SafeSocketHandle]::new",
		"[System.Net.Sockets.Socket]::new", "[System.Net.Sockets.NetworkStream]::new",
		"[System.IO.Pipes.NamedPipeClientStream]::new", "[System.IO.BufferedStream]::new",
		"[System.Text.UTF8Encoding]::new", "[System.Exception]::new", "[System.Management.Automation.ErrorRecord]::new",
		"[Microsoft.PowerShell.PSConsoleReadLine]::GetBufferState", "[Microsoft.PowerShell.PSConsoleReadLine]::AddLine",
		"[Microsoft.PowerShell.PSConsoleReadLine]::AcceptLine", "[Microsoft.PowerShell.PSConsoleReadLine]::AddToHistory",
		"[Microsoft.PowerShell.PSConsoleReadLine]::Replace", "[System.Management.Automation.Language.Parser]::ParseInput",
		"[System.Collections.Generic.List[string]]::new", "[System.IO.MemoryStream]::new", "[System.Environment]::Exit",
		"[System.Console]::Error.Write", "[System.Console]::Error.WriteLine",
		"[System.Array]::Reverse", "[System.IO.Path]::GetTempPath", "[System.Guid]::NewGuid",
		"[System.IO.Path]::Combine", "[System.Environment]::GetEnvironmentVariable", "[System.Environment]::SetEnvironmentVariable",
		"[System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture",
	},
	Methods: []string{
		"Connect", "Write", "Flush", "ReadByte", "WriteByte", "GetBytes", "GetString", "ToArray", "Add",
		"StartsWith", "Substring", "GetNewClosure", "Split", "Trim", "TrimEnd", "ToLower", "ToUpper", "Contains",
		"Replace", "EndsWith", "Join", "IndexOf", "WriteError", "WriteLine", "TrimStart", "ToLowerInvariant", "GetValue", "Invoke",
	},
}

// TestShippedScripts checks every PowerShell script cordon ships or
// makes: install.ps1, and the set-up of a judged terminal as cordon
// fills it in, for both PowerShells.
func TestShippedScripts(t *testing.T) {
	data, err := os.ReadFile("../../install.ps1")
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string]string{"install.ps1": string(data)}
	for _, channel := range []string{"cordon-00112233445566778899aabbccddeeff", "fd:11"} {
		scripts["set-up, "+channel] = shim.PowerShellSetup(channel, "")
	}
	for name, src := range scripts {
		for _, core := range []bool{false, true} {
			for _, p := range Check(src, core, allow) {
				t.Errorf("%s (core %v): %s", name, core, p)
			}
		}
	}
}

// TestSetupCaller shows that the caller's own -Command reaches the
// set-up whole, whatever quotes it holds: PowerShell's parser, reading
// the script cordon makes, finds the caller's commands in it.
func TestSetupCaller(t *testing.T) {
	for _, c := range []struct{ caller, want string }{
		{`. "c:\Users\dev\.vscode\bin\shellIntegration.ps1"`, `c:\Users\dev\.vscode\bin\shellIntegration.ps1`},
		{`Write-Host 'it''s' ; Get-Item "c:\it’s ‘odd’"`, `Get-Item c:\it’s ‘odd’`},
		{"Get-ChildItem '@CHANNEL@'\n# '@CALLER@' ' \u201b", `Get-ChildItem @CHANNEL@`},
	} {
		src := shim.PowerShellSetup("cordon-x", c.caller)
		if _, _, err := Split(src); err != nil {
			t.Errorf("caller %q: %v", c.caller, err)
			continue
		}
		res := powershell.Commands(src, &powershell.Config{})
		var got []string
		for _, cmd := range res.Commands {
			line := cmd.Name
			for _, a := range cmd.Args {
				line += " " + a.String()
			}
			got = append(got, line)
		}
		if len(res.Problems) > 0 || !strings.Contains(strings.Join(got, "\n"), c.want) {
			t.Errorf("caller %q: commands %q, problems %v; want %q among them", c.caller, got, res.Problems, c.want)
		}
	}
}

// TestCheckFinds shows that Check can fail: it finds each mistake it is
// meant to find.
func TestCheckFinds(t *testing.T) {
	for src, want := range map[string]string{
		"Write-Host $undefined":                                "uses $undefined",
		"$x = 1; Write-Host \"$x and $y\"":                     "uses $y",
		"Remove-ItemX c:\\x":                                   "calls Remove-ItemX",
		"[System.IO.File]::Delete('c:\\x')":                    "calls [System.IO.File]::Delete",
		"$p = 1; $p.Dispose()":                                 "the method Dispose",
		"if ($true) { Write-Host 'x' ":                         "unclosed {",
		"Write-Host 'x":                                        "unterminated '",
		"Write-Host (1 +":                                      "unclosed (",
		"foreach ($i in 1..3) { Write-Host $i }; $j = 0; $j++": "",
		"function F([string]$Message) { Write-Host $Message }": "",
	} {
		got := strings.Join(Check(src, true, allow), "\n")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("Check(%q) = %q; want %q", src, got, want)
		}
	}
}

// TestSplit shows that Split can fail, and what it blanks.
func TestSplit(t *testing.T) {
	for _, bad := range []string{"function f {", "if ($a) { 'x' ))", `"unterminated`, "@\"\nhere\n", "'a''", "<# open", "\u2018a"} {
		if _, _, err := Split(bad); err == nil {
			t.Errorf("Split(%q): no error", bad)
		}
	}
	code, strs, err := Split("# a comment {\n$x = 'it''s {' + \"a `\" $($y) }\" <# ( #>\n@\"\n{ here\n\"@\n$z = \u2018a {\u2019\u2019 b\u2019")
	if err != nil || strings.ContainsAny(code, "{}()") || len(strs) != 2 {
		t.Errorf("Split: code %q, strings %q, %v", code, strs, err)
	}
}
