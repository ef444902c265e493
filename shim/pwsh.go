package shim

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/tamper"
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

// judgePSLine judges one line entered in a judged PowerShell of this
// run, in the directory cwd (the shell's, as its handler reports it):
// run, or refuse and the refusal paragraph.
func (r *run) judgePSLine(core bool, cwd, text string) (verdict, message string) {
	if strings.TrimSpace(text) == "" {
		return termhook.Run, ""
	}
	if why := tamper.HijackPS(text, core); why != "" {
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
