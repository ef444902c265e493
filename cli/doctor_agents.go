package cli

import (
	"os"
	"runtime"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/installer"
	"github.com/cordonsh/cordon/shim"
)

// agentChecks are cordon doctor's checks of the agents' settings: for
// each settings file cordon install changed, whether it still points at
// cordon (whether installing again would change nothing).
func (d *doctor) agentChecks() {
	env, envErr := installEnv()
	if envErr != nil {
		env = &installer.Env{Getenv: os.Getenv, GOOS: runtime.GOOS, State: config.StateDir(os.Getenv)}
	}
	found, err := env.Check()
	if err != nil {
		d.add(check{ID: "agents", Status: statusFail, Summary: "what cordon install changed cannot be read: " + shim.Printable(err.Error()),
			Fix: "run `cordon uninstall --all` and `cordon install --all`"})
		return
	}
	if len(found) == 0 {
		d.add(check{ID: "agents", Status: statusInfo, Summary: "no agent set up by cordon install (cordon install lists the agents found here)"})
		return
	}
	for _, f := range found {
		c := check{ID: "agent", Status: statusOK, Summary: f.Agent + ": " + shim.Printable(f.File) + " points at cordon", Data: f}
		switch {
		case envErr != nil:
			c.Status, c.Summary, c.Fix = statusFail, f.Agent+": "+shim.Printable(envErr.Error()), "reinstall cordon with install.sh (install.ps1 on Windows)"
		case !f.OK:
			c.Status, c.Summary, c.Fix = statusFail, f.Agent+": "+shim.Printable(f.File)+": "+shim.Printable(f.Problem), f.Fix
		}
		d.add(c)
	}
}
