// Command cordon is a shell shim for AI coding agents: installed under the
// names of the shells agents run (bash, sh, dash, zsh, ksh), it judges every
// command and runs the real shell only when the command is allowed. Under
// any other name it is the cordon command line (cordon help).
package main

import (
	"os"

	"github.com/cordonsh/cordon/multicall"
)

func main() { os.Exit(multicall.Main(os.Args)) }
