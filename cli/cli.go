package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Exit statuses of the command line.
const (
	exitOK    = 0
	exitError = 1 // the command could not do its job
	exitUsage = 2 // the command line is wrong
)

// A command is one cordon subcommand.
type command struct {
	name  string
	args  string // the synopsis after the name
	short string // one line for cordon help
	long  string // more for cordon help NAME, may be empty
	run   func(c *command, args []string, stdout, stderr io.Writer) int
}

func commands() []*command {
	return []*command{checkCommand(), explainCommand(), runCommand(), sandboxCommand(), agentCommand(), doctorCommand(), installCommand(), uninstallCommand(), rulesCommand(), approveCommand(), pendingCommand(), hookCommand(), logCommand(), undoCommand(), versionCommand(), helpCommand()}
}

// Main runs the cordon command line with args (without the program name)
// and returns the exit status: 0 on success, 1 when the command failed,
// 2 on a usage error, which is explained on stderr.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, overview())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, overview())
		return exitOK
	case "-v", "-version", "--version":
		args[0] = "version"
	}
	c := find(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "cordon: unknown command %q\n\n%s", args[0], overview())
		return exitUsage
	}
	return c.run(c, args[1:], stdout, stderr)
}

func find(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (c *command) usage() string {
	return strings.TrimSpace("usage: cordon "+c.name+" "+c.args) + "\n"
}

// usageError explains a wrong command line on stderr.
func (c *command) usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "cordon %s: %s\n%s", c.name, fmt.Sprintf(format, args...), c.usage())
	fmt.Fprintf(stderr, "run 'cordon help %s' for details\n", c.name)
	return exitUsage
}

// flags returns an empty flag set for c that prints nothing by itself.
func (c *command) flags() *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args into fs. It returns false with the exit status when
// the command should stop: help was asked for, or the flags are wrong.
func (c *command) parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, c.help(fs))
		return exitOK, false
	case err != nil:
		return c.usageError(stderr, "%v", err), false
	}
	return 0, true
}

// help is the full help text of c.
func (c *command) help(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(c.usage())
	fmt.Fprintf(&b, "\n%s%s.\n", strings.ToUpper(c.short[:1]), c.short[1:])
	if c.long != "" {
		fmt.Fprintf(&b, "\n%s\n", c.long)
	}
	if fs != nil && hasFlags(fs) {
		b.WriteString("\nflags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
	}
	return b.String()
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func overview() string {
	var b strings.Builder
	b.WriteString("cordon judges the commands AI agents run through a shell, and runs the real shell only when they are allowed.\n\n")
	b.WriteString("usage: cordon COMMAND [ARGS...]\n\ncommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.short)
	}
	b.WriteString("\nInstalled under a shell's name (bash, sh, dash, zsh, ksh; on Windows also cmd.exe, powershell.exe, pwsh.exe), cordon is that shell.\n")
	b.WriteString("Run 'cordon help COMMAND' for a command's flags.\n")
	return b.String()
}

func helpCommand() *command {
	return &command{
		name:  "help",
		args:  "[COMMAND]",
		short: "show help for cordon or for one command",
		run:   runHelp,
	}
}

func runHelp(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	args = fs.Args()
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, overview())
		return exitOK
	case len(args) > 1:
		return c.usageError(stderr, "too many arguments")
	}
	target := find(args[0])
	if target == nil {
		return c.usageError(stderr, "unknown command %q", args[0])
	}
	// -h prints the command's help and stops before running it.
	return target.run(target, []string{"-h"}, stdout, stderr)
}

func versionCommand() *command {
	return &command{
		name:  "version",
		short: "print cordon's version",
		run:   runVersion,
	}
}

func runVersion(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, versionLine())
	return exitOK
}

// Stamped by a release build (.goreleaser.yaml's -ldflags -X); empty in
// a build from a checkout or by go install.
var (
	releaseVersion string // 1.2.3, or 1.2.3-SNAPSHOT-abc1234 for a snapshot
	releaseCommit  string // the full commit hash
	releaseDate    string // the build time, RFC 3339
)

// versionLine is what cordon version prints: "cordon VERSION", and for a
// release build the commit and build date after it.
func versionLine() string {
	line := "cordon " + version()
	if releaseVersion != "" && releaseCommit != "" {
		line += fmt.Sprintf(" (commit %s, built %s)", releaseCommit, releaseDate)
	}
	return line
}

// version is the release's version, else the main module's version (go
// install ...@v1.2.3), else "devel" for a build from a working tree.
func version() string {
	if releaseVersion != "" {
		return releaseVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "devel"
	}
	return info.Main.Version
}
