package cli

import (
	"os"
	"os/exec"
	"runtime"
	"slices"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/installer"
	"github.com/cordonsh/cordon/internal/printable"
)

// agentChecks are cordon doctor's checks of the agents: for each
// settings file cordon install changed, whether it still points at
// cordon (installing again would change nothing) and is read by its
// agent (strict JSON where the agent needs it, hooks not turned off);
// then one line for every other agent cordon knows that is found here:
// what its settings cannot do and what to do instead, or that it is not
// set up yet.
func (d *doctor) agentChecks() {
	env, envErr := installEnv()
	if envErr != nil {
		env = &installer.Env{Getenv: os.Getenv, GOOS: runtime.GOOS, State: config.StateDir(os.Getenv), LookPath: exec.LookPath}
	}
	found, err := env.Check()
	if err != nil {
		d.add(check{ID: "agents", Status: statusFail, Summary: "what cordon install changed cannot be read: " + printable.String(err.Error()),
			Fix: "run `cordon uninstall --all` and `cordon install --all`"})
		return
	}
	var wired []string
	for _, f := range found {
		wired = append(wired, f.Agent)
		c := check{ID: "agent", Status: statusOK, Summary: f.Agent + ": " + printable.String(f.File) + " points at cordon", Data: f}
		switch {
		case envErr != nil:
			c.Status, c.Summary, c.Fix = statusFail, f.Agent+": "+printable.String(envErr.Error()), "reinstall cordon with install.sh (install.ps1 on Windows)"
		case !f.OK:
			c.Status, c.Summary, c.Fix = statusFail, f.Agent+": "+printable.String(f.File)+": "+printable.String(f.Problem), printable.String(f.Fix)
		}
		d.add(c)
	}
	agents, err := installer.Agents()
	if err != nil {
		d.add(check{ID: "agents", Status: statusFail, Summary: printable.String(err.Error()), Fix: "reinstall cordon: its agents.yaml is broken (a cordon bug, please report it)"})
		return
	}
	n := len(d.checks)
	for i := range agents {
		if a := &agents[i]; !slices.Contains(wired, a.Name) {
			d.unwiredAgent(env, envErr, a)
		}
	}
	if len(found) == 0 && len(d.checks) == n {
		d.add(check{ID: "agents", Status: statusInfo, Summary: "no agent cordon knows was found here, and none is set up by cordon install"})
	}
}

// unwiredAgent is the check of agent a, which cordon install has not
// set up: nothing when it is not found here; a warning with what to do
// instead when its settings cannot point it at cordon (Codex, Gemini
// CLI); a failure when a settings file of its cannot be edited (not
// strict JSON where the agent needs it); a warning with the command
// that sets it up, otherwise.
func (d *doctor) unwiredAgent(env *installer.Env, envErr error, a *installer.Agent) {
	ok, where := env.Found(a)
	if !ok {
		return
	}
	c := check{ID: "agent", Status: statusWarn, Data: map[string]string{"agent": a.Name, "found": where}}
	head := a.Name + ": found at " + printable.String(where)
	if len(a.Files) == 0 {
		c.Summary = head + ", and no setting of its own can point it at cordon"
		c.Detail = []string{printable.String(fillShims(a.Cannot, env.Shims))}
		d.add(c)
		return
	}
	c.Summary, c.Fix = head+", not set up: its commands do not go through cordon", "run `cordon install "+a.Name+"`"
	if envErr != nil {
		d.add(c)
		return
	}
	changes := 0
	for _, ch := range env.PlanInstall(a) {
		if ch.Err != nil {
			c.Status, c.Summary, c.Fix = statusFail, a.Name+": "+printable.String(ch.Err.Error()), "fix the file, then run `cordon install "+a.Name+"`"
			d.add(c)
			return
		}
		if ch.Changed() {
			changes++
		}
	}
	if changes == 0 {
		c.Status, c.Summary, c.Fix = statusOK, head+": its settings point at cordon (not written by cordon install)", ""
	}
	d.add(c)
}
