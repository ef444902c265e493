package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/rules"
)

func checkCommand() *command {
	return &command{
		name:  "check",
		args:  "[--json] [--cwd DIR] [--platform linux|darwin|windows] -- ARGV...",
		short: "judge a command without running it",
		long: `ARGV is what an agent would exec: a shell invocation such as
  bash -lc 'rm -rf build && npm test'
or a direct command such as rm -rf /. It is judged as if run in DIR with
this process's environment; no part of it is ever run. The exit status is 0
whatever the verdict, 1 when the command could not be judged, 2 on a usage
error. With --json, one object: {"verdict", "categories", "reasons",
"commands"}.`,
		run: runCheck,
	}
}

func explainCommand() *command {
	return &command{
		name:  "explain",
		args:  "[--cwd DIR] [--platform linux|darwin|windows] -- ARGV...",
		short: "show how a command is judged: the commands found, the rules matched, the verdict",
		long: `The same judgement as cordon check, written for a person: every command
found in ARGV with the shells and wrappers it was found through, its
directory and effects, then each rule that matched and the verdict.`,
		run: runExplain,
	}
}

// A judgeRequest is what check and explain are asked to judge.
type judgeRequest struct {
	json     bool
	cwd      string
	platform string
	argv     []string
}

// parseJudge parses check's or explain's command line. It returns false
// with the exit status when the command should stop.
func (c *command) parseJudge(args []string, stdout, stderr io.Writer) (*judgeRequest, int, bool) {
	req := &judgeRequest{}
	fs := c.flags()
	if c.name == "check" {
		fs.BoolVar(&req.json, "json", false, "print the judgement as one JSON object")
	}
	fs.StringVar(&req.cwd, "cwd", "", "judge as if run in `DIR` (default: the current directory)")
	fs.StringVar(&req.platform, "platform", defaultPlatform(), "path and environment semantics: linux, darwin or windows")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return nil, code, false
	}
	req.argv = fs.Args()
	if code, ok := c.validate(req, stderr); !ok {
		return nil, code, false
	}
	return req, 0, true
}

func (c *command) validate(req *judgeRequest, stderr io.Writer) (int, bool) {
	switch req.platform {
	case "linux", "darwin", "windows":
	default:
		return c.usageError(stderr, "--platform %q: want linux, darwin or windows", req.platform), false
	}
	if len(req.argv) == 0 {
		return c.usageError(stderr, "no command to judge: give it after --"), false
	}
	if req.platform == "windows" && runtime.GOOS != "windows" {
		dir, err := windowsDir(req.cwd)
		if err != nil {
			return c.usageError(stderr, "%v", err), false
		}
		req.cwd = dir
		return 0, true
	}
	dir, err := resolveDir(req.cwd)
	if err != nil {
		return c.usageError(stderr, "%v", err), false
	}
	req.cwd = dir
	return 0, true
}

// resolveDir is the absolute directory to judge in: cwd, or the current
// directory when cwd is empty.
func resolveDir(cwd string) (string, error) {
	if cwd == "" {
		dir, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot read the current directory: %v (give one with --cwd)", err)
		}
		return dir, nil
	}
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", fmt.Errorf("--cwd %q: %v", cwd, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--cwd %q: not a directory", cwd)
	}
	return dir, nil
}

func defaultPlatform() string {
	switch runtime.GOOS {
	case "windows", "darwin":
		return runtime.GOOS
	}
	return "linux"
}

// judge judges req. It never runs any part of req.argv.
func judge(req *judgeRequest) (j *rules.Judgement, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (a cordon bug, please report it): %v", p)
		}
	}()
	if req.platform == "windows" {
		line, err := windowsCommandLine(req.argv)
		if err != nil {
			return nil, err
		}
		return decide.CheckWindows(line, req.cwd, windowsEnviron(os.Environ()))
	}
	return decide.Check(req.argv, req.cwd, os.Environ())
}

func runCheck(c *command, args []string, stdout, stderr io.Writer) int {
	req, code, ok := c.parseJudge(args, stdout, stderr)
	if !ok {
		return code
	}
	j, err := judge(req)
	if err != nil {
		fmt.Fprintf(stderr, "cordon check: could not judge %s: %v\n", printable.String(invocation.QuoteArgv(req.argv)), err)
		return exitError
	}
	if req.json {
		fmt.Fprintf(stdout, "%s\n", j.JSON())
		return exitOK
	}
	// One write: the verdict and its reasons reach a pipe together.
	var b strings.Builder
	b.WriteString(verdictLine(j) + "\n")
	for _, rs := range j.Reasons {
		b.WriteString("  " + printable.String(reasonLine(rs)) + "\n")
	}
	io.WriteString(stdout, b.String())
	return exitOK
}

func runExplain(c *command, args []string, stdout, stderr io.Writer) int {
	req, code, ok := c.parseJudge(args, stdout, stderr)
	if !ok {
		return code
	}
	j, err := judge(req)
	if err != nil {
		fmt.Fprintf(stderr, "cordon explain: could not judge %s: %v\n", printable.String(invocation.QuoteArgv(req.argv)), err)
		return exitError
	}
	fmt.Fprint(stdout, explanation(req, j))
	return exitOK
}

// verdictLine is "deny (outside, secret)", or "allow".
func verdictLine(j *rules.Judgement) string {
	if len(j.Categories) == 0 {
		return j.Verdict.String()
	}
	return fmt.Sprintf("%s (%s)", j.Verdict, strings.Join(j.Categories, ", "))
}

// reasonLine is "deny  rule-id  message  [category]".
func reasonLine(rs rules.Reason) string {
	line := fmt.Sprintf("%-5s %s: %s", rs.Verdict, rs.Rule, rs.Message)
	if rs.Category != "" {
		line += " [" + rs.Category + "]"
	}
	return line
}

// explanation is cordon explain's report.
func explanation(req *judgeRequest, j *rules.Judgement) string {
	var b strings.Builder
	fmt.Fprintf(&b, "command:   %s\n", printable.String(invocation.QuoteArgv(req.argv)))
	fmt.Fprintf(&b, "directory: %s\n", printable.String(req.cwd))
	if j.Workspace != "" {
		fmt.Fprintf(&b, "workspace: %s\n", j.Workspace)
	}
	writeCommands(&b, j)
	writeReasons(&b, j)
	fmt.Fprintf(&b, "\nverdict: %s\n", verdictLine(j))
	writeLosses(&b, j)
	return b.String()
}

// writeLosses says what the shim would save first, and that it would
// then run the command (see package snapshot).
func writeLosses(b *strings.Builder, j *rules.Judgement) {
	if !j.Savable() {
		return
	}
	b.WriteString("\nthrough the shim, cordon first keeps a copy (cordon undo brings it back), then runs it:\n")
	for _, l := range j.Losses {
		switch {
		case l.Kind == "stash":
			b.WriteString("  the stash entries\n")
		case l.Kind == "unmerged":
			fmt.Fprintf(b, "  the branch %s\n", printable.String(l.Ref))
		default:
			for _, p := range l.Paths {
				fmt.Fprintf(b, "  %s (%s)\n", printable.String(p), l.Kind)
			}
		}
	}
	b.WriteString("  (unless it is over the snapshot budgets: then it is asked about)\n")
}

func writeCommands(b *strings.Builder, j *rules.Judgement) {
	if len(j.Commands) == 0 {
		b.WriteString("\ncommands found: none\n")
		return
	}
	b.WriteString("\ncommands found:\n")
	for i, cr := range j.Commands {
		fmt.Fprintf(b, "  %d. %s\n", i+1, printable.String(cr.Line))
		if len(cr.Via) > 0 {
			fmt.Fprintf(b, "       via:     %s\n", printable.String(strings.Join(cr.Via, " > ")))
		}
		if cr.Dir != "" {
			fmt.Fprintf(b, "       in:      %s\n", printable.String(cr.Dir))
		}
		if cr.Pos != "" {
			fmt.Fprintf(b, "       at:      %s\n", cr.Pos)
		}
		for _, e := range cr.Effects {
			fmt.Fprintf(b, "       effect:  %s\n", printable.String(e))
		}
	}
}

func writeReasons(b *strings.Builder, j *rules.Judgement) {
	if len(j.Reasons) == 0 {
		b.WriteString("\nrules matched: none\n")
		return
	}
	b.WriteString("\nrules matched:\n")
	for _, rs := range j.Reasons {
		fmt.Fprintf(b, "  %s", printable.String(reasonLine(rs)))
		if rs.Command >= 0 && rs.Command < len(j.Commands) {
			fmt.Fprintf(b, " (command %d)", rs.Command+1)
		}
		b.WriteString("\n")
	}
}
