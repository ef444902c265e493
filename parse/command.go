package parse

import "strings"

// Unknown marks, inside a [Word]'s text, a part whose value cannot be known
// without running something: a command substitution, $RANDOM, a variable
// assigned from a command's output. It is a Unicode noncharacter, which
// shell text has no reason to hold (NUL would not do: the shell drops NUL
// bytes from command substitutions, and so does expansion).
const Unknown = "\uFDD0"

// Caller marks data the caller handed the shell on an inherited file
// descriptor ($(cat <&3)): part of the invocation, like argv, but not
// visible to the judge. Eval of such data alone is the agent's own
// protocol (Cursor's state snapshot), not model-written code.
const Caller = "\uFDD1"

// A Word is one expanded argument.
type Word struct {
	// Text is the expanded value. Parts that cannot be known are replaced
	// by [Unknown].
	Text string
	// Vars lists the variables the word referenced, in order.
	Vars []string
	// Under, for a word whose text is unknown, is a directory its value
	// is known to lie in (find . -exec rm {} +), or "".
	Under string
	// Filter, with Under, is a base-name glob the value matches.
	Filter string
	// Computed is set when the value comes from a substitution or a
	// variable rather than from the script's own text.
	Computed bool
	// Param is set, in PowerShell, for a parameter name as written
	// (-Recurse, -fo, -Path:x with its value): not a value that happens
	// to start with a dash.
	Param bool
	// More is set, in PowerShell, on the second and later elements of an
	// array argument (rm a,b): they bind where the first one binds.
	More bool
}

// IsKnown reports whether every part of the word's value is known.
func (w Word) IsKnown() bool { return !strings.Contains(w.Text, Unknown) }

// String returns the text with unknown parts shown as "?".
func (w Word) String() string { return strings.ReplaceAll(w.Text, Unknown, "?") }

// RedirOp is the kind of a redirection.
type RedirOp uint8

// Redirection kinds.
const (
	RedirRead   RedirOp = iota // <
	RedirWrite                 // >, >|, &>
	RedirAppend                // >>, &>>
	RedirRW                    // <>
)

// A Redir is a file redirection on a command. Redirections to or from file
// descriptors (2>&1) are not reported.
type Redir struct {
	Op     RedirOp
	Fd     int
	Target Word
}

// A Command is one simple command the script would run, with its arguments
// expanded and the context it runs in.
type Command struct {
	// Args are the expanded argument fields; Args[0] is the command name.
	Args []Word
	// Vars are the variables the arguments after the name reference, also
	// those whose expansion left no argument at all.
	Vars []string
	// Assigns are the NAME=VALUE assignments that prefix the command.
	Assigns []string
	// Redirs are the command's file redirections.
	Redirs []Redir
	// Dir is the working directory the command runs in, or "" when it
	// cannot be known (a cd to an unknown directory).
	Dir string
	// Via lists the code carriers that lead to this command, outermost
	// first: "bash -c", "eval", "sudo", "xargs", "script run.sh", ...
	Via []string
	// StdinFrom is the index in [Result.Commands] of the command whose
	// output this command reads through a pipe, or -1.
	StdinFrom int
	// Input, for a PowerShell command, are the objects its pipeline
	// gives it, when known: strings, or the paths of file-system items
	// (Get-ChildItem C:\x | Remove-Item gets C:\x\*).
	Input []Word
	// ScriptFile is the script file the command runs (bash x.sh, source
	// x.sh), resolved, or "".
	ScriptFile string
	// AfterFailure lists earlier commands (indexes in [Result.Commands])
	// that failed when this one runs: the last command of the left side
	// of each "||" this command is on the right of (git stash || git
	// reset --hard runs the reset when the stash saved nothing).
	AfterFailure []int
	// Pos is the position in the script ("line:col") the command starts at.
	Pos string

	// The flags come last, together: each of a long script's thousands
	// of commands is smaller than with them apart.

	// Dialect is the language of the script the command was found in;
	// Windows dialects name commands without regard to case.
	Dialect Dialect
	// Privileged is set when a carrier raises privileges (sudo, doas).
	Privileged bool
	// Elsewhere is set when the command runs on another machine (ssh
	// host CMD): its paths are not this machine's.
	Elsewhere bool
	// Function is set when the name is a shell function defined earlier
	// in the script; its body's commands follow it.
	Function bool
	// UnknownCode is set for a command that runs code the judge cannot
	// see: a shell reading a script from an unknown source, eval of an
	// unknown string, a script file that cannot be read.
	UnknownCode bool
}

// Name returns the base name of the command, or "" when it is unknown.
// A Windows command's name also drops a directory written with "\\" and
// a ".exe" suffix in any case.
func (c *Command) Name() string {
	if len(c.Args) == 0 || !c.Args[0].IsKnown() {
		return ""
	}
	name := c.Args[0].Text
	if c.Dialect == Cmd || c.Dialect == PowerShell {
		if i := strings.LastIndexAny(name, `/\`); i >= 0 && !strings.HasPrefix(name, "[") {
			name = name[i+1:]
		}
		if len(name) > 4 && strings.EqualFold(name[len(name)-4:], ".exe") {
			name = name[:len(name)-4]
		}
		return name
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// Line returns the command's arguments as a readable line, unknown parts
// shown as "?".
func (c *Command) Line() string {
	var sb strings.Builder
	n := len(c.Args)
	for _, w := range c.Args {
		n += len(w.Text)
	}
	sb.Grow(n) // at most: an unknown part is shorter shown
	for i, w := range c.Args {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(w.String())
	}
	return sb.String()
}
