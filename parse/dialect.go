package parse

// Dialect is the language a script is written in.
type Dialect uint8

// Dialects.
const (
	Bash  Dialect = iota // bash, and ksh read as bash
	POSIX                // sh, dash
	Zsh                  // zsh
	Cmd                  // cmd.exe
	PowerShell
)

var dialectNames = [...]string{"bash", "posix", "zsh", "cmd", "powershell"}

// String returns the dialect's name.
func (d Dialect) String() string {
	if int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return "unknown"
}
