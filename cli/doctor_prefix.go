package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/platform"
)

// prefixCheck is cordon doctor --prefix: whether cordon installed under
// prefix (prefix/bin/cordon, prefix/share/cordon/shims, as install.sh
// lays it out) would be in a place sandboxed commands can write, where
// the shim's own self-check refuses to run it. The places are the
// sandbox's writable roots for a command run there (its workspace, if
// it is in one; scratch space, caches and agents' files wherever it
// is): what the shim checks, from the same rules.
func prefixCheck(prefix string, env []string, stdout io.Writer) int {
	abs, err := filepath.Abs(prefix)
	if err != nil {
		fmt.Fprintf(stdout, "cordon doctor: PREFIX %q: %v\n", prefix, err)
		return exitError
	}
	real, dir := existing(abs)
	ctx, err := decide.NewContext(dir, env, nil)
	if err == nil {
		ctx.Inspect = true // (install.sh asks before anything is installed)
		var roots []string
		if roots, err = ctx.WritableRoots(); err == nil {
			// (And the caches the first command makes: ~/.cache.)
			for _, r := range append(roots, ctx.CachesMade()...) {
				if platform.Within(real, r) {
					fmt.Fprintf(stdout, "cordon doctor: PREFIX=%s is inside %s, which sandboxed commands can write: an agent could replace cordon there, and cordon refuses to run from such a place. Install it elsewhere: leave PREFIX unset (~/.local), or PREFIX=/usr/local\n",
						printable.String(prefix), printable.String(r))
					return exitError
				}
			}
			fmt.Fprintf(stdout, "ok: PREFIX=%s is no place sandboxed commands can write\n", printable.String(prefix))
			return exitOK
		}
	}
	fmt.Fprintf(stdout, "cordon doctor: cannot tell whether PREFIX=%s is safe: %s\n", printable.String(prefix), printable.String(err.Error()))
	return exitError
}

// existing returns abs with the symbolic links of its existing part
// resolved, and the innermost directory of it that exists.
func existing(abs string) (real, dir string) {
	rest := ""
	for d := abs; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			if r, err := filepath.EvalSymlinks(d); err == nil {
				d = r
			}
			return filepath.Join(d, rest), d
		}
		if filepath.Dir(d) == d {
			return abs, d
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}
