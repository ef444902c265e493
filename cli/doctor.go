package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/shim"
)

func doctorCommand() *command {
	return &command{
		name:  "doctor",
		args:  "[--json]",
		short: "check that cordon is set up safely here",
		long: `Prints the sandbox backend and what it cannot enforce on this machine, the
workspace of the current directory and why (or how to make it one), where
the settings, rules and state are, where the shims are found on PATH, and
the self-check: cordon's binary, its shims directory, the PATH entries
searched before it, its state directory and its settings and rule files
must be outside everything sandboxed commands can write, or an agent could
switch cordon off. Each problem comes with its fix. Exits 1 when something
is unsafe or no sandbox can run here.`,
		run: runDoctor,
	}
}

// doctorStatus is cordon doctor's JSON output.
type doctorStatus struct {
	Backend      string           `json:"backend"`
	Detail       string           `json:"detail,omitempty"`
	Degraded     []string         `json:"not_enforced"`
	Error        string           `json:"error,omitempty"`
	Workspace    string           `json:"workspace"`
	WorkspaceWhy string           `json:"workspace_why"`
	WorkspaceFix string           `json:"workspace_fix,omitempty"`
	Settings     []string         `json:"settings"`
	Rules        []string         `json:"rules"`
	State        string           `json:"state"`
	Binary       string           `json:"binary"`
	Shims        string           `json:"shims"`
	Problems     []shim.Weakness  `json:"problems"`
	Agents       agentFindings    `json:"agents"`
	Policy       *platform.Policy `json:"-"`
}

func runDoctor(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	asJSON := fs.Bool("json", false, "print one JSON object")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "cordon doctor: cannot read the current directory: %v\n", err)
		return exitError
	}
	env := os.Environ()
	st := &doctorStatus{State: config.StateDir(os.Getenv), Degraded: []string{}, Problems: []shim.Weakness{}}
	st.Binary, _ = os.Executable()
	if real, err := filepath.EvalSymlinks(st.Binary); err == nil {
		st.Binary = real
	}
	st.Shims = shimsOnPath(os.Getenv("PATH"), st.Binary)
	invoked := ""
	if st.Shims != "" {
		invoked = filepath.Join(st.Shims, "bash")
	}
	ws, err := shim.Workspace(dir, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "cordon doctor: %v\n", err)
		return exitError
	}
	st.Settings = []string{config.SystemFile, config.UserFile(os.Getenv)}
	st.Rules, _ = shim.RuleSource(ws.Dir, env)
	conf, err := shim.Confine(dir, env, &shim.ConfineOptions{Invoked: invoked, Inspect: true})
	if err != nil {
		st.Error = err.Error()
		st.Workspace, st.WorkspaceWhy = ws.Dir, ws.Why
	} else {
		ws = conf.Workspace
		st.Workspace, st.WorkspaceWhy, st.Policy = ws.Dir, ws.Why, conf.Policy
		st.Problems = append(st.Problems, conf.Weaknesses...)
		r := platform.Describe(conf.Backend, "/bin/bash", []string{"bash", "-c", "true"})
		st.Backend, st.Detail = r.Backend, r.Detail
		st.Degraded = append(st.Degraded, r.Degraded...)
		if conf.Nested {
			st.Backend, st.Detail = "none needed", "already inside cordon's sandbox"
		}
	}
	if ws.Dir == "" && ws.Could != "" {
		st.WorkspaceFix = fmt.Sprintf("run `git init` in %s, or add `workspaces: [%s]` to %s", ws.Could, ws.Could, ws.Settings)
	}
	unsafe := st.Error != "" || len(st.Problems) > 0
	unsafe = st.checkAgents() || unsafe
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(st)
	} else {
		fmt.Fprint(stdout, st.text())
	}
	if unsafe {
		return exitError
	}
	return exitOK
}

// shimsOnPath returns the first directory of pathEnv whose bash or sh is
// the cordon binary self, or "".
func shimsOnPath(pathEnv, self string) string {
	me, err := os.Stat(self)
	if err != nil {
		return ""
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue
		}
		for _, name := range []string{"bash", "sh"} {
			if fi, err := os.Stat(filepath.Join(d, name)); err == nil && os.SameFile(fi, me) {
				return d
			}
		}
	}
	return ""
}

func (st *doctorStatus) text() string {
	var b strings.Builder
	p := shim.Printable
	if st.Error != "" {
		fmt.Fprintf(&b, "sandbox:   UNSAFE: %s\n", p(st.Error))
	} else {
		fmt.Fprintf(&b, "backend:   %s", st.Backend)
		if st.Detail != "" {
			fmt.Fprintf(&b, " (%s)", st.Detail)
		}
		b.WriteString("\n")
		for _, d := range st.Degraded {
			fmt.Fprintf(&b, "  not enforced: %s\n", p(d))
		}
	}
	if st.Workspace != "" {
		fmt.Fprintf(&b, "workspace: %s (%s)\n", p(st.Workspace), p(st.WorkspaceWhy))
	} else {
		fmt.Fprintf(&b, "workspace: none: %s\n", p(st.WorkspaceWhy))
		if st.WorkspaceFix != "" {
			fmt.Fprintf(&b, "  to make this directory one: %s\n", p(st.WorkspaceFix))
		}
	}
	fmt.Fprintf(&b, "settings:  %s\n", p(strings.Join(st.Settings, " ")))
	fmt.Fprintf(&b, "rules:     %s\n", p(strings.Join(st.Rules, " ")))
	fmt.Fprintf(&b, "state:     %s\n", p(st.State))
	fmt.Fprintf(&b, "binary:    %s\n", p(st.Binary))
	if st.Shims != "" {
		fmt.Fprintf(&b, "shims:     %s\n", p(st.Shims))
	} else {
		b.WriteString("shims:     none on PATH (./install.sh installs them in ~/.local/share/cordon/shims; put that first on PATH)\n")
	}
	b.WriteString(st.agentsText())
	switch {
	case st.Error != "":
		b.WriteString("self-check: not done (no sandbox policy)\n")
	case len(st.Problems) == 0:
		b.WriteString("self-check: ok: nothing of cordon's can be written by sandboxed commands\n")
	default:
		b.WriteString("self-check: UNSAFE: an agent could switch cordon off:\n")
		for _, w := range st.Problems {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	return b.String()
}
