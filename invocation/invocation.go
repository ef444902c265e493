package invocation

import (
	"sync"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// Mode says where the code an invocation runs comes from.
type Mode uint8

// Modes.
const (
	// ModeCommand: the script is an argument (-c).
	ModeCommand Mode = iota
	// ModeFile: the script is a file named on the command line.
	ModeFile
	// ModeStdin: the script is read from standard input (-s, or no
	// operands with standard input not a terminal).
	ModeStdin
	// ModeInteractive: an interactive shell with no script (a terminal,
	// an IDE profile, a PTY-driven agent session).
	ModeInteractive
	// ModeInfo: the shell only prints information and runs no code
	// (--version, --help).
	ModeInfo
	// ModeExec: argv[0] is not a shell: a direct exec of one command.
	ModeExec
)

var modeNames = [...]string{"command", "file", "stdin", "interactive", "info", "exec"}

// String returns the mode's name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// An Invocation is an argv decoded the way the shell named by argv[0]
// would decode it.
type Invocation struct {
	// Argv is the original argv, unchanged; it is what the real shell
	// receives.
	Argv []string
	// Shell is the shell's canonical name ("bash", "sh", "dash", "zsh",
	// "ksh"), or "" for ModeExec.
	Shell string
	// Dialect is the language of the script.
	Dialect parse.Dialect
	// Mode says where the script comes from.
	Mode Mode
	// Script is the -c argument, for ModeCommand.
	Script string
	// File is the script file operand, for ModeFile.
	File string
	// Arg0 is $0 as the shell would set it.
	Arg0 string
	// Params are the positional parameters $1, $2, ...
	Params []string
	// Login is set for a login shell (-l, --login, argv[0] starting "-").
	Login bool
	// Interactive is set when -i was given.
	Interactive bool
	// RcFile is bash's --rcfile or --init-file; NoRc and NoProfile are
	// --norc and --noprofile.
	RcFile          string
	NoRc, NoProfile bool
	// Options lists the shell options set on the command line, by their
	// long names ("errexit", "nounset", "pipefail", "xtrace", ...), plus
	// shopt names given with -O ("extglob"). Options turned off with +o
	// or +O are not listed.
	Options []string
	// Delayed is cmd.exe's /V:ON: !VAR! is expanded as each command runs.
	Delayed bool
	// Core is set for PowerShell 7 (pwsh) rather than Windows PowerShell.
	Core bool
	// Pinned holds files read once before judging, by absolute path: the
	// judge reads them from here (see [pin]).
	Pinned map[string][]byte
}

// BuiltinRules are the built-in rules (whose shells Decode knows), made
// once, on first use.
var BuiltinRules = sync.OnceValue(rules.Builtin)
