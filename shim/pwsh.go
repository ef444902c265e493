package shim

import (
	_ "embed"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/parse/powershell"
	"github.com/cordonsh/cordon/termhook"
	"github.com/cordonsh/cordon/winargs"
)

// An interactive PowerShell (pwsh.exe, powershell.exe, pwsh) is started
// with -NoExit -Command and cordon's set-up script (pwsh_setup.ps1): after
// the user's profiles, which PowerShell reads itself before -Command, it
// runs the caller's own -Command (VS Code's shellIntegration.ps1) and
// installs a PSReadLine Enter key handler that sends each complete edit
// buffer to cordon over a channel (a named pipe on Windows, an inherited
// socket elsewhere) and runs it, refuses it, or asks for more, as the
// answer says (docs/interactive.md has the protocol, docs/terminals.md
// the limits).

//go:embed pwsh_setup.ps1
var pwshSetup string

// judgesLines reports whether inv is a PowerShell that reads commands from
// its console after its command line: no -Command, -File or
// -EncodedCommand, or -NoExit.
func judgesLines(inv *invocation.Invocation) bool {
	if inv.Dialect != parse.PowerShell {
		return false
	}
	switch inv.Mode {
	case invocation.ModeInteractive:
		return true
	case invocation.ModeCommand, invocation.ModeFile:
		return inv.Interactive
	}
	return false
}

// PowerShellSetup is the set-up script for a shell whose judge is at
// channel (a pipe name without \\.\pipe\, or fd:N), running caller (the
// -Command text it was given, or "") first.
func PowerShellSetup(channel, caller string) string {
	return strings.NewReplacer("'@CHANNEL@'", psQuote(channel), "'@CALLER@'", psQuote(caller)).Replace(pwshSetup)
}

// psQuote writes s as a PowerShell single-quoted string. Each of the
// characters PowerShell takes for a single quote is doubled.
func psQuote(s string) string {
	return "'" + psSingle().ReplaceAllStringFunc(s, func(q string) string { return q + q }) + "'"
}

var psSingle = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("['\u2018\u2019\u201a\u201b]") })

// PowerShellLaunch returns the arguments (without the program name) that
// start the interactive PowerShell of args (pwsh for pwsh, else
// powershell.exe 5.1) with cordon's set-up script for channel: the
// options of args, then -NoExit -Command and the script. What args ran
// (-Command, -EncodedCommand, -File with -NoExit) runs first, inside it.
func PowerShellLaunch(args []string, pwsh bool, channel string) ([]string, error) {
	call, err := winargs.PowerShell(args, pwsh)
	if err != nil {
		return nil, err
	}
	opts, err := winargs.PowerShellOptions(args, pwsh)
	if err != nil {
		return nil, err
	}
	caller := call.Command
	if call.File != "" {
		words := []string{".", psQuote(call.File)}
		for _, a := range call.Args {
			if psSwitch().MatchString(a) {
				words = append(words, a) // a parameter of the script
			} else {
				words = append(words, psQuote(a))
			}
		}
		caller = strings.Join(words, " ")
	}
	return append(opts, "-NoExit", "-Command", PowerShellSetup(channel, caller)), nil
}

var psSwitch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[A-Za-z_][A-Za-z0-9_]*:?$`) })

// psHijack are the words that refuse a line entered in a judged
// PowerShell: they name what would switch the judging off (PSReadLine,
// its key handlers, the PSConsoleHostReadLine function, cordon's own
// names, removing modules, the function: drive, the engine's own
// objects). A line that does it another way (reflection, a script file
// it runs) is not seen: the sandbox is the guard there.
var psHijack = []string{"psreadline", "psconsole", "__cordon", "remove-module", "function:", "executioncontext"}

// psHijackWord is Remove-Module's alias.
var psHijackWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(^|[\s;|&({])rmo($|[\s;|&)}])`) })

// psWildDrive finds a drive named with a wildcard (Func*:, F[u]nction:),
// which PowerShell resolves like a path.
var psWildDrive = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z*?\[\]]*[*?\[][A-Za-z*?\[\]]*:`) })

// psHookDrives are the drives whose items cordon's hook is made of.
var psHookDrives = []string{"function", "variable", "alias"}

// wildHookDrive returns the hook's drive that a wildcard drive in t
// matches, or "".
func wildHookDrive(t string) string {
	for _, m := range psWildDrive().FindAllString(t, -1) {
		pat := strings.ToLower(strings.TrimSuffix(m, ":"))
		for _, d := range psHookDrives {
			if ok, err := path.Match(pat, d); ok || err != nil {
				return d
			}
		}
	}
	return ""
}

// psHijackNames are whole names the words of psHijack stand for, which a
// pattern (ipmo PSRead* -Force, & (gcm Remove-PSR*)) can name without
// spelling the word.
var psHijackNames = []string{"psreadline", "psconsolehostreadline", "microsoft.powershell.psconsolereadline", "remove-module",
	"set-psreadlinekeyhandler", "remove-psreadlinekeyhandler", "set-psreadlineoption", "executioncontext", "__cordonrefused"}

// psWildWord finds a word with a wildcard in it.
var psWildWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9_.\-]*[*?\[][A-Za-z0-9_.\-*?\[\]]*`) })

// wildHijack returns the name of psHijackNames a pattern in t matches, or
// "". A pattern of wildcards alone (Get-ChildItem *) names nothing in
// particular.
func wildHijack(t string) string {
	for _, m := range psWildWord().FindAllString(t, -1) {
		pat := strings.ToLower(m)
		if !strings.ContainsFunc(pat, func(r rune) bool { return !strings.ContainsRune("*?", r) }) {
			continue
		}
		for _, n := range psHijackNames {
			if ok, err := path.Match(pat, n); ok || err != nil {
				return n
			}
		}
	}
	return ""
}

// hijackPS returns why a PowerShell line is refused before it is judged,
// or "". The words are looked for in the text, and in the commands and
// arguments cordon's parser finds in it, strings put together and
// decoded payloads included: ('Remove-PSRead' + 'LineKeyHandler').
func hijackPS(text string, core bool) string {
	texts := []string{text}
	for _, c := range powershell.Commands(text, &powershell.Config{Core: core}).Commands {
		texts = append(texts, c.Name)
		for _, a := range c.Args {
			texts = append(texts, a.Text)
		}
	}
	for _, t := range texts {
		lower := strings.ToLower(t)
		for _, w := range psHijack {
			if strings.Contains(lower, w) {
				return "it names " + w
			}
		}
		if psHijackWord().MatchString(t) || strings.EqualFold(t, "rmo") {
			return "it names rmo (Remove-Module)"
		}
		if d := wildHookDrive(t); d != "" {
			return "it names a drive by a pattern that matches " + d + ":"
		}
		if n := wildHijack(t); n != "" {
			return "it names by a pattern what matches " + n
		}
	}
	return ""
}

// judgePSLine judges one line entered in a judged PowerShell of this
// run, in the directory cwd (the shell's, as its handler reports it):
// run, or refuse and the refusal paragraph.
func (r *run) judgePSLine(core bool, cwd, text string) (verdict, message string) {
	if strings.TrimSpace(text) == "" {
		return termhook.Run, ""
	}
	if why := hijackPS(text, core); why != "" {
		return termhook.Refuse, r.failMessage("this terminal does not run the line: %s, which could switch off how cordon sees the lines of this shell [rule terminal-hook]", why)
	}
	ctx := *r.ctx
	if cwd != "" {
		ctx.Dir = cwd
	}
	var arg0 string
	if len(r.argv) > 0 {
		arg0 = r.argv[0]
	}
	inv := &invocation.Invocation{Argv: []string{arg0, "-Command", text}, Shell: r.name, Arg0: arg0, Dialect: parse.PowerShell, Core: core, Mode: invocation.ModeCommand, Script: text}
	d := ctx.Decide(decide.Request{Shell: r.name, Mode: "statement", Text: text, Inv: inv, Windows: true})
	switch {
	case d.Error != "":
		return termhook.Refuse, r.failMessage("could not judge the command: %v", d.Error)
	case !d.Allowed():
		return termhook.Refuse, r.refusedMessage([]string{r.name, "-Command", text}, d)
	}
	return termhook.Run, ""
}

// errPSLaunch wraps why an interactive PowerShell cannot be started
// judged.
func errPSLaunch(err error) error {
	return fmt.Errorf("cannot start this PowerShell with its lines judged: %v", err)
}
