package parse

import "regexp"

// CarrierKind says how a command carries other code.
type CarrierKind uint8

// Carrier kinds.
const (
	// CarryNone: the command runs no code given to it.
	CarryNone CarrierKind = iota
	// CarryExec: after its options (and Skip operands, and assignments
	// when Assigns is set) the rest of the arguments are a command to run:
	// sudo, env, nice, timeout, nohup, xargs, command, exec, busybox.
	CarryExec
	// CarryShell: a POSIX shell; its argv is decoded with [Config.Shell].
	CarryShell
	// CarryEval: the arguments joined by spaces are a script: eval.
	CarryEval
	// CarrySource: the first operand is a script file run in the current
	// shell: source, ".".
	CarrySource
	// CarryFind: ExecFlags start an embedded command that ends at ";"
	// or "+" (find -exec); DeleteFlags delete what the command visits.
	CarryFind
	// CarryInterp: an interpreter whose code, given after one of
	// CodeFlags, is translated with Translations.
	CarryInterp
	// CarryRemote: after its options and Skip operands (the host), the
	// rest of the arguments joined by spaces are a script a shell runs
	// on another machine (ssh host CMD). Its commands are marked
	// [Command.Elsewhere].
	CarryRemote
)

// A Translation turns a pattern found in an interpreter's code into an
// equivalent shell command, so the shell rules judge it.
type Translation struct {
	// File, for [Carrier.RunFiles], is the repository file matched.
	File string
	// Options, for [Carrier.OptionCode], are the options whose values are
	// matched.
	Options []string
	// Pattern is matched against the code; its groups fill the templates.
	Pattern *regexp.Regexp
	// Argv is the command to judge, "$1".. replaced by the groups. Used
	// when Shell is empty.
	Argv []string
	// Shell, when set, is shell code (after group substitution) parsed
	// and judged as a nested script.
	Shell string
	// SQL, when set, replaces Pattern: the code is read as SQL (package
	// sqlkind) and every statement of one of these kinds is translated,
	// "$1" being its kind.
	SQL []string
}

// A Rewrite replaces matches of Pattern in interpreter code by With
// ($1 for groups).
type Rewrite struct {
	Pattern *regexp.Regexp
	With    string
}

// A Carrier describes how one command carries other code.
type Carrier struct {
	Kind CarrierKind
	// ValueOptions are options that take a value ("-u", "--user"); the
	// value is skipped when looking for the carried command.
	ValueOptions []string
	// DirOptions are options whose value is the directory the carried
	// command runs in (env -C).
	DirOptions []string
	// SplitOptions are options whose value is a command line split into
	// words (env -S).
	SplitOptions []string
	// Subs, when set, are the subcommands that carry a command (uv run,
	// bundle exec); the carrier carries nothing under another first
	// operand.
	Subs []string
	// Skip is the number of operands before the carried command
	// (timeout's duration), or, for an interpreter, before its code or
	// program file (sqlite3's database); for a remote carrier, the host.
	Skip int
	// Assigns: leading NAME=VALUE operands, also those of a split
	// option's value, are environment, and a lone "-" is an option
	// (env - CMD).
	Assigns bool
	// Later: the carried code runs later, when the shell's state may
	// differ (trap): no test in it is taken as known.
	Later bool
	// InShell: the carried command runs in the current shell, so a
	// builtin it names changes the shell's state (builtin cd, command
	// cd).
	InShell bool
	// NotRun are options under which the carried command is only looked
	// at, not run (command -v).
	NotRun []string
	// ArgSeparators end the command template; the words after one are
	// arguments, each run with the template (parallel CMD ::: A B).
	// ArgFileSeparators are followed by files of arguments (parallel
	// CMD :::: FILE). Replacements in the template ({}, {1}) are
	// replaced by an argument; without one it is appended. With no
	// template each argument is a command line.
	ArgSeparators     []string
	ArgFileSeparators []string
	Replacements      []string
	// ArgFileOptions name a file whose lines are the arguments, read
	// instead of standard input (xargs -a FILE).
	ArgFileOptions []string
	// Privileged: the carried command runs with raised privileges.
	Privileged bool
	// StdinArgs: the carried command receives extra arguments read from
	// standard input (xargs).
	StdinArgs bool
	// ExecFlags start an embedded command (find -exec).
	ExecFlags []string
	// CodeFlags are the options whose value is code (python -c).
	CodeFlags []string
	// FileFlags are options whose value names a file of code (make -f);
	// it is read only when the script itself wrote it or it is "-"
	// (standard input): a project's own files are not judged.
	FileFlags []string
	// DefaultFiles are the files of code the command reads from its
	// directory when no file flag names one (make reads GNUmakefile,
	// makefile or Makefile, the first that exists); like FileFlags, one
	// is judged only when the script itself wrote it.
	DefaultFiles []string
	// CodeOperand: without a code flag, the first operand (after Skip)
	// is the code (awk 'prog', sed 'script', sqlite3 DB 'SQL').
	CodeOperand bool
	// CodeAnywhere: code flags are looked for among all the arguments,
	// not only before the first operand (mysql DB -e SQL).
	CodeAnywhere bool
	// Rewrites normalise interpreter code before Translations: a home
	// directory expression becomes the path, literal concatenations are
	// joined. "{home}" in With is the home directory.
	Rewrites []Rewrite
	// Translations apply to interpreter code.
	Translations []Translation
	// RunFiles are code the command runs from project files, found by
	// pattern (npm runs package.json's scripts): Translation.File names
	// the file. Only files the script itself wrote are judged, every one
	// of that name wherever it wrote it: which one the tool reads (npm:
	// the nearest from its directory up, or the one --prefix, -C or a
	// workspace names) is beyond the judge.
	RunFiles []Translation
	// Runs are files, relative to the repository's top, that the command
	// runs as shell scripts (git runs .git/hooks/pre-commit). Only files
	// the script itself wrote are judged: a project's own hooks are not.
	Runs []string
	// OptionCode maps option values that hold shell code: a value
	// matching the pattern is parsed as a script from its first group
	// (git -c alias.x='!cmd').
	OptionCode []Translation
}

// Filter names a transformation of a command's standard input or
// arguments into its standard output, for following literal payloads
// through pipelines (echo X | base64 -d | sh).
type Filter uint8

// Filters.
const (
	FilterNone     Filter = iota
	FilterEcho            // prints its arguments
	FilterPrintf          // formats its arguments
	FilterCat             // copies its input or its file operands
	FilterBase64          // decodes base64 from its input
	FilterHex             // decodes hex (xxd -r -p)
	FilterRev             // reverses each line
	FilterPwd             // prints the working directory
	FilterDirname         // prints its operands' directories
	FilterBasename        // prints its operand's last element
	FilterRealpath        // prints its operands resolved
	FilterTr              // translates characters of its input
	FilterMktemp          // creates a file in the temporary directory and prints its name
	FilterCopy            // copies files (cp): a copied program is still that program
	FilterSetup           // prints setup code of a tool the user installed (pyenv init -): trusted like the caller's data
	FilterSymlink         // makes a symbolic link (ln -s): later paths through it lead to its target
)

// A Stream describes how a command produces its output.
type Stream struct {
	Filter Filter
	// When lists flags one of which must be present for the filter to
	// apply (base64 -d); empty means always.
	When []string
}

// EnvCode says what an environment variable's value is to the programs
// that read it.
type EnvCode uint8

// Environment variables that carry code.
const (
	EnvData    EnvCode = iota // plain data
	EnvScript                 // shell code run by a program (GIT_EDITOR, PAGER)
	EnvFile                   // a script file a shell sources (BASH_ENV, ENV)
	EnvLibrary                // shared objects loaded into every program (LD_PRELOAD)
)

// Knowledge is what the parser needs to know about commands. Callers
// build it from rule files.
type Knowledge interface {
	// EnvCode says whether the named variable carries code.
	EnvCode(name string) EnvCode
	// Carrier returns how the named command carries code, or nil.
	Carrier(name string) *Carrier
	// Stream returns how the named command produces its output, or nil.
	Stream(name string) *Stream
}

// ShellCall is a shell invocation decoded from its argv.
type ShellCall struct {
	Dialect Dialect
	// Script is the code given with -c; HasScript says whether there is
	// one.
	Script    string
	HasScript bool
	// File is the script file operand, if any.
	File string
	// Stdin is set when the shell reads its script from standard input.
	Stdin  bool
	Arg0   string
	Params []string
	// NoUnset is set when the shell was started with -u.
	NoUnset bool
	// Options are the options the command line sets, by their set -o
	// and shopt names (posix, expand_aliases, dotglob).
	Options []string
	// Delayed is cmd.exe's /V:ON; Core is set for PowerShell 7 (pwsh).
	Delayed, Core bool
	// Login and Interactive say which start-up files the shell reads;
	// NoRc (bash --norc, zsh -f) and NoProfile (bash --noprofile) skip
	// them, RcFile (bash --rcfile, --init-file) replaces ~/.bashrc.
	Login, Interactive, NoRc, NoProfile bool
	RcFile                              string
}
