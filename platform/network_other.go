//go:build !linux

package platform

import (
	"fmt"
	"os"
)

// NetMain is the network forwarder's role, which only Linux has.
func NetMain(args []string) int {
	fmt.Fprintln(os.Stderr, "cordon: the network forwarder runs only in a Linux sandbox")
	return 126
}
