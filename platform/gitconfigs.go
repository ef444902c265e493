package platform

import (
	"path/filepath"
	"slices"
)

// GitConfigFiles are the person's global and system git configuration
// files, for a git run with getenv's environment (the command's) or by
// the person: GIT_CONFIG_GLOBAL, the XDG and home files of HOME and of
// the account's home, GIT_CONFIG_SYSTEM, /etc/gitconfig. A variable adds
// its file to the defaults and GIT_CONFIG_NOSYSTEM takes none away: the
// command's environment is the agent's to choose, and the person's own
// git, run later, reads the defaults.
func GitConfigFiles(getenv func(string) string) []string {
	var out []string
	add := func(p string) {
		if filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	add(getenv("GIT_CONFIG_GLOBAL"))
	for _, home := range []string{getenv("HOME"), AccountHome()} {
		if home != "" {
			add(filepath.Join(home, ".gitconfig"))
			add(filepath.Join(home, ".config", "git", "config"))
		}
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		add(filepath.Join(x, "git", "config"))
	}
	add(getenv("GIT_CONFIG_SYSTEM"))
	add("/etc/gitconfig")
	return out
}
