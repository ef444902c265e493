//go:build !darwin

package platform

import (
	"fmt"
	"os"
)

// SeatbeltMain is the sandbox's starter, which only macOS has.
func SeatbeltMain(args []string) int {
	fmt.Fprintln(os.Stderr, "cordon: the Seatbelt sandbox runs on macOS only")
	return 126
}

// SeatbeltApplied reports whether a Seatbelt profile confines this
// process: never, outside macOS.
func SeatbeltApplied() bool { return false }
