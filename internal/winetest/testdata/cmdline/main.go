// Command cmdline prints its own command line, exactly as Windows
// passed it, and exits with status 3: a stand-in for a real shell that
// shows what cordon handed it. With CMDLINE_REPORT=1 in its environment
// it also prints whether it runs in a job object and with a restricted
// token, the desktop it was started on and its TEMP. With CMDLINE_TERMINAL=1 it plays a judged interactive
// PowerShell instead (terminal.go).
package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

func main() {
	if os.Getenv("CMDLINE_TERMINAL") == "1" {
		terminal(windows.UTF16PtrToString(syscall.GetCommandLine()))
	}
	os.Stdout.WriteString(windows.UTF16PtrToString(syscall.GetCommandLine()))
	if os.Getenv("CMDLINE_REPORT") == "1" {
		var job int32
		r, _, err := windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob").Call(uintptr(windows.CurrentProcess()), 0, uintptr(unsafe.Pointer(&job)))
		if r != 0 {
			err = nil
		}
		restricted, err2 := windows.GetCurrentProcessToken().IsRestricted()
		var si windows.StartupInfo
		windows.GetStartupInfo(&si)
		fmt.Printf("\njob=%v (%v) restricted=%v (%v) desktop=%s temp=%s", job != 0, err, restricted, err2, windows.UTF16PtrToString(si.Desktop), os.Getenv("TEMP"))
	}
	os.Exit(3)
}
