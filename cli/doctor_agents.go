package cli

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/installer"
	"github.com/cordonsh/cordon/shim"
)

// agentFindings are cordon doctor's findings about the agents' settings.
type agentFindings = []installer.Finding

// checkAgents fills st.Agents: for each settings file cordon install
// changed, whether it still points at cordon. It reports whether one
// does not.
func (st *doctorStatus) checkAgents() bool {
	env, envErr := installEnv()
	if envErr != nil {
		env = &installer.Env{Getenv: os.Getenv, GOOS: runtime.GOOS, State: config.StateDir(os.Getenv)}
	}
	found, err := env.Check()
	if err != nil {
		st.Agents = []installer.Finding{{OK: false, Problem: err.Error(), Fix: "run `cordon uninstall --all` and `cordon install --all`"}}
		return true
	}
	bad := false
	for i := range found {
		if envErr != nil {
			found[i].OK, found[i].Problem, found[i].Fix = false, envErr.Error(), "reinstall cordon with install.sh (install.ps1 on Windows)"
		}
		bad = bad || !found[i].OK
	}
	st.Agents = append(agentFindings{}, found...)
	return bad
}

// agentsText is the agents' part of cordon doctor's report.
func (st *doctorStatus) agentsText() string {
	if len(st.Agents) == 0 {
		return "agents:    none set up by cordon install (cordon install lists the agents found here)\n"
	}
	var b strings.Builder
	b.WriteString("agents:\n")
	p := shim.Printable
	for _, f := range st.Agents {
		if f.OK {
			fmt.Fprintf(&b, "  %s: ok: %s points at cordon\n", f.Agent, p(f.File))
		} else {
			fmt.Fprintf(&b, "  %s: PROBLEM: %s: %s; fix: %s\n", f.Agent, p(f.File), p(f.Problem), f.Fix)
		}
	}
	return b.String()
}
