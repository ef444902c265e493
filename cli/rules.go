package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/layers"
)

func rulesCommand() *command {
	return &command{
		name:  "rules",
		args:  "show | lint [DIR|FILE...] | test [FILE...] | trust [--revoke] [DIR] | watch",
		short: "show, check, test and trust the rule files",
		long: `Rule files are read from, weakest first:
  /etc/cordon/rules/*.yaml              system ($CORDON_SYSTEM_DIR replaces the directory)
  ~/.config/cordon/rules/*.yaml         user ($XDG_CONFIG_HOME/cordon/rules)
  WORKSPACE/.cordon/*.yaml              project: only tightens until trusted

  show   print the effective policies and commands, each with its layer and file:line
  lint   check every layer (or the given files) for errors, and warn of
         overridden, unreachable and untested policies; exit 1 on an error
  test   judge the policies' match and not_match examples; exit 1 on a failure
  trust  trust the exact content of the project's rule files (of DIR, or of
         the current workspace) so that all of it applies; --revoke forgets it
  watch  print each reload of the rules, or each rejected edit (file:line),
         as a running piped shell sees them; runs until interrupted

A person runs these, never an agent: through the shim they are refused.`,
		run: runRules,
	}
}

func runRules(c *command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return c.usageError(stderr, "which one: show, lint, test, trust or watch")
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(stdout, c.help(nil))
		return exitOK
	}
	sub := map[string]func(*command, []string, io.Writer, io.Writer) int{
		"show": rulesShow, "lint": rulesLint, "test": rulesTest, "trust": rulesTrust,
		"watch": func(_ *command, args []string, stdout, stderr io.Writer) int {
			w := rulesWatchCommand()
			return w.run(w, args, stdout, stderr)
		},
	}[args[0]]
	if sub == nil {
		return c.usageError(stderr, "unknown rules command %q", args[0])
	}
	return sub(c, args[1:], stdout, stderr)
}

// here is the workspace of dir ("" for the current directory) and the
// environment lookup.
func here(dir string) (string, func(string) string, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", nil, err
		}
	}
	ws, err := decide.Workspace(dir, os.Getenv)
	return ws.Dir, os.Getenv, err
}

// inspect loads the rules for people, or prints why it cannot.
func inspect(files []string, stderr io.Writer) (*layers.Report, bool) {
	ws, getenv, err := here("")
	if err == nil {
		var rep *layers.Report
		if rep, err = layers.Inspect(ws, getenv, decide.JudgeExample, files); err == nil {
			return rep, true
		}
	}
	fmt.Fprintf(stderr, "error: %v\nthe rules are not usable: the shim runs nothing until this is fixed\n", err)
	return nil, false
}

func rulesShow(c *command, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return c.usageError(stderr, "rules show takes no arguments")
	}
	rep, ok := inspect(nil, stderr)
	if !ok {
		return exitError
	}
	for _, f := range rep.Files {
		trust := ""
		if !f.Trusted {
			trust = " (not trusted: only tightens)"
		}
		fmt.Fprintf(stdout, "file %s %s%s\n", f.Layer, f.Path, trust)
	}
	fmt.Fprintln(stdout, "policies (for each effect, the first that matches wins):")
	for _, p := range rep.Set.Policies() {
		fmt.Fprintf(stdout, "  %-28s %-5s %s  [%s]\n", p.ID, p.Verdict, matchText(p), source(rep.Policies[p.ID]))
	}
	names := rep.Set.CommandNames()
	fmt.Fprintf(stdout, "commands: %d known", len(names))
	if len(rep.Commands) > 0 {
		fmt.Fprint(stdout, "; from rule files:")
	}
	fmt.Fprintln(stdout)
	for _, n := range names {
		if src, ok := rep.Commands[n]; ok {
			fmt.Fprintf(stdout, "  %-28s [%s]\n", n, source(src))
		}
	}
	printWarnings(stdout, rep.Warnings)
	return exitOK
}

// matchText is what a policy matches, compactly.
func matchText(p *rules.Policy) string {
	parts := []string{"effect=" + strings.Join(p.Effect, ",")}
	if len(p.Target) > 0 {
		parts = append(parts, "target="+strings.Join(p.Target, ","))
	}
	if len(p.State) > 0 {
		parts = append(parts, "state="+strings.Join(p.State, ","))
	}
	if p.Recursive {
		parts = append(parts, "recursive")
	}
	if p.Privileged != nil {
		parts = append(parts, fmt.Sprintf("privileged=%t", *p.Privileged))
	}
	return strings.Join(parts, " ")
}

func source(s layers.Source) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s %s:%d", s.Layer, s.File, s.Line)
	}
	return fmt.Sprintf("%s %s", s.Layer, s.File)
}

func printWarnings(w io.Writer, warnings []string) {
	for _, m := range warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}

func rulesLint(c *command, args []string, stdout, stderr io.Writer) int {
	rep, ok := inspect(args, stderr)
	if !ok {
		return exitError
	}
	printWarnings(stdout, rep.Warnings)
	printWarnings(stdout, rep.Lint)
	fmt.Fprintf(stdout, "ok: %d rule files, %d policies\n", len(rep.Files), len(rep.Set.Policies()))
	return exitOK
}

func rulesTest(c *command, args []string, stdout, stderr io.Writer) int {
	rep, ok := inspect(args, stderr)
	if !ok {
		return exitError
	}
	failed := 0
	for _, f := range rep.Failures {
		if rep.Asked(f.File) {
			fmt.Fprintf(stdout, "FAIL %s\n", f.Error())
			failed++
		}
	}
	fmt.Fprintf(stdout, "%d examples, %d failed\n", rep.Examples, failed)
	if failed > 0 {
		return exitError
	}
	return exitOK
}

func rulesTrust(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	revoke := fs.Bool("revoke", false, "forget the trust instead")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 1 {
		return c.usageError(stderr, "rules trust takes one directory at most")
	}
	ws, getenv, err := here(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "cordon rules trust: %v\n", err)
		return exitError
	}
	if *revoke {
		gone, err := layers.Revoke(ws, getenv)
		if err != nil {
			fmt.Fprintf(stderr, "cordon rules trust: %v; trust unchanged\n", err)
			return exitError
		}
		for _, p := range gone {
			fmt.Fprintf(stdout, "no longer trusted: %s\n", p)
		}
		if len(gone) == 0 {
			fmt.Fprintln(stdout, "nothing was trusted here")
		}
		return exitOK
	}
	files, err := layers.Trust(ws, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "cordon rules trust: %v; trust unchanged\n", err)
		return exitError
	}
	if len(files) == 0 {
		fmt.Fprintf(stdout, "no project rule files in %s/.cordon\n", ws)
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "trusted: %s sha256:%s\n", f.Path, f.Hash)
	}
	return exitOK
}
