// Command cordon is a shell shim for AI coding agents: installed under the
// names of the shells agents run (bash, sh, dash, zsh, ksh), it judges every
// command and runs the real shell only when the command is allowed. Under
// any other name it is the cordon command line (cordon help).
package main

import (
	"os"

	"github.com/cordonsh/cordon/cli"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/shim"
)

func main() { os.Exit(run(os.Args)) }

// run picks the role from argv[0] and returns the exit status.
func run(args []string) int {
	if len(args) == 0 {
		args = []string{"cordon"}
	}
	if args[0] == guard.Role {
		// Hidden: the guard process the shim starts (package guard).
		return guard.Main(args)
	}
	if _, ok := shim.ShellName(args[0]); ok {
		return shim.Run(args)
	}
	if len(args) > 1 && args[1] == shim.SnapshotRole {
		return shim.SnapshotMain(args[2:])
	}
	return cli.Main(args[1:], os.Stdout, os.Stderr)
}
