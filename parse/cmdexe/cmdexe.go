package cmdexe

import "fmt"

// Unknown marks, inside an argument, a part whose value cannot be known
// without running something: a set /p answer, a for /f token, a file
// time. It equals parse.Unknown.
const Unknown = "\uFDD0"

// Limits of one walk.
const (
	maxDepth    = 12      // nested carriers: batch files, call, for /f, start, forfiles
	maxCommands = 20000   // commands reported
	maxBytes    = 8 << 20 // bytes of expanded text; values beyond are Unknown
	maxSteps    = 1 << 20 // nodes walked, for loops that report nothing
	maxNest     = 200     // parentheses, if and for nested in one line
	maxItems    = 100     // for items walked one by one
	maxFile     = 1 << 20 // bytes of a batch file read
)

// Config is what [Commands] needs besides the text.
type Config struct {
	// Getenv looks up an environment variable; names are
	// case-insensitive, and the function handles the case. Nil means
	// the environment is empty.
	Getenv func(name string) (string, bool)
	// Dir is the starting directory, a Windows path (C:\work\proj), or
	// "" when it is unknown.
	Dir string
	// Delayed is set for /V:ON: !VAR! is expanded when each command runs.
	Delayed bool
	// Depth is the nesting depth the caller has already reached.
	Depth int
	// Join resolves p against dir as Windows does; "" means it cannot.
	// Nil means a lexical join of this package's own.
	Join func(dir, p string) string
	// ReadFile reads a batch file run by name or by call. Nil, or an
	// error, means its code is unknown.
	ReadFile func(path string) ([]byte, error)
	// Batch is set when the text is a batch file (.bat, .cmd) rather
	// than a /C command line: labels, goto, %0..%9 and %~dp0 mean
	// something, and an undefined %X% expands to nothing.
	Batch bool
	// Params are %0, %1 ... for Batch; Params[0] is the batch file's
	// path.
	Params []string
}

// ProblemKind is the kind of a [Problem].
type ProblemKind uint8

// Problem kinds.
const (
	// ProblemSyntax: the text does not parse (an unterminated quote or
	// parenthesis, an if without a condition); the commands before the
	// error are still reported.
	ProblemSyntax ProblemKind = iota
	// ProblemDepth: nesting or the size of the walk went beyond what is
	// followed (carriers nested more than 12 deep, more than 20000
	// commands); what lies beyond is not reported.
	ProblemDepth
)

// String returns "syntax" or "depth".
func (k ProblemKind) String() string {
	switch k {
	case ProblemSyntax:
		return "syntax"
	case ProblemDepth:
		return "depth"
	}
	return fmt.Sprintf("ProblemKind(%d)", uint8(k))
}

// A Problem is something about the text that is not a command.
type Problem struct {
	Kind ProblemKind
	Pos  string // "line:col"
	Msg  string
}

// String returns the problem as "pos: message".
func (p Problem) String() string { return p.Pos + ": " + p.Msg }

// Result is what a command line or batch file would run.
type Result struct {
	Commands []Command
	Problems []Problem
}

// A Redir is a file redirection. Redirections to a descriptor (2>&1) are
// not reported.
type Redir struct {
	// Op is ">", ">>" or "<".
	Op string
	// Fd is the descriptor redirected: 1 for a bare > or >>, 0 for <.
	Fd int
	// Target is the file, quotes removed, as written after expansion
	// ("NUL" is kept as it is).
	Target string
}

// A Command is one command the text would run.
//
// Warning: a bare redirection (> out.txt), which cmd.exe runs as an empty
// command that creates the file, is a Command with no Args.
type Command struct {
	// Args are the command name as written, quotes removed, then the
	// arguments split at spaces and tabs outside quotes, quotes removed,
	// as a builtin reads them. Switches stay as written: "/S/Q" is one
	// argument. Unknown parts are [Unknown].
	Args []string
	// Redirs are the file redirections, the command's own then those of
	// the groups and carriers around it.
	Redirs []Redir
	// Pos is where the command starts, "line:col"; for a command carried
	// in a string (call, for /f, start, forfiles) the carrier's position.
	Pos string
	// Via lists the carriers that lead to the command, outermost first:
	// "for", "for /f", "if", "call", "start", "forfiles /c",
	// "batch x.bat".
	Via []string
	// Dir is the directory the command runs in, or "" when unknown.
	Dir string
	// StdinFrom is the index in [Result.Commands] of the command piped
	// into this one, or -1.
	StdinFrom int
	// UnknownCode is set when the command runs code that cannot be seen:
	// its name is unknown, call of an unknown label, a batch file that
	// cannot be read, a for /f command that is unknown, or a line whose
	// %VAR% expansion put unknown text into the code itself (which could
	// hold & or |).
	UnknownCode bool
	// CommandLine is the command's text after expansion: name and
	// arguments as cmd.exe passes them to CreateProcess, quotes kept,
	// carets removed, redirections taken out.
	CommandLine string
}

// Commands finds every command line would run. It never runs anything,
// reads only through cfg.ReadFile, and never panics; what it cannot follow
// is reported in [Result.Problems]. A nil cfg is an empty one.
func Commands(line string, cfg *Config) *Result {
	if cfg == nil {
		cfg = &Config{}
	}
	w := newWalker(cfg)
	f := w.rootFrame()
	if cfg.Batch {
		w.batch(f, line)
	} else {
		w.line(f, line, "")
	}
	return w.res
}
