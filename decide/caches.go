package decide

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cordonsh/cordon/platform"
)

// makeCaches creates the directories of entries (the rules'
// made_caches: "~/DIR PROGRAM") that lie below the home directory and do
// not exist yet, so that the sandbox can make them writable: a user who
// never ran npm has no ~/.npm, and a sandbox can only bind what exists.
// An entry is made only when its program is found on PATH ("-": always):
// a home gets the caches of the tools installed here, not one directory
// per tool cordon knows. It runs before every command, so an entry that
// exists costs one lstat (a missing one, a look through PATH).
//
// Only "~/" entries are made, and only when the home directory is sound:
// HOME is the account's home, or a directory that is no system or
// settings place (HOME is the caller's to set). Each directory on the way
// must be a real directory (not a link) owned by this user and writable
// by nobody else; a new one is made mode 0700. Anything odd on the way
// leaves that entry alone: the command then runs without it, as before.
func makeCaches(entries []string, home, path string) {
	if !filepath.IsAbs(home) {
		return
	}
	real, err := filepath.EvalSymlinks(home)
	if err != nil || real == "/" {
		return
	}
	checked := false
	// A program named by more than one entry (cargo, go, pnpm) is
	// looked for on PATH once.
	found := map[string]bool{}
	for _, e := range entries {
		e, program, _ := strings.Cut(e, " ")
		rel, ok := strings.CutPrefix(e, "~/")
		if !ok || rel == "" || strings.ContainsAny(rel, "*?[\\") || runtime.GOOS != "darwin" && strings.HasPrefix(rel, "Library/") {
			continue // ~/Library is macOS's
		}
		rel = filepath.Clean(rel)
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		if _, err := os.Lstat(filepath.Join(real, rel)); err == nil || !os.IsNotExist(err) {
			continue // there already (or not ours to look at)
		}
		if program != "-" {
			on, seen := found[program]
			if !seen {
				on = onPath(program, path)
				found[program] = on
			}
			if !on {
				continue // the tool is not installed: nothing will use it
			}
		}
		if !checked {
			if real != platform.AccountHome() && refusedWorkspace(real, "") {
				return // HOME=/etc: no home of anyone's
			}
			checked = true
		}
		mkdirBelow(real, strings.Split(rel, "/"))
	}
}

// onPath reports whether program is an executable file in one of the
// directories of path.
func onPath(program, path string) bool {
	if program == "" || strings.ContainsRune(program, '/') {
		return false
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, program)); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return true
		}
	}
	return false
}
