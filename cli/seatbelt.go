package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/platform"
)

// printSeatbelt is cordon sandbox --platform darwin: the Seatbelt profile
// and parameters for the policy of a command started in dir, made on
// whatever system this is (a policy resolved here, with macOS's
// /private forms of /tmp, /var and /etc).
func printSeatbelt(dir string, env []string, opts *decide.ConfineOptions, asJSON bool, stdout, stderr io.Writer) int {
	p, ok := sandboxPolicy(dir, env, opts, stderr)
	if !ok {
		return exitError
	}
	sp := platform.NewSeatbeltProfile(p, "")
	if asJSON {
		return printJSON(stdout, sp)
	}
	fmt.Fprint(stdout, sp.Listing())
	return exitOK
}

// sandboxPolicy resolves the policy of a command started in dir, for
// the other platforms' plans of cordon sandbox; an error is said on
// stderr.
func sandboxPolicy(dir string, env []string, opts *decide.ConfineOptions, stderr io.Writer) (*platform.Policy, bool) {
	ctx, err := decide.NewContext(dir, env, opts)
	if err == nil {
		var p *platform.Policy
		if p, err = ctx.Policy(); err == nil {
			p.SearchSockets() // what a sandbox made now would cover
			return p, true
		}
	}
	fmt.Fprintf(stderr, "cordon sandbox: %v\n", err)
	return nil, false
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	return exitOK
}
