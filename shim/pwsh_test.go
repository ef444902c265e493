package shim

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/testenv"
	"github.com/cordonsh/cordon/tamper"
	"github.com/cordonsh/cordon/termhook"
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

// psRun is a run of the pwsh shim judging Windows lines (on any system:
// paths are Windows', not looked up), with its state in a directory of
// the test's.
func psRun(t *testing.T) *run {
	t.Helper()
	tmp := t.TempDir()
	env := []string{`USERPROFILE=C:\Users\dev`, "XDG_STATE_HOME=" + tmp, "XDG_CONFIG_HOME=" + tmp, "HOME=" + tmp}
	return &run{argv: []string{"pwsh.exe"}, env: env, name: "pwsh",
		ctx: &decide.Context{Dir: `C:\Users\dev\src\app`, Env: env, Getenv: decide.WinLookup(env), Settings: &config.Config{}}}
}

// TestPSTerminalJudge: each line entered in a judged PowerShell gets the
// answer the handler acts on: run for what the rules allow, in the
// directory the handler reports; refuse, with cordon's paragraph, for
// what they refuse and for a line that would switch the handler off.
func TestPSTerminalJudge(t *testing.T) {
	r := psRun(t)
	answer := r.psAnswer(true)
	for _, c := range []struct {
		cwd, text, verdict, message string
	}{
		{`C:\Users\dev\src\app`, "Get-ChildItem", termhook.Run, ""},
		{`C:\Users\dev\src\app`, "  ", termhook.Run, ""},
		{`C:\Users\dev\src\app`, "git status\nGet-Content README.md", termhook.Run, ""},
		{`C:\Users\dev\src\app`, `Remove-Item -Recurse -Force C:\Users\dev`, termhook.Refuse, "cordon: refused ("},
		{`C:\Users\dev`, `Remove-Item -Recurse -Force .`, termhook.Refuse, "cordon: refused ("},
		{`C:\Users\dev\src\app`, "Remove-PSReadLineKeyHandler -Chord Enter", termhook.Refuse, "[rule terminal-hook]"},
		{`C:\Users\dev\src\app`, "Set-PSReadLineKeyHandler Enter AcceptLine", termhook.Refuse, "it names psreadline"},
		{`C:\Users\dev\src\app`, "Get-Module | rmo", termhook.Refuse, "rmo"},
		{`C:\Users\dev\src\app`, "Remove-Item Function:\\PSCon*", termhook.Refuse, "[rule terminal-hook]"},
		{`C:\Users\dev\src\app`, "Set-Variable __CordonRefused 1", termhook.Refuse, "__cordon"},
		// A drive named by a pattern, which PowerShell resolves.
		{`C:\Users\dev\src\app`, "Remove-Item Func*:\\*", termhook.Refuse, "matches function:"},
		{`C:\Users\dev\src\app`, "ri F[u]nction:\\* -Force", termhook.Refuse, "matches function:"},
		{`C:\Users\dev\src\app`, "Get-ChildItem Va?iable:\\ | Remove-Variable", termhook.Refuse, "matches variable:"},
		{`C:\Users\dev\src\app`, "Remove-Item ('Fu' + '*:\\*')", termhook.Refuse, "matches function:"},
		{`C:\Users\dev\src\app`, "ipmo PSRead* -Force", termhook.Refuse, "matches psreadline"},
		{`C:\Users\dev\src\app`, "Get-Module PS?eadLine | Remove-Item", termhook.Refuse, "matches psreadline"},
		{`C:\Users\dev\src\app`, "& (Get-Command Remove-PSR*Handler) -Chord Enter", termhook.Refuse, "matches remove-psreadlinekeyhandler"},
		{`C:\Users\dev\src\app`, "Get-ChildItem *.ps1", termhook.Run, ""},
		{`C:\Users\dev\src\app`, "Get-ChildItem -Recurse -Filter *", termhook.Run, ""},
		{`C:\Users\dev\src\app`, "Get-ChildItem C:\\src\\*.go", termhook.Run, ""},
		{`C:\Users\dev\src\app`, "Select-String -Pattern 'TODO*:' README.md", termhook.Run, ""},
		{`C:\Users\dev\src\app`, "$ExecutionContext.InvokeCommand.InvokeScript('x')", termhook.Refuse, "executioncontext"},
		{`C:\Users\dev\src\app`, "& ('Remove-PSRead' + 'LineKeyHandler') Enter", termhook.Refuse, "it names psreadline"},
		{`C:\Users\dev\src\app`, "$m = 'rm' + 'o'; Get-Module | & $m", termhook.Refuse, "remove-module"},
		{`C:\Users\dev\src\app`, "iex ([Text.Encoding]::Unicode.GetString([Convert]::FromBase64String('" + testenv.EncodeUTF16("Remove-Module PSReadLine") + "')))", termhook.Refuse, "[rule terminal-hook]"},
	} {
		a := answer(termhook.Line{Seq: "1", Cwd: c.cwd, Text: c.text})
		if a.Verdict != c.verdict || !strings.Contains(a.Message, c.message) || (c.verdict == termhook.Run) != (a.Message == "") {
			t.Errorf("in %s, %q: %s %q; want %s %q", c.cwd, c.text, a.Verdict, a.Message, c.verdict, c.message)
		}
	}
	if a := answer(termhook.Line{Seq: "1", TooLarge: true}); a.Verdict != termhook.Refuse {
		t.Errorf("a line too large: %v", a)
	}
}

// TestPSTerminalWire: the bytes the set-up script's handler writes (its
// hello and its line requests, built as pwsh_setup.ps1 builds them) are
// what termhook serves, and each answer comes back with the line's
// sequence number. A request cut off by a broken channel is never
// judged, so its line never runs; the handler then reads the end of the
// stream, which it takes for a refusal.
func TestPSTerminalWire(t *testing.T) {
	for _, part := range []string{
		`'hello' + [char]0 + 'pwsh' + [char]0 + '` + termhook.Version + `' + [char]0`,
		`'line' + $z + $seq + $z + $where + $z + $line + $z`,
		`$z = [string][char]0`,
	} {
		if !strings.Contains(pwshSetup, part) {
			t.Errorf("pwsh_setup.ps1 no longer writes %s: the test below sends what it no longer sends", part)
		}
	}
	r := psRun(t)
	judged := 0
	answer := r.psAnswer(true)
	server, client := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- termhook.Serve(server, func(termhook.Hello) error { return nil }, func(l termhook.Line) termhook.Answer {
			judged++
			return answer(l)
		})
		server.Close()
	}()
	z := "\x00"
	go io.WriteString(client, "hello"+z+"pwsh"+z+termhook.Version+z+
		"line"+z+"1"+z+`C:\Users\dev\src\app`+z+"Get-ChildItem"+z+
		"line"+z+"2"+z+`C:\Users\dev\src\app`+z+`Remove-Item -Recurse C:\Users\dev`+z)
	rd := bufio.NewReader(client)
	for _, want := range []string{"run" + z + "1" + z + z, "refuse" + z + "2" + z + "cordon: refused ("} {
		var got string
		for range 3 {
			f, err := rd.ReadString(0)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			got += f
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("answer %q; want it to start %q", got, want)
		}
	}
	// The channel breaks in the middle of a request.
	io.WriteString(client, "line"+z+"3"+z+`C:\Users\dev\src\app`+z+"Get-Chi")
	client.Close()
	if err := <-done; err == nil {
		t.Error("Serve: a request cut off is no error")
	}
	if judged != 2 {
		t.Errorf("%d lines judged; want 2 (the cut-off one never)", judged)
	}
}

// TestPSHandlerAccepts reads the handler in pwsh_setup.ps1: it accepts
// the buffer (AcceptLine) only when cordon answered run, or after putting
// the refusal call in its place; any other outcome (no answer, an
// unknown one, a broken channel) leaves $verdict at refuse.
func TestPSHandlerAccepts(t *testing.T) {
	s := pwshSetup
	if n := strings.Count(s, "::AcceptLine()"); n != 2 {
		t.Errorf("AcceptLine is called %d times; this test knows two", n)
	}
	for _, ordered := range [][]string{
		{"$verdict = 'refuse'", "try {", "if ($fields[0] -ceq 'run' -or $fields[0] -ceq 'more') {", "$verdict = $fields[0]", "catch {", "if ($verdict -ceq 'run') {", "::AcceptLine()"},
		{"elseif ($verdict -ceq 'more') {", "::AddLine()", "else {", "::Replace(0, $line.Length, '& $__CordonRefused')", "::AcceptLine()"},
		{"catch {", "[System.Environment]::Exit(126)"},
	} {
		at := 0
		for _, part := range ordered {
			i := strings.Index(s[at:], part)
			if i < 0 {
				t.Errorf("pwsh_setup.ps1: %q does not follow in order (after %q)", part, ordered)
				break
			}
			at += i + len(part)
		}
	}
}

// BenchmarkPSTerminalLine: the time to answer one entered line (the
// judge, the audit log), what a person waits for after Enter.
func BenchmarkPSTerminalLine(b *testing.B) {
	tmp := b.TempDir()
	env := []string{`USERPROFILE=C:\Users\dev`, "XDG_STATE_HOME=" + tmp, "XDG_CONFIG_HOME=" + tmp, "HOME=" + tmp}
	r := &run{argv: []string{"pwsh.exe"}, env: env, name: "pwsh",
		ctx: &decide.Context{Dir: `C:\Users\dev\src\app`, Env: env, Getenv: decide.WinLookup(env), Settings: &config.Config{}}}
	answer := r.psAnswer(true)
	for b.Loop() {
		if a := answer(termhook.Line{Seq: "1", Cwd: `C:\Users\dev\src\app`, Text: "Get-ChildItem -Recurse src | Select-String TODO"}); a.Verdict != termhook.Run {
			b.Fatal(a)
		}
	}
}

// BenchmarkPowerShellLaunch: making the real shell's argv.
func BenchmarkPowerShellLaunch(b *testing.B) {
	args := []string{"-noexit", "-command", `try { . "c:\vscode\shellIntegration.ps1" } catch {}`}
	for b.Loop() {
		if _, err := PowerShellLaunch(args, true, "cordon-00112233445566778899aabbccddeeff"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPSHijack: the tampering check's share of a line's answer.
func BenchmarkPSHijack(b *testing.B) {
	for b.Loop() {
		if why := tamper.HijackPS("Get-ChildItem -Recurse src | Select-String TODO", true); why != "" {
			b.Fatal(why)
		}
	}
}
