package parse

import (
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"
)

// Config is what [Parse] needs besides the script.
type Config struct {
	// Dialect is the script's language.
	Dialect Dialect
	// Env is the environment as KEY=VALUE pairs.
	Env []string
	// Dir is the working directory the script starts in.
	Dir string
	// Arg0 and Params are $0 and $1...
	Arg0   string
	Params []string
	// NoUnset is set when the shell runs with -u (set -o nounset).
	NoUnset bool
	// Options are the other options the shell runs with, by their set -o
	// and shopt names (posix, expand_aliases, dotglob).
	Options []string
	// Knowledge describes commands that carry code; nil knows none.
	Knowledge Knowledge
	// Shell decodes the argv of a nested shell; nil means nested shells
	// are not looked into (their code is reported unknown).
	Shell func(argv []string) (ShellCall, error)
	// Startup reports whether a sourced file is one of the user's shell
	// startup files (~/.bashrc): the user's own configuration, which a
	// login shell runs unjudged too. Nil means none is.
	Startup func(path string) bool
	// Installed reports whether a script file (an absolute, clean path)
	// is installed software: code the agent cannot have written, like
	// /usr/bin/python3. Running one (bash FILE, ./FILE) is judged like
	// running a program of its name, not by what is in it. Nil means
	// none is.
	Installed func(path string) bool
	// Seen reports whether the command, in its sandbox, sees the file at
	// path (absolute, links resolved) as the judge does, not hidden or
	// replaced: a file test ([ -e F ]) is known only then. Nil means
	// every path is (the command runs unconfined).
	Seen func(path string) bool
	// Start is how the shell that runs the script was started, for the
	// start-up files it reads before it (nil: none are read).
	Start *ShellCall
	// Pinned are files already read by the caller, by absolute path: the
	// judge takes their content from here, so that what it judges is
	// what the caller then has the shell run (bash FILE).
	Pinned map[string][]byte
	// ReadFile reads a script file a command runs; nil means os.ReadFile.
	// It is never asked to run anything.
	ReadFile func(path string) ([]byte, error)

	// Outlines keeps the outlines of large scripts between judgements
	// (see outline.go); nil keeps none.
	Outlines Outlines

	// Windows is set when the script runs on Windows: paths are Windows
	// paths (Git Bash's /c/x too), Dir among them.
	Windows bool
	// Delayed is cmd.exe's /V:ON, Core PowerShell 7 rather than 5.1, for
	// a script in those dialects.
	Delayed, Core bool
	// Budget bounds the judgement's work; nil means [DefaultBudget].
	Budget *Budget
	// aheadFrom is the size from which a script is parsed ahead (see
	// ahead.go); 0 means [aheadFrom]. Tests set it.
	aheadFrom int

	// CommandLine decodes a Windows command line (cmd.exe's or
	// PowerShell's, program first) found in a script; nil means nested
	// Windows shells are not looked into.
	CommandLine func(cmdline string) (ShellCall, error)
}

// ProblemKind is the kind of a [Problem].
type ProblemKind uint8

// Problem kinds.
const (
	// ProblemSyntax: the script does not parse; the shell would still run
	// the lines before the error.
	ProblemSyntax ProblemKind = iota
	// ProblemAbort: an expansion aborts the shell here (${X:?}, set -u);
	// what follows never runs.
	ProblemAbort
	// ProblemDepth: nesting went deeper than the judge follows.
	ProblemDepth
	// ProblemBudget: the script would take the judge more time or
	// memory than its [Budget]; the walk stopped there.
	ProblemBudget
)

// A Problem is something about the script that is not a command.
type Problem struct {
	Kind ProblemKind
	Pos  string
	Msg  string
}

// String returns the problem as "pos: message".
func (p Problem) String() string { return fmt.Sprintf("%s: %s", p.Pos, p.Msg) }

// Result is what a script would run.
type Result struct {
	Commands []Command
	Problems []Problem

	deadline time.Time     // when the judgement's time budget runs out
	limit    time.Duration // that budget
}

// Overdue returns, once the time budget of the judgement that made r has
// run out, the problem to report: whoever judges r's commands checks it
// as they go, and stops. A Result made by hand is never overdue.
func (r *Result) Overdue() (Problem, bool) {
	if r.deadline.IsZero() || time.Now().Before(r.deadline) {
		return Problem{}, false
	}
	return Problem{Kind: ProblemBudget, Pos: "1:1", Msg: fmt.Sprintf("judging the script took longer than %v", r.limit)}, true
}

// maxDepth bounds how deep nested carriers are followed.
const maxDepth = 12

// maxHeld bounds the bytes of known outputs and written files kept.
const maxHeld = 8 << 20

// maxFile bounds how much of a script file is read.
const maxFile = 1 << 20

// Parse finds every command script would run. It never runs anything.
func Parse(script string, cfg *Config) *Result {
	w := newWalker(cfg)
	st := w.rootState(cfg)
	if cfg.Start != nil {
		// The start-up files the shell reads first (bash --rcfile F -i -c).
		w.startup(st, -1, *cfg.Start)
	}
	w.script(st, script, "")
	w.shellEnd(st)
	return w.res
}

// Exec finds what a direct exec of argv (no shell involved) would run: the
// command itself and the code it carries.
func Exec(argv []string, cfg *Config) *Result {
	w := newWalker(cfg)
	st := w.rootState(cfg)
	args := make([]Word, len(argv))
	for i, a := range argv {
		args[i] = Word{Text: a}
	}
	w.run(st, Command{Args: args, StdinFrom: -1, Pos: "1:1"}, nil)
	return w.res
}

func readFile(cfg *Config, path string) ([]byte, error) {
	if data, ok := cfg.Pinned[path]; ok {
		return data, nil
	}
	if cfg.ReadFile != nil {
		return cfg.ReadFile(path)
	}
	return readRegular(path)
}

// readText is [readFile] as a string: a file read here is not copied
// again (a sourced shell snapshot is tens of kB), since no one else
// holds its bytes; pinned bytes and those of cfg.ReadFile are.
func readText(cfg *Config, path string) (string, error) {
	if _, ok := cfg.Pinned[path]; ok || cfg.ReadFile != nil {
		data, err := readFile(cfg, path)
		return string(data), err
	}
	data, err := readRegular(path)
	if err != nil || len(data) == 0 {
		return "", err
	}
	return unsafe.String(&data[0], len(data)), nil
}

// readRegular reads a regular file whole, up to [maxFile] bytes.
func readRegular(path string) ([]byte, error) {
	// Only regular files are opened: opening a FIFO blocks, and opening a
	// device can act.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscallNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	// Room for the size it has now and a byte more, so that a file
	// read whole costs one buffer (io.ReadAll alone grew one from 512
	// bytes, a tens-of-kB shell snapshot copied some eight times), and
	// one that grew meanwhile is still read to the end.
	data, err := readAllSized(io.LimitReader(f, maxFile+1), int(min(max(fi.Size(), 0), maxFile)+1))
	if err == nil && len(data) > maxFile {
		return nil, fmt.Errorf("%s: larger than %d bytes, not read", path, maxFile)
	}
	return data, err
}

// readAllSized is io.ReadAll into a buffer of size bytes to start with.
func readAllSized(r io.Reader, size int) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// readHead returns up to n bytes from the start of a regular file, or
// nil: only enough to see a "#!" line.
func readHead(path string, n int) []byte {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscallNonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, n)
	m, _ := io.ReadFull(f, buf)
	return buf[:m]
}
