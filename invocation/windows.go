package invocation

import (
	"fmt"
	"os"
	"runtime"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/winargs"
)

// A Windows program receives one string, its command line, and splits it
// itself. Windows invocations are therefore decoded from the command
// line: cmd.exe's by cmd.exe's own rules, PowerShell's after the C
// runtime's splitting, everything else (Git Bash's bash.exe included) by
// the C runtime's rules.

// DecodeWindows decodes a Windows command line, program first, the way
// the program it names would: cmd.exe, powershell.exe and pwsh.exe read a
// script from it, bash.exe and sh.exe are Git Bash, and any other program
// is a direct exec of the arguments the C runtime splits.
//
// Unlike [Decode], a command line the shell would reject (an unknown
// cmd.exe switch, an -EncodedCommand that is not base64 of UTF-16 text,
// an ambiguous PowerShell parameter) is an error: nothing about it is
// judged, so it is not run unjudged either.
func DecodeWindows(cmdline string) (*Invocation, error) {
	args := winargs.Split(cmdline)
	inv := &Invocation{Argv: args, Mode: ModeExec, Dialect: parse.Cmd}
	if len(args) == 0 {
		return inv, nil
	}
	inv.Arg0 = args[0]
	switch name := CommandName(args[0]); name {
	case "cmd":
		call, err := winargs.Cmd(cmdline, isExecutable)
		if err != nil {
			return nil, fmt.Errorf("cmd.exe: %v", err)
		}
		inv.Shell, inv.Dialect, inv.Script = "cmd", parse.Cmd, call.Command
		inv.Delayed = call.DelayedExpansion()
		switch {
		case call.Run == "":
			inv.Mode = ModeInteractive
		case call.Run == "K":
			inv.Mode, inv.Interactive = ModeCommand, true
		default:
			inv.Mode = ModeCommand
		}
	case "powershell", "pwsh", "pwsh-preview":
		core := name != "powershell"
		call, err := winargs.PowerShell(args[1:], core)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		inv.Shell, inv.Dialect, inv.Core = name, parse.PowerShell, core
		switch {
		case call.ShowVersion || call.Help:
			inv.Mode = ModeInfo
		case call.Stdin:
			inv.Mode = ModeStdin
		case call.File != "":
			inv.Mode, inv.File, inv.Params = ModeFile, call.File, call.Args
		case call.Command != "" || call.Encoded:
			inv.Mode, inv.Script = ModeCommand, call.Command
		default:
			inv.Mode = ModeInteractive
		}
		inv.Interactive = call.NoExit
	default:
		if _, _, ok := shellFor(name); ok {
			// Git Bash: the POSIX shell, given the arguments the C runtime
			// splits (MSYS's own globbing is not applied: cordon forwards
			// every argument quoted).
			return Decode(args, false)
		}
		inv.Dialect = parse.Bash
	}
	return inv, nil
}

// isExecutable reports whether a path names a program file, for cmd.exe's
// quote rule. Only a Windows machine can say.
func isExecutable(p string) bool {
	if runtime.GOOS != "windows" {
		return false
	}
	fi, err := os.Stat(p)
	if err == nil {
		return fi.Mode().IsRegular()
	}
	for _, ext := range []string{".exe", ".com", ".bat", ".cmd"} {
		if fi, err := os.Stat(p + ext); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}
