package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/netproxy"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

func approveCommand() *command {
	return &command{
		name:  "approve",
		args:  "[--for DURATION | --always-here] ID | --host HOST [--revoke] [--workspace DIR]",
		short: "let a command cordon asked about run: once, for a while, or always in its directory",
		long: `ID is the one a refusal printed ("cordon approve 3f9a0c12"); cordon pending
lists them. The approval is for that exact command in that directory:
the agent retries it and it runs. Without a flag it runs once (within
30 minutes); with --for 10m, every time within 10 minutes; with
--always-here, cordon writes a rule that allows it in that directory for
good (~/.config/cordon/rules/approved.yaml) and shows it.

With --host, a network destination the allowlist refused (the refusal
names it: "cordon approve --host example.com") becomes reachable for the
sandboxed commands of the workspace (of the current directory, or
--workspace DIR), until --revoke takes it back (docs/network.md).

A person approves, never an agent: approve is refused through the shim,
inside any sandbox, and when standard input is not a terminal. A deny is
never approvable; only a rule changes it.`,
		run: runApprove,
	}
}

func pendingCommand() *command {
	return &command{
		name:  "pending",
		short: "list the commands cordon asked about, with their approval ids",
		run:   runPending,
	}
}

func runApprove(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	var forD time.Duration
	var always bool
	fs.DurationVar(&forD, "for", 0, "approve every retry within `DURATION` (10m, 2h), not just one")
	fs.BoolVar(&always, "always-here", false, "write a rule that allows this exact command in its directory for good")
	host := fs.String("host", "", "let the workspace's sandboxed commands connect to `HOST` (network allowlist)")
	revoke := fs.Bool("revoke", false, "with --host: take the approval back")
	wsDir := fs.String("workspace", "", "with --host: the workspace (default: the current directory's)")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if *host != "" || *revoke || *wsDir != "" {
		return approveHost(c, *host, *revoke, *wsDir, fs.NArg(), stdout, stderr)
	}
	switch {
	case fs.NArg() != 1:
		return c.usageError(stderr, "give one ID, as the refusal printed it")
	case forD < 0:
		return c.usageError(stderr, "--for %v: a duration must be positive", forD)
	case forD > 0 && always:
		return c.usageError(stderr, "--for and --always-here do not go together")
	}
	state, ok := approverState(stderr)
	if !ok {
		return exitError
	}
	store := approval.New(state)
	a, err := store.Lookup(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "cordon approve: %v\n", err)
		return exitError
	}
	if always && a.Agent != "" {
		fmt.Fprintf(stderr, "cordon approve: --always-here writes the exact command line, and %s wraps each command in a line of its own (temporary file names): it would never match; nothing was approved. Approve it for a while (cordon approve --for 8h %s), or write a rule (cordon explain says which)\n", a.Agent, a.ID)
		return exitError
	}
	if always {
		file, entry, err := writeApproved(a)
		if err != nil {
			fmt.Fprintf(stderr, "cordon approve: %v\n", err)
			return exitError
		}
		store.Done(a)
		fmt.Fprintf(stdout, "approved for good in %s: %s\nwrote to %s:\n%s", printable.String(a.Dir), printable.String(a.Shown), file, entry)
		return exitOK
	}
	g, err := store.Grant(a, forD)
	if err != nil {
		fmt.Fprintf(stderr, "cordon approve: cannot keep the approval: %v\n", err)
		return exitError
	}
	how := "once, within " + approval.OnceLife.String()
	if !g.Once {
		how = "every time until " + g.Expires.Format("15:04:05")
	}
	fmt.Fprintf(stdout, "approved %s in %s: %s\nthe agent can retry it now.\n", how, printable.String(a.Dir), printable.String(a.Shown))
	return exitOK
}

// approveHost is cordon approve --host.
func approveHost(c *command, host string, revoke bool, wsDir string, nargs int, stdout, stderr io.Writer) int {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	switch {
	case host == "":
		return c.usageError(stderr, "--revoke and --workspace go with --host HOST")
	case nargs > 0:
		return c.usageError(stderr, "--host takes no ID")
	case strings.ContainsAny(host, "*/") || netproxy.CheckEntry(host) != nil:
		return c.usageError(stderr, "--host %q: want one host name or address (a glob or a range goes in a rule: network: {allow: [...]})", host)
	}
	state, ok := approverState(stderr)
	if !ok {
		return exitError
	}
	dir := wsDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	ws, err := decide.Workspace(dir, os.Getenv)
	if err == nil && ws.Dir == "" {
		err = fmt.Errorf("%s is in no workspace (%s)", dir, ws.Why)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cordon approve: %v\n", err)
		return exitError
	}
	store := approval.New(state)
	if revoke {
		had, err := store.RevokeHost(ws.Dir, host)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "cordon approve: %v\n", err)
			return exitError
		case !had:
			fmt.Fprintf(stderr, "cordon approve: %s was not approved for %s\n", host, printable.String(ws.Dir))
			return exitError
		}
		fmt.Fprintf(stdout, "revoked: sandboxed commands in %s no longer reach %s (unless a rule allows it)\n", printable.String(ws.Dir), host)
		return exitOK
	}
	if err := store.ApproveHost(ws.Dir, host); err != nil {
		fmt.Fprintf(stderr, "cordon approve: cannot keep the approval: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "approved: sandboxed commands in %s may connect to %s (any port); the agent can retry now.\nrevoke with: cordon approve --revoke --host %s --workspace %s\n", printable.String(ws.Dir), host, host, printable.String(ws.Dir))
	return exitOK
}

// notAPerson says why this process cannot be a person at a terminal:
// standard input is no terminal, or it runs in a sandbox (cordon's or
// another's: no_new_privs or a seccomp filter is on, which a login
// shell never has). "" when neither.
func notAPerson() string {
	if !platform.IsTerminal(os.Stdin.Fd()) {
		return "standard input is not a terminal"
	}
	if why, in := decide.Sandboxed(); in {
		return "it runs inside a sandbox (" + why + ")"
	}
	return ""
}

// approvedFile is the rule file cordon approve --always-here writes.
const approvedFile = "approved.yaml"

// writeApproved adds an approved entry for a to the user's rule file
// approved.yaml, and returns the file and the entry as written.
func writeApproved(a *approval.Ask) (string, string, error) {
	if a.Mode == "" || strings.ContainsRune(a.Text, 0) {
		return "", "", errors.New("this ask cannot be written as a rule")
	}
	dir := config.Dir(os.Getenv)
	if dir == "" {
		return "", "", errors.New("there is no configuration directory (set HOME or XDG_CONFIG_HOME)")
	}
	file := filepath.Join(dir, "rules", approvedFile)
	var f struct {
		Version  int              `yaml:"version"`
		Approved []rules.Approved `yaml:"approved"`
	}
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", "", err
	default:
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil && err != io.EOF {
			return "", "", fmt.Errorf("%s: %v (cordon writes this file; fix or remove it)", file, err)
		}
	}
	entry := rules.Approved{Command: a.Text, Dir: a.Dir}
	f.Version = 1
	f.Approved = append(f.Approved, entry)
	out, err := yaml.Marshal(&f)
	if err != nil {
		return "", "", err
	}
	out = append([]byte("# Commands a person approved with `cordon approve --always-here`:\n# each runs in its directory without a question. Remove an entry to revoke it.\n"), out...)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", "", err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return "", "", err
	}
	if err := os.Rename(tmp, file); err != nil {
		return "", "", err
	}
	shown, _ := yaml.Marshal([]rules.Approved{entry})
	return file, string(shown), nil
}

func runPending(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	state := config.StateDir(os.Getenv)
	if state == "" {
		fmt.Fprintln(stderr, "cordon pending: there is no state directory (set HOME or XDG_STATE_HOME)")
		return exitError
	}
	store := approval.New(state)
	asks, err := store.Pending()
	if err != nil {
		fmt.Fprintf(stderr, "cordon pending: %v\n", err)
		return exitError
	}
	damaged := store.Damaged()
	for _, f := range damaged {
		fmt.Fprintf(stderr, "cordon pending: %s cannot be read (damaged): an ask may be missing from this list; remove the file, and have the command run again to ask anew\n", printable.String(f))
	}
	if len(asks) == 0 {
		if len(damaged) > 0 {
			return exitError
		}
		fmt.Fprintln(stdout, "no pending asks")
		return exitOK
	}
	for _, a := range asks {
		fmt.Fprintf(stdout, "%s  %s ago  in %s\n  %s\n", a.ID, time.Since(a.Time).Round(time.Second), printable.String(a.Dir), printable.String(a.Shown))
		for _, r := range a.Reasons {
			fmt.Fprintf(stdout, "  why: %s\n", printable.String(r))
		}
	}
	fmt.Fprintln(stdout, "\napprove one with: cordon approve ID  (--for 10m, or --always-here)")
	return exitOK
}

// approverState checks that a person, not the agent, runs cordon
// approve, and returns the state directory the approvals live in; a
// refusal is said on stderr.
func approverState(stderr io.Writer) (string, bool) {
	if why := notAPerson(); why != "" {
		fmt.Fprintf(stderr, "cordon approve: refused: %s. A person runs cordon approve in a terminal of their own, outside the agent.\n", why)
		return "", false
	}
	state := config.StateDir(os.Getenv)
	if state == "" {
		fmt.Fprintln(stderr, "cordon approve: there is no state directory (set HOME or XDG_STATE_HOME)")
		return "", false
	}
	return state, true
}
