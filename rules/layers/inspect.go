package layers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cordonsh/cordon/rules"
)

// A Report is a load for people (cordon rules lint, test, show): never
// from or into the cache, with what the shim does not need.
type Report struct {
	*Loaded
	// Failures are the examples that failed; Examples is how many ran.
	Failures []Failure
	Examples int
	// Lint are "file:line: message" warnings: policies that override
	// others, policies no effect can reach, policies without examples.
	Lint []string
	// Only are the files asked about, when there are some.
	Only []string
}

// Inspect loads the rules for workspace as [Load] does, without the
// cache, and lints them. extra are rule files or directories of them to
// look at: those already in a layer are only picked out, the others are
// laid over everything as trusted files of the user's. The error is the
// first file that cannot be loaded, as for Load.
func Inspect(workspace string, getenv func(string) string, judge Judge, extra []string) (*Report, error) {
	files, err := scan(workspace, getenv)
	if err != nil {
		return nil, err
	}
	trust := readTrust(stateDir(getenv))
	for _, f := range files {
		if f.Layer == Project && trust.Files[f.Path] == f.Hash {
			f.Trusted = true
		}
	}
	rep := &Report{}
	for _, p := range expand(extra) {
		abs, _ := filepath.Abs(p)
		rep.Only = append(rep.Only, abs)
		if slices.ContainsFunc(files, func(f *found) bool { return f.Path == abs }) {
			continue
		}
		f, err := read(abs, User, "")
		if err != nil {
			return nil, err
		}
		if f == nil {
			return nil, &rules.LoadError{File: p, Msg: "no such rule file"}
		}
		files = append(files, f)
	}
	r, err := decodeAll(files, trust, judge)
	if err != nil {
		return nil, err
	}
	rep.Loaded, rep.Failures, rep.Examples = r.Loaded, r.failures, r.examplesRun
	rep.lint(r)
	return rep, nil
}

// expand replaces directories by their .yaml files.
func expand(paths []string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			m, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
			out = append(out, m...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// Asked reports whether file is one the report was asked about.
func (rep *Report) Asked(file string) bool {
	return len(rep.Only) == 0 || slices.Contains(rep.Only, file)
}

func (rep *Report) lint(r *result) {
	seen := map[string]Source{}
	for _, p := range builtin().Policies() {
		seen[p.ID] = Source{Layer: Builtin, File: "built-in"}
	}
	for _, a := range r.applied {
		for i, p := range a.Rules.Policies {
			at := where(a.Path, a.PolicyLines[i])
			if old, ok := seen[p.ID]; ok && !p.Disable {
				rep.Lint = append(rep.Lint, fmt.Sprintf("%s: policy %q overrides the one from %s (%s)", at, p.ID, where(old.File, old.Line), old.Layer))
			}
			seen[p.ID] = Source{Layer: a.Layer, File: a.Path, Line: a.PolicyLines[i]}
			if len(p.Match) == 0 && !p.Disable {
				rep.Lint = append(rep.Lint, fmt.Sprintf("%s: policy %q has no match examples", at, p.ID))
			}
		}
	}
	ps := r.Set.Policies()
	for i, p := range ps {
		src, ok := r.Policies[p.ID]
		if !ok || src.Layer == Builtin {
			continue
		}
		if j := slices.IndexFunc(ps[:i], func(q *rules.Policy) bool { return covers(q, p) }); j >= 0 {
			rep.Lint = append(rep.Lint, fmt.Sprintf("%s: policy %q is unreachable: %q is tried first and matches everything it matches", where(src.File, src.Line), p.ID, ps[j].ID))
		}
	}
}

// covers reports whether q matches every effect p matches: then, tried
// first, q always wins and p never applies.
func covers(q, p *rules.Policy) bool {
	sub := func(qs, ps []string) bool {
		if len(qs) == 0 {
			return true
		}
		if len(ps) == 0 {
			return false
		}
		for _, x := range ps {
			if !slices.Contains(qs, x) {
				return false
			}
		}
		return true
	}
	priv := q.Privileged == nil || p.Privileged != nil && *p.Privileged == *q.Privileged
	return sub(q.Effect, p.Effect) && len(q.Effect) > 0 && sub(q.Target, p.Target) && sub(q.State, p.State) &&
		priv && (!q.Recursive || p.Recursive)
}
