// Command cmdline prints its own command line, exactly as Windows
// passed it, and exits with status 3: a stand-in for a real shell that
// shows what cordon handed it.
package main

import (
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

func main() {
	os.Stdout.WriteString(windows.UTF16PtrToString(syscall.GetCommandLine()))
	os.Exit(3)
}
