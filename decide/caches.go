package decide

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
//
// memo is the file that keeps, between commands, which programs PATH
// does not hold ([lookPrograms]); "" keeps nothing.
func makeCaches(entries []string, home, path, memo string) {
	if !filepath.IsAbs(home) {
		return
	}
	real, err := filepath.EvalSymlinks(home)
	if err != nil || real == "/" {
		return
	}
	// The entries not there yet, and their programs: each is looked for
	// on PATH once (cargo, go and pnpm are named by more than one), in
	// one pass over its directories.
	type cache struct{ rel, program string }
	var missing []cache
	var programs []string
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
		missing = append(missing, cache{rel, program})
		if program != "-" && !slices.Contains(programs, program) {
			programs = append(programs, program)
		}
	}
	if len(missing) == 0 {
		return
	}
	found := lookPrograms(programs, path, memo)
	checked, made := false, false
	for _, c := range missing {
		if c.program != "-" && !found[c.program] {
			continue // the tool is not installed: nothing will use it
		}
		if made {
			// An entry made before may hold this one.
			if _, err := os.Lstat(filepath.Join(real, c.rel)); err == nil || !os.IsNotExist(err) {
				continue
			}
		}
		if !checked {
			if real != platform.AccountHome() && refusedWorkspace(real, "") {
				return // HOME=/etc: no home of anyone's
			}
			checked = true
		}
		mkdirBelow(real, strings.Split(c.rel, "/"))
		made = true
	}
}

// onPath reports which of programs are executable files in one of the
// absolute directories of path, looking in each directory once (PATH
// often names one twice) and for the programs not found yet.
func onPath(programs []string, path string) map[string]bool {
	found := make(map[string]bool, len(programs))
	left := 0
	for _, p := range programs {
		if p != "" && !strings.ContainsRune(p, '/') {
			left++
		}
	}
	for _, dir := range pathDirs(path) {
		if left == 0 {
			break
		}
		for _, p := range programs {
			if found[p] || p == "" || strings.ContainsRune(p, '/') {
				continue
			}
			if fi, err := os.Stat(filepath.Join(dir, p)); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				found[p] = true
				left--
			}
		}
	}
	return found
}

// pathDirs are the absolute directories of path, cleaned, each once, in
// order: where [onPath] looks.
func pathDirs(path string) []string {
	var dirs []string
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if dir = filepath.Clean(dir); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// CachesMade returns the directories of the rules' made_caches that a
// command makes under the home directory when they are missing (those
// always made, and those whose program is on PATH): writable in the
// sandbox from the first command on, whether they exist yet or not
// (cordon doctor --prefix, asked before anything ran, counts them).
func (ctx *Context) CachesMade() []string {
	home := ctx.Getenv("HOME")
	if ctx.Rules == nil || !filepath.IsAbs(home) {
		return nil
	}
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	var out, programs []string
	entries := ctx.Rules.Set.Paths().MadeCaches
	for _, e := range entries {
		if _, program, _ := strings.Cut(e, " "); program != "-" && program != "" {
			programs = append(programs, program)
		}
	}
	found := onPath(programs, ctx.Getenv("PATH"))
	for _, e := range entries {
		e, program, _ := strings.Cut(e, " ")
		rel, ok := strings.CutPrefix(e, "~/")
		if !ok || rel == "" || program != "-" && !found[program] {
			continue
		}
		out = append(out, filepath.Join(home, filepath.Clean(rel)))
	}
	return out
}
