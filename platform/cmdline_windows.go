package platform

import (
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/cordonsh/cordon/winargs"
)

// CommandLine returns this process's command line as Windows passed it,
// before any splitting: cmd.exe and PowerShell read theirs raw.
func CommandLine() string {
	return windows.UTF16PtrToString(syscall.GetCommandLine())
}

// rawCommandLine is the command line a program started in cordon's place
// receives: its own path, then the rest of cordon's command line exactly
// as written, so that cmd.exe's quote rules see the same text.
func rawCommandLine(path string) string {
	_, rest := winargs.Program(CommandLine())
	return winargs.Quote(path) + rest
}
