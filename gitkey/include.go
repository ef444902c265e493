package gitkey

import (
	"path/filepath"
	"strings"
)

// Include reports whether key (as [List] gives it, or lower case) names
// a file git reads as configuration too: include.path and
// includeIf.CONDITION.path, whatever the condition.
func Include(key string) bool {
	k := strings.ToLower(key)
	return k == "include.path" || strings.HasPrefix(k, "includeif.") && strings.HasSuffix(k, ".path")
}

// Path is a path as git's configuration means it (an include's, a
// helper's): "~/" is home, a relative path is taken from dir (the
// directory of the file that holds it). The result is clean.
func Path(p, dir, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
