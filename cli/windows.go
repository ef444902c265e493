package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/winargs"
	"github.com/cordonsh/cordon/winpath"
)

// windowsCommandLine is the Windows command line check judges: a single
// argument is the command line itself, as CreateProcess receives it
// (cmd.exe /d /s /c "..."); several are an argv, joined with the C
// runtime's quoting as Node, Python and Go join one.
func windowsCommandLine(argv []string) (string, error) {
	if len(argv) == 1 {
		return argv[0], nil
	}
	return winargs.Join(argv)
}

// windowsDir is the Windows directory to judge in, on another system:
// --cwd as given (it must be an absolute Windows path), else the user's
// profile directory.
func windowsDir(cwd string) (string, error) {
	if cwd == "" {
		return windowsEnvDefaults()["USERPROFILE"], nil
	}
	abs := winpath.Abs(cwd, "")
	if abs == "" {
		return "", fmt.Errorf("--cwd %q: want an absolute Windows path such as C:\\work\\proj", cwd)
	}
	return abs, nil
}

// windowsEnviron is the environment Windows commands are judged with:
// this process's, and, on another system, the Windows variables it lacks
// with their default values for this user.
func windowsEnviron(env []string) []string {
	if runtime.GOOS == "windows" {
		return env
	}
	have := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		have[strings.ToLower(k)] = true
	}
	out := append([]string(nil), env...)
	defaults := windowsEnvDefaults()
	for _, k := range windowsEnvOrder {
		if !have[strings.ToLower(k)] {
			out = append(out, k+"="+defaults[k])
		}
	}
	return out
}

var windowsEnvOrder = []string{
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP",
	"SystemRoot", "windir", "SystemDrive", "ProgramFiles", "ProgramFiles(x86)", "ProgramData",
	"ComSpec", "PUBLIC",
}

// windowsEnvDefaults are Windows's default variables for this user.
func windowsEnvDefaults() map[string]string {
	user := os.Getenv("USERNAME")
	if user == "" {
		user = os.Getenv("USER")
	}
	if user == "" || strings.ContainsAny(user, `\/:*?"<>|`) {
		user = "user"
	}
	profile := `C:\Users\` + user
	return map[string]string{
		"USERPROFILE": profile, "HOMEDRIVE": "C:", "HOMEPATH": `\Users\` + user,
		"APPDATA": profile + `\AppData\Roaming`, "LOCALAPPDATA": profile + `\AppData\Local`,
		"TEMP": profile + `\AppData\Local\Temp`, "TMP": profile + `\AppData\Local\Temp`,
		"SystemRoot": `C:\Windows`, "windir": `C:\Windows`, "SystemDrive": "C:",
		"ProgramFiles": `C:\Program Files`, "ProgramFiles(x86)": `C:\Program Files (x86)`,
		"ProgramData": `C:\ProgramData`, "ComSpec": `C:\Windows\system32\cmd.exe`, "PUBLIC": `C:\Users\Public`,
	}
}

// printWindowsPlan is cordon sandbox --platform windows: how the token
// backend would confine a command started in dir, for this directory's
// policy resolved on this system: the token, the ACEs, the job, and what
// is not enforced.
func printWindowsPlan(dir string, env []string, opts *decide.ConfineOptions, asJSON bool, stdout, stderr io.Writer) int {
	p, ok := sandboxPolicy(dir, env, opts, stderr)
	if !ok {
		return exitError
	}
	plan := platform.PlanWindows(p)
	if asJSON {
		return printJSON(stdout, plan)
	}
	fmt.Fprint(stdout, windowsPlanText(plan, p.Network))
	if p.Network == platform.NetworkOff {
		fmt.Fprintln(stdout, "\nnetwork: off cannot be enforced on Windows without elevation: with these settings, cordon runs nothing there.")
	}
	return exitOK
}

// windowsPlanText is plan for people.
func windowsPlanText(plan *platform.WindowsPlan, network platform.Network) string {
	var b strings.Builder
	fmt.Fprintf(&b, "backend: token (Windows)\n")
	fmt.Fprintf(&b, "token: CreateRestrictedToken(cordon's own token, %s = %#x)\n", strings.Join(plan.FlagNames, "|"), plan.Flags)
	b.WriteString("  restricting SIDs (every write must also be granted to one of them):\n")
	for _, s := range plan.Restricting {
		switch s {
		case plan.SID:
			fmt.Fprintf(&b, "    %s  this workspace's SID\n", s)
		case "logon":
			b.WriteString("    the logon session's SID (read from cordon's token)\n")
		case "S-1-1-0":
			fmt.Fprintf(&b, "    %s  Everyone\n", s)
		default:
			fmt.Fprintf(&b, "    %s\n", s)
		}
	}
	b.WriteString("ACEs added (SDDL; once, left in place):\n")
	for _, a := range plan.ACEs {
		fmt.Fprintf(&b, "  %s  %s  (%s)\n", a.ACE, printable.String(a.Path), a.Why)
	}
	fmt.Fprintf(&b, "job object: %s = %#x", strings.Join(plan.Job.FlagNames, "|"), plan.Job.LimitFlags)
	if plan.Job.ProcessMemory > 0 {
		fmt.Fprintf(&b, ", %d bytes per process", plan.Job.ProcessMemory)
	}
	if plan.Job.ProcessTime > 0 {
		fmt.Fprintf(&b, ", %d s of CPU per process", plan.Job.ProcessTime/10_000_000)
	}
	b.WriteString("\n  the program starts suspended on cordon's own window station and desktop, joins the job, then runs; cordon stays its parent and the job's owner\n")
	b.WriteString("not enforced:\n")
	for _, s := range plan.NotEnforced {
		fmt.Fprintf(&b, "  - %s\n", s)
	}
	return b.String()
}
