package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

func agentCommand() *command {
	return &command{
		name:  "agent",
		args:  "[--] COMMAND [ARGS...]",
		short: "run an agent with the shells in /bin and /usr/bin standing for cordon (Linux)",
		long: `COMMAND runs as it would by itself (its own network, settings, user,
terminal, exit status), but in a mount namespace where /bin/sh, /bin/bash,
/usr/bin/bash and the other shells cordon stands in for are cordon: a shell
it starts by its absolute path is judged and confined like one on PATH.
An ordinary user needs unprivileged user namespaces (as bwrap does), and
setuid programs such as sudo gain no privilege inside. Linux only; elsewhere
put the shims first on PATH and set SHELL to the bash shim. See docs/agent.md.`,
		run: runAgent,
	}
}

func runAgent(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return c.usageError(stderr, "no command to run")
	}
	state := config.StateDir(os.Getenv)
	if state == "" {
		fmt.Fprintln(stderr, "cordon agent: there is no home directory for cordon's state (set HOME or XDG_STATE_HOME); nothing was run")
		return exitError
	}
	setup := &platform.AgentSetup{Shells: agentShells(), Dir: filepath.Join(state, "agent-shells")}
	if err := agentReadOnly(setup, stderr); err != nil {
		fmt.Fprintf(stderr, "cordon agent: %v; nothing was run\n", err)
		return exitError
	}
	code, err := platform.RunAgent(fs.Args(), setup, stderr)
	fmt.Fprintf(stderr, "cordon agent: %v; nothing was run\n", err)
	return code
}

// agentReadOnly fills in what the program sees read-only: the auto-run
// places of the workspace of the directory it starts in, exactly as the
// sandbox of a command started there keeps them (the policy's read-only
// paths, and the directories that pin them), so that the program's own
// file tools get EROFS where its shell commands would. Other workspaces
// it enters later are not covered here: there the hooks and the guard
// answer (docs/agent.md). Settings or rules that do not load are an
// error: the shim would refuse every command too.
func agentReadOnly(setup *platform.AgentSetup, stderr io.Writer) error {
	dir, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the current directory: %v", err)
	}
	ctx, err := decide.NewContext(dir, os.Environ(), nil)
	if err != nil {
		return err
	}
	if ctx.Workspace.Dir == "" {
		fmt.Fprintf(stderr, "cordon agent: %s is no workspace (%s): no auto-run place is kept read-only for the program itself\n", printable.String(dir), printable.String(ctx.Workspace.Why))
		return nil
	}
	p, err := ctx.Policy()
	if err != nil {
		return err
	}
	setup.ReadOnly, setup.Pins = p.ReadOnly, p.Pins()
	return nil
}

// agentShells are the shells cordon agent lays cordon over: the names
// the rules know as shells that the shim stands in for.
func agentShells() []string {
	known := rules.Builtin()
	var names []string
	for _, n := range platform.ShellNames {
		if k := known.Carrier(n); k != nil && k.Kind == parse.CarryShell {
			names = append(names, n)
		}
	}
	return names
}
