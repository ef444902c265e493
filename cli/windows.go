package cli

import (
	"fmt"
	"os"
	"runtime"
	"strings"

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
