package invocation

import "github.com/cordonsh/cordon/parse"

// ShellCall is what the walker needs of a shell started from a script.
// A shell given no script reads one from its standard input there
// (curl ... | sh, echo ... | cmd).
func (inv *Invocation) ShellCall() parse.ShellCall {
	call := parse.ShellCall{
		Dialect: inv.Dialect, Arg0: inv.Arg0, Params: inv.Params,
		NoUnset: HasOption(inv.Options, "nounset"), Options: inv.Options, Delayed: inv.Delayed, Core: inv.Core,
		Login: inv.Login, Interactive: inv.Interactive || inv.Mode == ModeInteractive,
		NoRc: inv.NoRc || HasOption(inv.Options, "norcs"), NoProfile: inv.NoProfile, RcFile: inv.RcFile,
	}
	switch inv.Mode {
	case ModeCommand:
		call.Script, call.HasScript = inv.Script, true
	case ModeFile:
		call.File = inv.File
	case ModeInfo:
		call.HasScript = true
	default:
		call.Stdin = true
	}
	return call
}

// HasOption reports whether opts holds the option name.
func HasOption(opts []string, name string) bool {
	for _, o := range opts {
		if o == name {
			return true
		}
	}
	return false
}
