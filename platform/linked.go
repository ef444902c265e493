package platform

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Links out of the read-only places. A person commonly links a hook to
// a tracked script (ln -s ../../scripts/pre-commit .git/hooks/pre-commit,
// or husky's hooks directory to one in the tree): .git/hooks is read-only
// in the sandbox, but the script the link leads to is an ordinary
// workspace file, and what a command writes there runs at the person's
// next git commit. A read-only place that is itself a link (.envrc -> x)
// is resolved to its target by [resolver.existing] already; the links
// inside read-only directories are found here, and what they lead to in
// a writable directory is kept read-only too (and guarded, in the
// workspace), as the place itself is.

// maxLinkedEntries bounds the entries looked at below each read-only
// directory (hooks directories hold a dozen). Past it, the directory's
// other entries are not looked at: a link among them leads to a place
// that stays writable. A command cannot add entries to a read-only
// directory to push a person's link past the bound.
const maxLinkedEntries = 256

// maxLinkedDepth bounds how deep below a read-only directory its
// subdirectories (husky's _) are looked into for links.
const maxLinkedDepth = 4

// linkedPlaces returns the places inside roots (the writable roots)
// that links below the directories among dirs lead to, resolved as the
// host follows them (relative to the link's directory, through further
// links), and not inside one of dirs already: the existing ones, to be
// kept read-only; and every one inside ws, existing or not (a link
// whose target is missing runs what a command makes there), to be
// guarded. A target that is or holds a writable root (a link to the
// workspace) cannot be read-only without it, and is left out. A target
// that is a directory is looked into as well, within the same bound.
func (r *resolver) linkedPlaces(ws string, dirs, roots []string) (readOnly, guarded []string) {
	covered := slices.Clone(dirs)
	for _, dir := range dirs {
		budget := maxLinkedEntries
		for todo := []string{dir}; len(todo) > 0; todo = todo[1:] {
			for _, t := range r.linksBelow(todo[0], maxLinkedDepth, &budget) {
				if !linkedTargetKept(t, roots, covered) {
					continue
				}
				covered = append(covered, t)
				fi, err := os.Lstat(t)
				if err == nil {
					readOnly = append(readOnly, t)
				}
				if ws != "" && Within(t, ws) {
					guarded = append(guarded, t)
				}
				if err == nil && fi.IsDir() {
					todo = append(todo, t)
				}
			}
		}
	}
	return readOnly, guarded
}

// linkedTargetKept reports whether a link's target t is to be kept:
// inside a writable root, holding none, and not inside a place kept
// already.
func linkedTargetKept(t string, roots, covered []string) bool {
	return slices.ContainsFunc(roots, func(w string) bool { return Within(t, w) }) &&
		!slices.ContainsFunc(roots, func(w string) bool { return Within(w, t) }) &&
		!slices.ContainsFunc(covered, func(c string) bool { return Within(t, c) })
}

// linksBelow returns the targets (real paths, see [resolver.real]) of
// the links in dir and in its subdirectories down to depth levels, at
// most *budget entries looked at, counted down. Subdirectories are
// entered by name, not through links.
func (r *resolver) linksBelow(dir string, depth int, budget *int) []string {
	if *budget <= 0 || depth <= 0 {
		return nil
	}
	// (Looked at first: a FIFO would block the open.)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	entries, _ := f.ReadDir(*budget)
	f.Close()
	*budget -= len(entries)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			out = append(out, r.linkTarget(p))
		case e.IsDir():
			out = append(out, r.linksBelow(p, depth-1, budget)...)
		}
	}
	return out
}

// protectLinked keeps read-only the places inside p's writable roots that
// links in the read-only directories among dirs lead to, and guards
// those inside the workspace ([resolver.linkedPlaces]): what is there is
// put back when a command ends, as the read-only place itself is. (The
// guard walks the workspace alone: a target elsewhere, in scratch space
// or a worktree's git directory, is read-only only.) It returns the
// places made read-only.
func (p *Policy) protectLinked(r *resolver, dirs []string) []string {
	readOnly, guarded := r.linkedPlaces(p.Workspace, dirs, p.WritableRoots())
	p.ReadOnly = append(p.ReadOnly, readOnly...)
	p.Guarded = append(p.Guarded, guarded...)
	return readOnly
}

// maxLinkHops bounds the links followed from a link whose target is
// missing, as the kernel's bound does.
const maxLinkHops = 40

// linkTarget is the real path link p leads to, as [resolver.real]
// resolves it; when that is a link whose target is missing (which
// [realPath] leaves as it is), what it would name: a command that makes
// it there makes what the link runs.
func (r *resolver) linkTarget(p string) string {
	t := r.real(p, os.ModeSymlink)
	for range maxLinkHops {
		fi, err := os.Lstat(t)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return t
		}
		target, err := os.Readlink(t)
		if err != nil {
			return t
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(t), target)
		}
		t = r.realPath(target)
	}
	return t
}
