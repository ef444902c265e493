//go:build !windows

package platform

import (
	"os"

	"github.com/cordonsh/cordon/winargs"
)

// CommandLine returns this process's command line as Windows would pass
// it: elsewhere, the arguments joined with the C runtime's quoting.
func CommandLine() string {
	line, err := winargs.Join(os.Args)
	if err != nil {
		return ""
	}
	return line
}
