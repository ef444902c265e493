package decide

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/rules/layers"
)

// A Weakness is a place of cordon's own that sandboxed commands can
// write: through it an allowed command could make every later one run
// unjudged and unconfined (cp /bin/bash over the cordon binary, a bash
// dropped in a PATH directory searched before the shims).
type Weakness struct {
	What string `json:"what"` // what the place is to cordon
	Path string `json:"path"`
	Root string `json:"root"` // the writable root that holds it
	Fix  string `json:"fix"`  // what a person does about it
}

func (w Weakness) String() string {
	return fmt.Sprintf("%s %s can be written by sandboxed commands (it is inside %s); %s",
		w.What, printable.String(w.Path), printable.String(w.Root), w.Fix)
}

// selfCheck returns the places of cordon's that lie inside roots, the
// writable roots of the policy about to be applied: the binary, the
// shims directory argv0 was found in and the PATH entries searched before
// it (a shim's run; argv0 is "" for the CLI), the state directory, the
// settings files and the rule files (loaded.Guard). With nested set
// (already inside the sandbox) PATH is the script's, not the agent's, and
// is not looked at.
func selfCheck(roots []string, getenv func(string) string, dir, argv0 string, nested bool, cfg *config.Config, loaded *layers.Loaded) []Weakness {
	var ws []Weakness
	check := func(what, path, fix string) {
		if path == "" {
			return
		}
		if root := Containing(path, roots); root != "" {
			ws = append(ws, Weakness{What: what, Path: path, Root: root, Fix: fix})
		}
	}
	if self, err := Executable(); err == nil {
		check("the cordon binary", self, "install it outside (./install.sh puts it in ~/.local/bin; PREFIX=/usr/local for /usr/local/bin)")
	}
	if shims, before := shimDir(argv0, getenv("PATH"), dir); shims != "" {
		check("the shims directory", shims, "install the shims outside (./install.sh puts them in ~/.local/share/cordon/shims)")
		if !nested {
			for _, d := range before {
				check("the PATH entry", d, fmt.Sprintf("it comes before the shims in %s, so a bash put there would run instead of cordon; put the shims first on PATH or drop that entry", printable.String(shims)))
			}
		}
	}
	check("the state directory", config.StateDir(getenv), "set XDG_STATE_HOME elsewhere (default ~/.local/state)")
	for _, f := range cfg.Files {
		check("the settings file", f, "move it out (set XDG_CONFIG_HOME elsewhere)")
	}
	if loaded != nil {
		for _, f := range loaded.Guard {
			check("the rule file", f, "move it out (check XDG_CONFIG_HOME, XDG_STATE_HOME and CORDON_SYSTEM_DIR)")
		}
	}
	return ws
}

// shimDir returns the directory the shim argv0 was run from (its own
// directory when it names one, else the first PATH entry holding it),
// and the PATH entries searched before it, absolute (relative ones are
// taken from dir, as a lookup there would). "" when argv0 is not found.
func shimDir(argv0, pathEnv, dir string) (string, []string) {
	if argv0 == "" {
		return "", nil
	}
	abs := func(d string) string {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		return filepath.Clean(d)
	}
	entries := filepath.SplitList(pathEnv)
	if strings.ContainsRune(argv0, filepath.Separator) {
		shims := abs(filepath.Dir(argv0))
		for i, e := range entries {
			if abs(e) == shims {
				return shims, absAll(entries[:i], abs)
			}
		}
		return shims, nil // not on PATH: nothing is found before it
	}
	argv0 = strings.TrimPrefix(argv0, "-") // a login shell's
	for i, e := range entries {
		if fi, err := os.Stat(filepath.Join(abs(e), argv0)); err == nil && !fi.IsDir() {
			return abs(e), absAll(entries[:i], abs)
		}
	}
	return "", nil
}

func absAll(entries []string, abs func(string) string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = abs(e)
	}
	return out
}

// A SelfCheckError is a Confine refused because places of cordon's own
// can be written from inside the sandbox.
type SelfCheckError struct{ Weaknesses []Weakness }

func (e *SelfCheckError) Error() string {
	var b strings.Builder
	b.WriteString("cordon's own files must not be writable from inside the sandbox, or an agent could switch cordon off:")
	for _, w := range e.Weaknesses {
		b.WriteString("\n  " + w.String())
	}
	b.WriteString("\n  run `cordon doctor` to check again")
	return b.String()
}

// Executable is the running cordon binary, symlinks resolved.
func Executable() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot locate the cordon binary itself: %w", err)
	}
	return filepath.EvalSymlinks(self)
}
