package powershell

import (
	"fmt"
	"strings"
)

// Unknown marks, inside a value, a part that cannot be known without
// running something. It is the same noncharacter as parse.Unknown.
const Unknown = "\uFDD0"

// Config is what [Commands] knows of the machine the script would run on.
type Config struct {
	// Getenv looks up an environment variable; names ignore case (the
	// function handles that). nil is an empty environment.
	Getenv func(name string) (string, bool)
	// Home is the user's home directory ($HOME, ~), or "" when unknown.
	Home string
	// Dir is the starting location, a Windows path such as
	// C:\work\proj, or "" when unknown.
	Dir string
	// Core selects PowerShell 7 (pwsh) rather than Windows PowerShell
	// 5.1: it changes the alias table, $PROFILE and the `e and `u{}
	// escapes.
	Core bool
	// Depth is the nesting depth the caller has already reached.
	Depth int
	// Join resolves p against dir as Windows does; nil is a lexical join.
	Join func(dir, p string) string
	// ReadFile reads a script file the script runs (& .\x.ps1,
	// . .\x.ps1); nil, or an error, makes the file's code unknown.
	ReadFile func(path string) ([]byte, error)
}

// Result is what [Commands] found.
type Result struct {
	Commands []Command
	Problems []Problem
}

// ProblemKind says why a script could not be read whole.
type ProblemKind uint8

// Problem kinds.
const (
	ProblemSyntax ProblemKind = iota // the text is no valid PowerShell
	ProblemDepth                     // code nested deeper than cordon follows
	ProblemLimit                     // too many commands, too much work
)

var problemNames = [...]string{"syntax", "depth", "limit"}

func (k ProblemKind) String() string {
	if int(k) < len(problemNames) {
		return problemNames[k]
	}
	return fmt.Sprintf("ProblemKind(%d)", k)
}

// Problem is a part of the script that could not be judged: what follows
// a syntax error, code nested too deep. Pos is "line:col" in the
// innermost text, Msg says what went wrong.
type Problem struct {
	Kind ProblemKind
	Pos  string
	Msg  string
}

// Command is one command the script would run.
type Command struct {
	// Name is the canonical cmdlet name for a cmdlet or an alias
	// ("Remove-Item" for rm); the name as written for a native program
	// or a function ("cmd", "C:\Tools\x.exe"); "[System.IO.File]::Delete"
	// for a .NET static method and "[System.Net.WebClient].DownloadString"
	// for a method of an object cordon recognises; Unknown when the
	// name cannot be known (& $unknown).
	Name string
	// Alias is the name as written when it was an alias, else "".
	Alias string
	// Args are the arguments as written, evaluated.
	Args []Arg
	// Redirs are the command's file redirections.
	Redirs []Redir
	// Pos is "line:col" in the innermost script text.
	Pos string
	// Via lists the carriers that lead here, outermost first:
	// "Invoke-Expression", "ForEach-Object {}", "& {}", "function f",
	// "Start-Process", ". x.ps1", ...
	Via []string
	// Dir is the location the command runs in, or "" when unknown.
	Dir string
	// StdinFrom is the index in [Result.Commands] of the command piped
	// into this one, or -1.
	StdinFrom int
	// Input are the objects the pipeline gives the command, when they
	// are known: the strings or the paths of the items (Get-ChildItem
	// C:\x gives C:\x\*). Nil when nothing is piped in or it is not
	// known; an element may hold [Unknown].
	Input []Arg
	// UnknownCode is set when the command runs code cordon cannot see:
	// Invoke-Expression of an unknown string, & $unknown, a script file
	// that cannot be read, a script block made from an unknown string.
	UnknownCode bool
	// Privileged is set for Start-Process -Verb RunAs and what it runs.
	Privileged bool
	// CommandLine, for a native program, is the Windows command line
	// PowerShell would give it (quoted as the C runtime splits it);
	// "" for cmdlets, functions and methods.
	CommandLine string
}

// Arg is one argument of a [Command].
type Arg struct {
	// Text is the value; parts unknown statically are [Unknown].
	Text string
	// Param is set for a parameter token as written ("-Recurse", "-fo").
	Param bool
	// Bound is set for a value attached with a colon to the parameter
	// before it (-Recurse:$false gives -Recurse, then False, Bound).
	Bound bool
	// Computed is set when the value came from a variable or an
	// expression rather than from literal script text.
	Computed bool
	// More is set on the second and later elements of an array value
	// (a,b or an array variable): PowerShell binds the whole array to
	// one parameter, while a native program gets each as an argument.
	More bool
}

// Redir is a file redirection. Fd is 1 for >, n for n>, 0 for *> and <.
// Merges (2>&1) are not reported.
type Redir struct {
	Op     string // ">", ">>" or "<"
	Fd     int
	Target Arg
}

// String returns the text with unknown parts shown as "?".
func (a Arg) String() string { return strings.ReplaceAll(a.Text, Unknown, "?") }

// Commands finds every command src would run, and the problems that kept
// it from reading all of it. It runs nothing and never panics: a bug is
// reported as a [Problem].
func Commands(src string, cfg *Config) (res *Result) {
	if cfg == nil {
		cfg = &Config{}
	}
	res = &Result{}
	w := newWalker(cfg, res)
	defer func() {
		if r := recover(); r != nil {
			res.Problems = append(res.Problems, Problem{Kind: ProblemSyntax, Pos: "1:1",
				Msg: fmt.Sprintf("internal error (a cordon bug, please report it): %v", r)})
		}
	}()
	w.script(src, cfg.Depth)
	return res
}
