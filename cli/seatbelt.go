package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/shim"
)

// printSeatbelt is cordon sandbox --platform darwin: the Seatbelt profile
// and parameters for the policy of a command started in dir, made on
// whatever system this is (a policy resolved here, with macOS's
// /private forms of /tmp, /var and /etc).
func printSeatbelt(dir string, env []string, opts *shim.ConfineOptions, asJSON bool, stdout, stderr io.Writer) int {
	ctx, err := shim.NewContext(dir, env, opts)
	if err != nil {
		fmt.Fprintf(stderr, "cordon sandbox: %v\n", err)
		return exitError
	}
	p, err := ctx.Policy()
	if err != nil {
		fmt.Fprintf(stderr, "cordon sandbox: %v\n", err)
		return exitError
	}
	sp := platform.NewSeatbeltProfile(p, "")
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(sp)
		return exitOK
	}
	fmt.Fprint(stdout, sp.Listing())
	return exitOK
}
