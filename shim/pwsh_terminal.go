package shim

import (
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/termhook"
	"github.com/cordonsh/cordon/winargs"
	"github.com/cordonsh/cordon/winpipe"
)

// psTerminal runs the interactive PowerShell of this run (Windows) with
// its lines judged: it makes the named pipe, starts the real shell
// confined with cordon's set-up script, serves the pipe to that shell
// alone, and returns the shell's exit status. Anything that fails
// before the shell starts runs nothing; once it runs, a pipe that breaks
// makes the shell refuse every line (see pwsh_setup.ps1).
func (r *run) psTerminal(dir string) int {
	c, err := r.confine(dir)
	if err != nil {
		return r.fail("%v", err)
	}
	name, err := winpipe.NewName()
	if err != nil {
		return r.fail("%v", errPSLaunch(err))
	}
	l, err := winpipe.Listen(name, platform.WorkspaceSID(c.Policy.Workspace))
	if err != nil {
		return r.fail("%v", errPSLaunch(err))
	}
	defer l.Close()
	args := winargs.Split(platform.CommandLine())
	core := r.name != "powershell"
	launch, err := PowerShellLaunch(args[1:], core, strings.TrimPrefix(name, `\\.\pipe\`))
	if err != nil {
		return r.fail("%v", errPSLaunch(err))
	}
	if c.Unconfined {
		r.print(decide.UnconfinedNotice(decide.StateDir(decide.EnvLookup(r.env))))
	}
	child, err := c.Backend.Start(r.real, append([]string{r.real}, launch...), c.Policy.Env, os.Stdin)
	if err != nil {
		return r.fail("cannot run the real shell: %v", err)
	}
	// Ctrl+C reaches the shell from the console it shares.
	signal.Ignore(os.Interrupt)
	go func() {
		conn, err := l.Accept(child.Pid(), 0)
		if err != nil {
			r.print(fmt.Sprintf("cordon: %s: %v; the shell stops\n", r.name, err))
			return
		}
		defer conn.Close()
		err = termhook.Serve(conn, func(termhook.Hello) error { return nil }, r.psAnswer(core))
		if err != nil {
			r.print(fmt.Sprintf("\ncordon: %s: the judge of this terminal stopped: %v; from now on no line runs. Open a new terminal.\n", r.name, err))
		}
	}()
	code, err := child.Wait()
	if err != nil {
		r.print(fmt.Sprintf("cordon: %s: %v\n", r.name, err))
	}
	return code
}

// psAnswer is the judge of a PowerShell terminal's lines, for
// [termhook.Serve].
func (r *run) psAnswer(core bool) func(termhook.Line) termhook.Answer {
	return func(line termhook.Line) termhook.Answer {
		if line.TooLarge {
			return termhook.Answer{Verdict: termhook.Refuse, Message: r.failMessage("the line is larger than %d bytes; cordon does not judge lines that large", termhook.MaxText)}
		}
		v, msg := r.judgePSLine(core, line.Cwd, line.Text)
		return termhook.Answer{Verdict: v, Message: msg}
	}
}
