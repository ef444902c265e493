package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/installer"
	"github.com/cordonsh/cordon/internal/printable"
)

func installCommand() *command {
	return &command{
		name:  "install",
		args:  "[AGENT...|--all] [--dry-run] [--json]",
		short: "point the agents found here at cordon, through their own settings",
		long: `Writes each agent's own settings so that its commands go through cordon's
shims (Claude Code's env and PreToolUse hooks, for Bash and its file
tools; Cursor's and VS Code's terminal profiles, running the shim of your
own shell, and Cursor's hooks; Zed's terminal shell), changing only
the keys cordon owns and leaving every other byte of the file as it was.
A file its agent reads as strict JSON (Claude Code's) is refused when it
holds a comment or a trailing comma: the agent would ignore it.
What changed is recorded in cordon's state directory, so that cordon
uninstall puts each file back byte for byte. Agents whose settings cannot
name a shell (Codex, Gemini CLI, Copilot CLI, Aider, OpenCode) are listed
with what to do instead: start them as cordon agent -- AGENT.

Without an argument nothing is changed: it lists the agents found here and
what installing would do. --all installs every agent found; AGENT names
some (cordon install claude-code vscode), found or not. --dry-run prints
the change to each file as a unified diff and writes nothing. A settings
file that does not parse is refused and left untouched. Installing twice
changes nothing the second time.`,
		run: runInstall,
	}
}

func uninstallCommand() *command {
	return &command{
		name:  "uninstall",
		args:  "[AGENT...|--all] [--dry-run] [--json]",
		short: "undo cordon install: put the agents' settings files back",
		long: `Puts back each file cordon install changed, byte for byte, or removes it
when cordon made it. A file edited since keeps the edits: only cordon's
keys are taken out (a value cordon replaced gets its old value back), and
cordon says so. Without an argument it lists what is installed.`,
		run: runUninstall,
	}
}

// sandboxed reports whether this process runs in a sandbox; tests
// replace it.
var sandboxed = decide.Sandboxed

// refuseSandboxed refuses to change settings from inside a sandbox: an
// agent's command must not rewire (or unwire) the agents. "" when this is
// not a sandbox.
func refuseSandboxed(name string) string {
	if why, in := sandboxed(); in {
		return fmt.Sprintf("cordon %s: refused: it runs inside a sandbox (%s). A person runs cordon %s in a terminal of their own, outside the agent (--dry-run works anywhere).\n", name, why, name)
	}
	return ""
}

// installEnv describes this machine to the installer; tests replace it.
var installEnv = func() (*installer.Env, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	shims := shimsBeside(self)
	if shims == "" {
		shims, _ = shimsOnPath(os.Getenv("PATH"), self)
	}
	if shims == "" {
		return nil, fmt.Errorf("no shims directory for %s: none beside it (PREFIX/share/cordon/shims, as install.sh makes) nor on PATH; run install.sh (install.ps1 on Windows) first", printable.String(self))
	}
	state := config.StateDir(os.Getenv)
	if state == "" {
		return nil, fmt.Errorf("no state directory to record the changes in: set HOME or XDG_STATE_HOME")
	}
	return &installer.Env{Getenv: os.Getenv, GOOS: runtime.GOOS, Cordon: self, Shims: shims, LookPath: exec.LookPath, State: state}, nil
}

// shimsBeside returns the shims directory of an installed cordon,
// PREFIX/share/cordon/shims for PREFIX/bin/cordon (install.sh) or
// ROOT/shims for ROOT/bin/cordon.exe (install.ps1), when its shells are
// self; else "".
func shimsBeside(self string) string {
	me, err := os.Stat(self)
	if err != nil {
		return ""
	}
	for _, d := range []string{installedShims(self), filepath.Join(filepath.Dir(filepath.Dir(self)), "shims")} {
		for _, name := range []string{"bash", "sh", "powershell.exe"} {
			if fi, err := os.Stat(filepath.Join(d, name)); err == nil && os.SameFile(fi, me) {
				return d
			}
		}
	}
	return ""
}

// installArgs splits flags from agent names, which may come in any order.
func installArgs(c *command, args []string, stdout, stderr io.Writer) (names []string, all, dry, asJSON bool, code int, ok bool) {
	fs := c.flags()
	fs.BoolVar(&all, "all", false, "every agent found (install) or installed (uninstall)")
	fs.BoolVar(&dry, "dry-run", false, "print the change to each file as a diff; write nothing")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object")
	var flags []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
		} else {
			names = append(names, a)
		}
	}
	if code, ok = c.parse(fs, flags, stdout, stderr); !ok {
		return
	}
	if all && len(names) > 0 {
		return nil, false, false, false, c.usageError(stderr, "--all or agent names, not both"), false
	}
	return names, all, dry, asJSON, 0, true
}

// agentsNamed returns the agents cordon knows (with extra, names of
// agents it once knew) and those names selects, or a usage error.
func agentsNamed(c *command, names []string, stderr io.Writer, extra ...string) ([]installer.Agent, []installer.Agent, int, bool) {
	all, err := installer.Agents()
	if err != nil {
		fmt.Fprintf(stderr, "cordon %s: %v\n", c.name, err)
		return nil, nil, exitError, false
	}
	for _, x := range extra {
		if !slices.ContainsFunc(all, func(a installer.Agent) bool { return a.Name == x }) {
			all = append(all, installer.Agent{Name: x, Title: x})
		}
	}
	var picked []installer.Agent
	for _, n := range names {
		i := -1
		for j := range all {
			if all[j].Name == n {
				i = j
			}
		}
		if i < 0 {
			var known []string
			for _, a := range all {
				known = append(known, a.Name)
			}
			return nil, nil, c.usageError(stderr, "unknown agent %q (known: %s)", n, strings.Join(known, ", ")), false
		}
		picked = append(picked, all[i])
	}
	return all, picked, 0, true
}

// agentReport is one agent in install's and uninstall's output.
type agentReport struct {
	Agent  string       `json:"agent"`
	Title  string       `json:"title"`
	Found  string       `json:"found,omitempty"` // where it was found
	Files  []fileReport `json:"files"`
	Cannot string       `json:"cannot,omitempty"`
}

type fileReport struct {
	Path   string   `json:"path"`
	Status string   `json:"status"`
	Diff   string   `json:"diff,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Error  string   `json:"error,omitempty"`
}

func runInstall(c *command, args []string, stdout, stderr io.Writer) int {
	names, all, dry, asJSON, code, ok := installArgs(c, args, stdout, stderr)
	if !ok {
		return code
	}
	known, picked, code, ok := agentsNamed(c, names, stderr)
	if !ok {
		return code
	}
	env, err := installEnv()
	if err != nil {
		fmt.Fprintf(stderr, "cordon install: %v\n", err)
		return exitError
	}
	preview := !all && len(names) == 0
	if msg := refuseSandboxed(c.name); msg != "" && !preview && !dry {
		fmt.Fprint(stderr, msg)
		return exitError
	}
	if len(names) == 0 {
		picked = known
	}
	var reports []agentReport
	failed := false
	for i := range picked {
		a := &picked[i]
		found, where := env.Found(a)
		if !found && len(names) == 0 {
			continue
		}
		r := agentReport{Agent: a.Name, Title: a.Title, Found: where, Files: []fileReport{}, Cannot: fillShims(a.Cannot, env.Shims)}
		for _, ch := range env.PlanInstall(a) {
			f := fileReport{Path: ch.Path}
			switch {
			case ch.Err != nil:
				f.Status, f.Error, failed = "refused", ch.Err.Error(), true
			case !ch.Changed():
				f.Status = "already points at cordon"
			case dry || preview:
				f.Status = "would change"
				if dry {
					f.Diff = installer.Diff(ch.Path, ch.Before, ch.After)
				}
			default:
				if err := env.Apply(ch); err != nil {
					f.Status, f.Error, failed = "failed", err.Error(), true
				} else if ch.Before == nil {
					f.Status = "created"
				} else {
					f.Status = "changed"
				}
			}
			r.Files = append(r.Files, f)
		}
		reports = append(reports, r)
	}
	return finishReports(stdout, reports, asJSON, preview, dry, failed,
		"No agent cordon knows was found here. Name one to set it up anyway: cordon install AGENT (cordon help install).",
		"To apply: cordon install --all, or cordon install AGENT...")
}

func runUninstall(c *command, args []string, stdout, stderr io.Writer) int {
	names, all, dry, asJSON, code, ok := installArgs(c, args, stdout, stderr)
	if !ok {
		return code
	}
	env, err := installEnv()
	if err != nil {
		fmt.Fprintf(stderr, "cordon uninstall: %v\n", err)
		return exitError
	}
	// an agent a later cordon no longer knows can still be uninstalled
	installed, err := env.Installed()
	if err != nil {
		fmt.Fprintf(stderr, "cordon uninstall: %v\n", err)
		return exitError
	}
	known, picked, code, ok := agentsNamed(c, names, stderr, installed...)
	if !ok {
		return code
	}
	preview := !all && len(names) == 0
	if msg := refuseSandboxed(c.name); msg != "" && !preview && !dry {
		fmt.Fprint(stderr, msg)
		return exitError
	}
	if len(names) == 0 {
		picked = known
	}
	var reports []agentReport
	failed := false
	for i := range picked {
		a := &picked[i]
		changes, err := env.PlanUninstall(a)
		if err != nil {
			fmt.Fprintf(stderr, "cordon uninstall: %v\n", err)
			return exitError
		}
		if len(changes) == 0 && len(names) == 0 {
			continue
		}
		r := agentReport{Agent: a.Name, Title: a.Title, Files: []fileReport{}}
		for _, ch := range changes {
			f := fileReport{Path: ch.Path, Notes: ch.Notes}
			switch {
			case ch.Err != nil:
				f.Status, f.Error, failed = "refused", ch.Err.Error(), true
			case preview:
				f.Status = "installed"
			default:
				f.Status = "put back"
				if ch.After == nil && ch.Before != nil {
					f.Status = "removed (cordon made it)"
				} else if !ch.Changed() {
					f.Status = "nothing to put back"
				}
				if dry {
					f.Diff = installer.Diff(ch.Path, ch.Before, ch.After)
				} else if err := env.Apply(ch); err != nil {
					f.Status, f.Error, failed = "failed", err.Error(), true
				}
			}
			r.Files = append(r.Files, f)
		}
		reports = append(reports, r)
	}
	return finishReports(stdout, reports, asJSON, preview, dry, failed,
		"cordon install has changed no settings file here: nothing to undo.",
		"To undo: cordon uninstall --all, or cordon uninstall AGENT...")
}

// finishReports prints install's or uninstall's reports (as JSON, or as
// text ending with what to do next: none when there were no agents, how
// to go on after a preview) and returns the exit status.
func finishReports(stdout io.Writer, reports []agentReport, asJSON, preview, dry, failed bool, none, next string) int {
	if asJSON {
		writeJSON(stdout, reports)
	} else {
		printReports(stdout, reports)
		switch {
		case len(reports) == 0:
			fmt.Fprintln(stdout, none)
		case preview:
			fmt.Fprintln(stdout, "\nNothing was changed. "+next+"; --dry-run shows each change as a diff.")
		case dry:
			fmt.Fprintln(stdout, "\nNothing was changed (--dry-run).")
		}
	}
	if failed {
		return exitError
	}
	return exitOK
}

// fillShims writes the shims directory into an agent's note.
func fillShims(s, shims string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "{shims}", shims)), " ")
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(map[string]any{"agents": v})
}

func printReports(w io.Writer, reports []agentReport) {
	p := printable.String
	for _, r := range reports {
		fmt.Fprintf(w, "%s (%s)", r.Title, r.Agent)
		if r.Found != "" {
			fmt.Fprintf(w, ": found at %s", p(r.Found))
		}
		fmt.Fprintln(w)
		for _, f := range r.Files {
			fmt.Fprintf(w, "  %s: %s\n", p(f.Path), f.Status)
			if f.Error != "" {
				fmt.Fprintf(w, "    %s\n", p(f.Error))
			}
			for _, n := range f.Notes {
				fmt.Fprintf(w, "    %s\n", p(n))
			}
			if f.Diff != "" {
				for _, line := range strings.SplitAfter(f.Diff, "\n") {
					if line != "" {
						fmt.Fprintf(w, "    %s", line)
					}
				}
			}
		}
		if r.Cannot != "" {
			fmt.Fprintf(w, "  not covered: %s\n", r.Cannot)
		}
	}
}
