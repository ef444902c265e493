package gitkey

import (
	"fmt"
	"os/user"
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
// helper's): "%(prefix)/" is below git's installation (git, the
// program's path, links resolved, two levels up), "~/" is home and
// "~user/" that user's home, a relative path is taken from dir (the
// directory of the file that holds it). The result is clean; an error
// says what is not known here.
func Path(p, dir, home, git string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "%(prefix)/"); ok {
		exe, err := filepath.EvalSymlinks(git)
		if err != nil || git == "" {
			return "", fmt.Errorf("git's installation is not known here")
		}
		return filepath.Join(filepath.Dir(filepath.Dir(exe)), rest), nil
	}
	if rest, ok := strings.CutPrefix(p, "~"); ok {
		name, rest, _ := strings.Cut(rest, "/")
		if name != "" {
			u, err := user.Lookup(name)
			if err != nil {
				return "", fmt.Errorf("the home directory of %s is not known here", name)
			}
			home = u.HomeDir
		}
		return filepath.Join(home, rest), nil
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	return filepath.Join(dir, p), nil
}

// MaxIncludeDepth is git's own limit on nested includes.
const MaxIncludeDepth = 10

// Included returns the files the includes among entries (those of the
// configuration file at file) name, whatever their condition, as git
// resolves them ([Path]: relative to file's directory, "~/" to home).
// One git could not resolve either is left out.
func Included(entries []Entry, file, home, git string) []string {
	var out []string
	for _, e := range entries {
		if !Include(e.Key) || e.Bare || e.Value == "" {
			continue
		}
		if p, err := Path(e.Value, filepath.Dir(file), home, git); err == nil {
			out = append(out, p)
		}
	}
	return out
}
