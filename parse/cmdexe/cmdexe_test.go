package cmdexe

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// show writes a command as tests compare it: [via,via] arg·arg, then
// {dir}, <stdin index>, redirections and ! for unknown code. Unknown
// parts are "?".
func show(c Command) string {
	var b strings.Builder
	if len(c.Via) > 0 {
		fmt.Fprintf(&b, "[%s] ", strings.Join(c.Via, ","))
	}
	b.WriteString(strings.Join(c.Args, "·"))
	if c.Dir != "" {
		fmt.Fprintf(&b, " {%s}", c.Dir)
	}
	if c.StdinFrom >= 0 {
		fmt.Fprintf(&b, " <%d", c.StdinFrom)
	}
	for _, r := range c.Redirs {
		fmt.Fprintf(&b, " %d%s%s", r.Fd, r.Op, r.Target)
	}
	if c.UnknownCode {
		b.WriteString(" !")
	}
	return strings.ReplaceAll(b.String(), Unknown, "?")
}

func getenv(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for k, v := range env {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
}

var testEnv = map[string]string{"USERPROFILE": `C:\Users\me`, "TEMP": `C:\Users\me\AppData\Local\Temp`}

var testFiles = map[string]string{
	`C:\work\build.bat`: "@echo off\r\nsetlocal\r\nrd /s /q \"%~dp0out\"\r\ndel /q %1\\*.obj\r\nif \"%2\"==\"\" (\r\n  echo no second\r\n) else (\r\n  rd /s /q %2\r\n)\r\n",
	`C:\work\sub.cmd`:   "del %~nx1\n",
}

func readFile(path string) ([]byte, error) {
	if s, ok := testFiles[path]; ok {
		return []byte(s), nil
	}
	return nil, os.ErrNotExist
}

type test struct {
	name string
	in   string
	want []string // show of each command
	prob string   // first problem, "" for none
}

// lineTests are /c command lines, run in C:\work with testEnv.
var lineTests = []test{
	{"rd", `rd /s /q "C:\Users\me\src"`, []string{`rd·/s·/q·C:\Users\me\src {C:\work}`}, ""},
	{"percent", `del /f /s /q %USERPROFILE%\.ssh\*`, []string{`del·/f·/s·/q·C:\Users\me\.ssh\* {C:\work}`}, ""},
	{"percentOnce", `set X=C:\x & rd /s /q %X%`, []string{`set·X=C:\x {C:\work}`, `rd·/s·/q·%X% {C:\work}`}, ""},
	{"undefinedStays", `echo %NOPE% %temp%`, []string{`echo·%NOPE%·C:\Users\me\AppData\Local\Temp {C:\work}`}, ""},
	{"substring", `echo %USERPROFILE:~0,2% %USERPROFILE:me=you%`, []string{`echo·C:·C:\Users\you {C:\work}`}, ""},
	{"carets", `r^d /s /q C:\x`, []string{`rd·/s·/q·C:\x {C:\work}`}, ""},
	{"caretOperator", `echo a^&b ^| c`, []string{`echo·a&b·|·c {C:\work}`}, ""},
	{"gluedSwitch", `rd/s/q C:\x`, []string{`rd·/s/q·C:\x {C:\work}`}, ""},
	{"echoDot", `echo.hi & cd.. & del x`, []string{`echo·hi {C:\work}`, `cd·.. {C:\work}`, `del·x {C:\}`}, ""},
	{"operators", `dir & del /f /q x.txt || echo failed && echo ok`, []string{`dir {C:\work}`, `del·/f·/q·x.txt {C:\work}`, `echo·failed {C:\work}`, `echo·ok {C:\work}`}, ""},
	{"pipe", `type a.txt | findstr foo | sort`, []string{`type·a.txt {C:\work}`, `findstr·foo {C:\work} <0`, `sort {C:\work} <1`}, ""},
	{"redirs", `dir >nul 2>&1 & sort < in.txt >> out.txt 2>err.log`, []string{`dir {C:\work} 1>nul`, `sort {C:\work} 0<in.txt 1>>out.txt 2>err.log`}, ""},
	{"groupRedir", `(echo a & rd /s /q x) > out.txt`, []string{`echo·a {C:\work} 1>out.txt`, `rd·/s·/q·x {C:\work} 1>out.txt`}, ""},
	{"bareRedir", `> C:\x.txt`, []string{` {C:\work} 1>C:\x.txt`}, ""},
	{"at", `@echo off & @del x`, []string{`echo·off {C:\work}`, `del·x {C:\work}`}, ""},
	{"quoted", `echo "a & b" & del "my file.txt"`, []string{`echo·a & b {C:\work}`, `del·my file.txt {C:\work}`}, ""},
	{"quotedName", `"C:\Program Files\Git\bin\git.exe" clean -fdx`, []string{`C:\Program Files\Git\bin\git.exe·clean·-fdx {C:\work}`}, ""},
	{"cdD", `cd /d C:\x && del /q *`, []string{`cd·/d·C:\x {C:\work}`, `del·/q·* {C:\x}`}, ""},
	{"cdOtherDrive", `cd D:\x & del y`, []string{`cd·D:\x {C:\work}`, `del·y {C:\work}`}, ""},
	{"cdRelative", `cd src\..\docs & del y & cd \ & del z`, []string{`cd·src\..\docs {C:\work}`, `del·y {C:\work\docs}`, `cd·\ {C:\work\docs}`, `del·z {C:\}`}, ""},
	{"cdUnknown", `set /p D=dir? & cd !D! & del y`, []string{`set·/p·D=dir? {C:\work}`, `cd·!D! {C:\work}`, `del·y {C:\work\!D!}`}, ""},
	{"pushdPopd", `pushd C:\x & del a & popd & del b & popd & del c`, []string{`pushd·C:\x {C:\work}`, `del·a {C:\x}`, `popd {C:\x}`, `del·b {C:\work}`, `popd {C:\work}`, `del·c`}, ""},
	{"drive", `D: & del x`, []string{`D: {C:\work}`, `del·x`}, ""},
	{"forList", `for %d in (src docs) do rd /s /q %d`, []string{`[for] rd·/s·/q·src {C:\work}`, `[for] rd·/s·/q·docs {C:\work}`}, ""},
	{"forRestOfLine", `for %d in (a b) do echo %d & del %d`, []string{`[for] echo·a {C:\work}`, `[for] del·a {C:\work}`, `[for] echo·b {C:\work}`, `[for] del·b {C:\work}`}, ""},
	{"forWildcard", `for %f in (*.txt) do del "%f"`, []string{`[for] del·C:\work\*.txt {C:\work}`}, ""},
	{"forModifier", `for %f in ("a b.txt") do echo %~nf %~dpf %~zf`, []string{`[for] echo·a·b·C:\work\·? {C:\work}`}, ""},
	{"forD", `for /d %d in (*) do rd /s /q %d`, []string{`[for] rd·/s·/q·C:\work\* {C:\work}`}, ""},
	{"forR", `for /r C:\src %f in (*.obj) do del %f`, []string{`[for] del·C:\src\*.obj {C:\work}`}, ""},
	{"forRName", `for /d /r . %d in (__pycache__) do rd /s /q "%d"`, []string{`[for] rd·/s·/q·C:\work\__pycache__ {C:\work}`}, ""},
	{"forFEcho", `for /f "delims=" %i in ('echo C:\x y') do rd /s /q "%i"`, []string{`[for /f] echo·C:\x·y {C:\work}`, `[for /f] rd·/s·/q·C:\x y {C:\work}`}, ""},
	{"forFEchoToken", `for /f %i in ('echo C:\x y') do rd /s /q "%i"`, []string{`[for /f] echo·C:\x·y {C:\work}`, `[for /f] rd·/s·/q·C:\x {C:\work}`}, ""},
	{"forL", `for /l %i in (1,1,3) do md d%i`, []string{`[for] md·d1 {C:\work}`, `[for] md·d2 {C:\work}`, `[for] md·d3 {C:\work}`}, ""},
	{"forF", `for /f "delims=" %i in ('dir /b') do del %i`, []string{`[for /f] dir·/b {C:\work}`, `[for /f] del·? {C:\work}`}, ""},
	{"forFPipe", `for /f "tokens=1,2" %a in ('dir ^| findstr x') do echo %a %b`, []string{`[for /f] dir {C:\work}`, `[for /f] findstr·x {C:\work} <0`, `[for /f] echo·?·? {C:\work}`}, ""},
	{"forFBackq", "for /f \"usebackq\" %a in (`whoami`) do echo %a", []string{`[for /f] whoami {C:\work}`, `[for /f] echo·? {C:\work}`}, ""},
	{"forFString", `for /f %a in ("one two") do echo %a`, []string{`[for /f] echo·one {C:\work}`}, ""},
	{"forFFile", `for /f %a in (list.txt) do del %a`, []string{`[for /f] del·? {C:\work}`}, ""},
	{"forUnknownName", `for /f %c in ('type cmds.txt') do %c`, []string{`[for /f] type·cmds.txt {C:\work}`, `[for /f] ? {C:\work} !`}, ""},
	{"forNested", `for %a in (x y) do for %b in (1 2) do echo %a%b`, []string{`[for,for] echo·x1 {C:\work}`, `[for,for] echo·x2 {C:\work}`, `[for,for] echo·y1 {C:\work}`, `[for,for] echo·y2 {C:\work}`}, ""},
	{"ifExist", `if exist build (rd /s /q build) else (echo none)`, []string{`[if] rd·/s·/q·build {C:\work}`, `[if] echo·none {C:\work}`}, ""},
	{"ifNot", `if /i not "%USERPROFILE%"=="x" del a & del b`, []string{`[if] del·a {C:\work}`, `[if] del·b {C:\work}`}, ""},
	{"ifCompare", `if 1 GEQ 2 echo big`, []string{`[if] echo·big {C:\work}`}, ""},
	{"ifDefined", `if defined X (echo a) & del b`, []string{`[if] echo·a {C:\work}`, `del·b {C:\work}`}, ""},
	{"ifElseInline", `if errorlevel 1 echo a else echo b`, []string{`[if] echo·a·else·echo·b {C:\work}`}, ""},
	{"ifGlued", `if a==b del x`, []string{`[if] del·x {C:\work}`}, ""},
	{"callPercent", `call echo %%USERPROFILE%%`, []string{`call·echo·%C:\Users\me% {C:\work}`, `[call] echo·%C:\Users\me% {C:\work}`}, ""},
	{"callLabel", `call :sub & del x`, []string{`call·:sub {C:\work} !`, `del·x {C:\work}`}, ""},
	{"start", `start "" /b cmd /c del x`, []string{`start··/b·cmd·/c·del·x {C:\work}`, `[start] cmd·/c·del·x {C:\work}`}, ""},
	{"startDir", `start /d C:\x /wait notepad a.txt`, []string{`start·/d·C:\x·/wait·notepad·a.txt {C:\work}`, `[start] notepad·a.txt {C:\x}`}, ""},
	{"echoThenRun", `echo rd /s /q C:\y> C:\t\c.bat && C:\t\c.bat`, []string{`echo·rd·/s·/q·C:\y {C:\work} 1>C:\t\c.bat`, `C:\t\c.bat {C:\work}`, `[batch C:\t\c.bat] rd·/s·/q·C:\y {C:\work}`}, ""},
	{"echoThenCopyThenRun", `echo echo hi> c.bat & copy x.txt c.bat & c.bat`, []string{`echo·echo·hi {C:\work} 1>c.bat`, `copy·x.txt·c.bat {C:\work}`, `c.bat {C:\work} !`}, ""},
	{"forfiles", `forfiles /p C:\x /s /c "cmd /c del @path"`, []string{`forfiles·/p·C:\x·/s·/c·cmd /c del @path {C:\work}`, `[forfiles /c] cmd·/c·del·C:\x\*`}, ""},
	{"forfilesDefault", `forfiles /p C:\x /m *.log`, []string{`forfiles·/p·C:\x·/m·*.log {C:\work}`, `[forfiles /c] cmd·/c·echo·C:\x\*.log {C:\x}`}, ""},
	{"forfilesHex", `forfiles /c "cmd /c echo 0x22@file0x22 0x26 del x"`, []string{`forfiles·/c·cmd /c echo 0x22@file0x22 0x26 del x {C:\work}`, `[forfiles /c] cmd·/c·echo·C:\work\*·&·del·x {C:\work}`}, ""},
	{"batch", `build.bat C:\obj & del z`, []string{`build.bat·C:\obj {C:\work}`, `[batch build.bat] echo·off {C:\work}`, `[batch build.bat] setlocal {C:\work}`, `[batch build.bat] rd·/s·/q·C:\work\out {C:\work}`, `[batch build.bat] del·/q·C:\obj\*.obj {C:\work}`, `[batch build.bat,if] echo·no·second {C:\work}`, `[batch build.bat,if] rd·/s·/q {C:\work}`, `del·z {C:\work}`}, ""},
	{"callBatch", `call .\sub.cmd "C:\a b\f.txt"`, []string{`call·.\sub.cmd·C:\a b\f.txt {C:\work}`, `[call] .\sub.cmd·C:\a b\f.txt {C:\work}`, `[call,batch .\sub.cmd] del·f.txt {C:\work}`}, ""},
	{"batchUnreadable", `C:\nope\x.cmd`, []string{`C:\nope\x.cmd {C:\work} !`}, ""},
	{"unterminatedQuote", `del a & echo "abc & rd x`, []string{`del·a {C:\work}`, `echo·abc & rd x {C:\work}`}, "1:14: unterminated quote"},
	{"unterminatedParen", `del a & (echo b & rd x`, []string{`del·a {C:\work}`, `echo·b {C:\work}`, `rd·x {C:\work}`}, "1:9: ( without )"},
	{"rem", `rem del x & del y`, nil, ""},
	{"label", `:x & del y`, nil, ""},
	{"closeParenTopLevel", `echo a) & del b`, []string{`echo·a) {C:\work}`, `del·b {C:\work}`}, ""},
	{"emptyOperator", `&& dir`, nil, "1:1: unexpected \"&\""},
}

func TestLine(t *testing.T) {
	run(t, lineTests, func(tc test) *Config {
		return &Config{Getenv: getenv(testEnv), Dir: `C:\work`, ReadFile: readFile}
	})
}

// delayedTests run with /V:ON.
var delayedTests = []test{
	{"delayed", `set X=C:\x& rd /s /q !X!`, []string{`set·X=C:\x {C:\work}`, `rd·/s·/q·C:\x {C:\work}`}, ""},
	{"delayedQuoted", `set "X=C:\a b" & rd /s /q "!X!"`, []string{`set·X=C:\a b {C:\work}`, `rd·/s·/q·C:\a b {C:\work}`}, ""},
	{"delayedCaret", `set X=1& echo ^^!X^^! "^!X^!"`, []string{`set·X=1 {C:\work}`, `echo·!X!·!X! {C:\work}`}, ""},
	{"delayedSetA", `set /a N=1+2 & del f!N!`, []string{`set·/a·N=1+2 {C:\work}`, `del·f? {C:\work}`}, ""},
	{"delayedFor", `for %i in (a b) do set V=%i& del !V!`, []string{`[for] set·V=a {C:\work}`, `[for] del·a {C:\work}`, `[for] set·V=b {C:\work}`, `[for] del·b {C:\work}`}, ""},
	{"cdDelayed", `set /p D=dir? & cd !D! & del y`, []string{`set·/p·D=dir? {C:\work}`, `cd·? {C:\work}`, `del·y`}, ""},
}

func TestDelayed(t *testing.T) {
	run(t, delayedTests, func(tc test) *Config {
		return &Config{Getenv: getenv(testEnv), Dir: `C:\work`, Delayed: true}
	})
}

// batchTests are batch files run as C:\work\run.bat a "b c".
var batchTests = []test{
	{"params", "del %1 %2 %~2 %*\n", []string{`del·a·b c·b·c·a·b c {C:\work}`}, ""},
	{"dp0", "cd /d %~dp0..\n rd /s /q %~dp0out %~nx0 %~f1\n", []string{`cd·/d·C:\work\.. {C:\work}`, `rd·/s·/q·C:\work\out·run.bat·C:\a {C:\}`}, ""},
	{"undefinedEmpty", "rd /s /q C:\\x\\%NOPE%\n", []string{`rd·/s·/q·C:\x\ {C:\work}`}, ""},
	{"doublePercent", "for %%f in (x y) do del %%f 100%%\n", []string{`[for] del·x·100% {C:\work}`, `[for] del·y·100% {C:\work}`}, ""},
	{"setNextLine", "set X=C:\\x\nrd /s /q %X%\n", []string{`set·X=C:\x {C:\work}`, `rd·/s·/q·C:\x {C:\work}`}, ""},
	{"blockExpandedOnce", "set X=old\n(\nset X=new\ndel %X%\n)\n", []string{`set·X=old {C:\work}`, `set·X=new {C:\work}`, `del·old {C:\work}`}, ""},
	{"setlocalDelayed", "setlocal EnableDelayedExpansion\nset X=old\n(\nset X=new\ndel !X!\n)\n", []string{`setlocal·EnableDelayedExpansion {C:\work}`, `set·X=old {C:\work}`, `set·X=new {C:\work}`, `del·new {C:\work}`}, ""},
	{"labelsGoto", ":start\n:: comment\nrem comment\ngoto :eof\n:sub\ndel x\nexit /b 0\n", []string{`goto·:eof {C:\work}`, `del·x {C:\work}`, `exit·/b·0 {C:\work}`}, ""},
	{"callLabel", "call :sub %1\nexit /b\n:sub\necho %1\n", []string{`call·:sub·a {C:\work}`, `exit·/b {C:\work}`, `echo·a {C:\work}`}, ""},
	{"caretContinuation", "rd /s ^\n /q C:\\x\n", []string{`rd·/s·/q·C:\x {C:\work}`}, ""},
	{"multiLineIf", "if exist x (\r\n  del x\r\n) else (\r\n  del y\r\n)\r\ndel z\r\n", []string{`[if] del·x {C:\work}`, `[if] del·y {C:\work}`, `del·z {C:\work}`}, ""},
	{"position", "echo a\n  del b & del c\n", []string{`echo·a {C:\work}`, `del·b {C:\work}`, `del·c {C:\work}`}, ""},
	{"unclosed", "del a\n(\ndel b\n", []string{`del·a {C:\work}`, `del·b {C:\work}`}, "2:1: ( without )"},
	{"callSecondRound", "set T=C:\\t\ncall del %%T%%\n", []string{`set·T=C:\t {C:\work}`, `call·del·%T% {C:\work}`, `[call] del·C:\t {C:\work}`}, ""},
}

func TestBatch(t *testing.T) {
	run(t, batchTests, func(tc test) *Config {
		return &Config{Getenv: getenv(testEnv), Dir: `C:\work`, Batch: true, Params: []string{"run.bat", "a", `"b c"`}}
	})
}

func run(t *testing.T, tests []test, cfg func(test) *Config) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Commands(tc.in, cfg(tc))
			var got []string
			for _, c := range res.Commands {
				got = append(got, show(c))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Commands(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			prob := ""
			if len(res.Problems) > 0 {
				prob = res.Problems[0].String()
			}
			if prob != tc.prob {
				t.Errorf("Commands(%q) problem %q, want %q", tc.in, prob, tc.prob)
			}
		})
	}
}

// taintTests: unknown text put into the code by %VAR% expansion.
var taintTests = []test{
	{"setP", "set /p X=?\n%X%\ndel %X%\n", []string{`set·/p·X=? {C:\work}`, `? {C:\work} !`, `del·? {C:\work} !`}, ""},
	{"forF", "for /f %%i in ('type a') do set X=%%i\ndel %X%\n", []string{`[for /f] type·a {C:\work}`, `[for /f] set·X=? {C:\work}`, `del·? {C:\work} !`}, ""},
	{"safe", "set /a N=1+1\nmd x%N% %DATE% %RANDOM%\n", []string{`set·/a·N=1+1 {C:\work}`, `md·x?·?·? {C:\work}`}, ""},
	{"cdUnknownDir", "cd %X%\ndel %CD%\n", []string{`cd {C:\work}`, `del·C:\work {C:\work}`}, ""},
}

func TestTaint(t *testing.T) {
	run(t, taintTests, func(tc test) *Config {
		return &Config{Dir: `C:\work`, Batch: true}
	})
}
