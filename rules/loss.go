package rules

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Losses: what of an asked-about destruction a snapshot can keep.

// savableStates are the states whose content is known and on this
// machine: a snapshot can hold it.
var savableStates = map[string]bool{
	"uncommitted": true, "untracked": true, "irreplaceable": true, "unversioned": true,
	"stash": true, "unmerged": true,
}

// maxLossWalk bounds the entries looked at to enumerate a filtered
// delete's targets (find -name X -delete); past it, the loss is not
// savable.
const maxLossWalk = 20000

// noteLoss records reason i, made by p for e in state, as a [Loss] when a
// snapshot can cover it, or as unsavable.
func (j *judging) noteLoss(p *Policy, e Effect, state string, i int) {
	l, ok := j.lossOf(p, e, state)
	if !ok {
		j.unsavable[i] = true
		return
	}
	l.Rule, l.Reason = p.ID, i
	j.j.Losses = append(j.j.Losses, l)
}

func (j *judging) lossOf(p *Policy, e Effect, state string) (Loss, bool) {
	l := Loss{Kind: state, Effect: e.Kind}
	// A state the script itself makes (a stash it pushes, a branch it
	// commits to) is not there yet for a snapshot taken before it runs.
	if p.Verdict != "ask" || !slices.Contains(p.Category, "destroy-ws") || !savableStates[state] || j.ctx.Env.Foreign || j.ctx.Env.Windows || e.State != "" {
		return l, false
	}
	switch {
	case e.Kind == "drop-stash" && state == "stash":
		return l, true
	case e.Kind == "delete-branch" && state == "unmerged":
		l.Ref = e.Raw
		return l, true
	case e.Path == "" || e.Class != ClassWorkspace && e.Class != ClassWSRoot:
		return l, false
	}
	l.Path = e.Path
	var ok bool
	l.Paths, ok = j.lostPaths(e)
	return l, ok && len(l.Paths) > 0
}

// lostPaths are the files and directories e would destroy that git
// cannot restore: git's changes inside e's target that [judging.changeLoss]
// counts (the target itself inside an untracked or ignored directory),
// narrowed to e's filter; the whole target in a workspace that is no
// repository.
func (j *judging) lostPaths(e Effect) ([]string, bool) {
	if j.ctx.Repo == nil {
		return filtered(e.Path, e.Filter)
	}
	changes, err := j.repoChanges()
	if err != nil {
		return nil, false
	}
	var out []string
	for _, ch := range changes {
		p := strings.TrimSuffix(ch.Path, "/")
		root := p
		switch {
		case within(p, e.Path):
		case within(e.Path, p):
			root = e.Path
		default:
			continue
		}
		if j.changeLoss(e, ch, p) == "recoverable" {
			continue
		}
		paths, ok := filtered(root, e.Filter)
		if !ok {
			return nil, false
		}
		out = append(out, paths...)
	}
	return out, true
}

// filtered is root when filter is empty, else the paths under root
// whose name matches filter; false when there are too many to look at.
func filtered(root, filter string) ([]string, bool) {
	if filter == "" {
		return []string{root}, true
	}
	var out []string
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if n++; n > maxLossWalk {
			return filepath.SkipAll
		}
		if err == nil && filterMatch(filter, p) {
			out = append(out, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out, err == nil && n <= maxLossWalk
}
