package rules

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/parse"
)

// What the sandbox would stop, the judge says first: a write the
// policies would allow to a place the sandbox keeps read-only, a push
// to a repository it cannot write, a remote it cannot reach. Allowed, each
// would fail with EROFS or an authentication error in the sandbox.

// writes are the effects that write their target.
var writes = map[string]bool{"delete": true, "overwrite": true, "modify": true, "rewrite": true, "move": true}

// sandboxed turns eff, a write, into one on a read-only place
// (ClassReadOnly, or ClassProgDir for an installs entry) when the
// sandbox will not let the command write its path and no policy would
// otherwise stop it there.
func (s *Set) sandboxed(e *Env, eff Effect) Effect {
	if e.Writable == nil || eff.Path == "" || !writes[eff.Kind] {
		return eff
	}
	switch eff.Class {
	case ClassCache, ClassScratch, ClassAgent, ClassWorkspace, ClassHistory, ClassOutside:
	default:
		return eff
	}
	if e.Writable(eff.Path) {
		return eff
	}
	switch {
	case e.matchAny(eff.Path, s.pathsFor(e).Installs):
		eff.Class = ClassProgDir
	case eff.Class != ClassOutside:
		eff.Class = ClassReadOnly
	}
	return eff
}

// sibling reports whether path lies beside the workspace: in the
// directory that holds it, when that is neither the root nor the home
// directory (a checkout under /srv next to /srv/app).
func (e *Env) sibling(path string) bool {
	if e.Workspace == "" {
		return false
	}
	parent := filepath.Dir(e.Workspace)
	return parent != "/" && parent != e.Home && parent != "." && within(path, parent) && !within(path, e.Workspace)
}

// implied returns the first of entries that expands: "~/x", a path, or
// "$NAME/x" with NAME from the command's assignments, else from the
// environment.
func (e *Env) implied(entries, assigns []string) []parse.Word {
	for _, entry := range entries {
		name, rest, isVar := strings.Cut(strings.TrimPrefix(entry, "$"), "/")
		if !strings.HasPrefix(entry, "$") {
			if p := e.expandEntry(entry); p != "" {
				return []parse.Word{{Text: p}}
			}
			continue
		}
		v := ""
		for _, a := range assigns {
			if k, val, ok := strings.Cut(a, "="); ok && k == name {
				v = val
			}
		}
		if v == "" && e.Getenv != nil {
			v = e.Getenv(name)
		}
		if v == "" {
			continue
		}
		if isVar {
			v = filepath.Join(v, rest)
		}
		return []parse.Word{{Text: v}}
	}
	return nil
}

// remotes gives the git remotes that pushes and fetches name (or the
// default one, when they name none) their address and class: a local
// repository is its path (and a push to one the sandbox cannot write
// goes to a read-only place), a remote reached over SSH is ClassSSH,
// whose keys and agent the sandbox hides, and one over HTTP keeps the
// network class of its host.
func (j *judging) remotes() {
	for i, effs := range j.effects {
		for n := range effs {
			eff := &effs[n]
			c := &j.res.Commands[i]
			if eff.Kind != "push-to" && eff.Kind != "fetch-from" || c.Elsewhere {
				continue // another machine's remotes are not this one's
			}
			url := eff.Raw
			if j.remoteName(url, c.Dir) {
				name, u, err := j.ctx.Repo.Remote(url, eff.Kind == "push-to")
				if err != nil {
					continue
				}
				eff.Raw, url = name, u
			}
			if url == "" || strings.Contains(url, "?") {
				continue
			}
			j.remoteClass(eff, url, c.Dir)
		}
	}
}

// remoteName reports whether a git command run in dir names the
// workspace repository's remote name ("" for its default one), not a
// URL or a path.
func (j *judging) remoteName(name, dir string) bool {
	if j.ctx.Repo == nil || j.ctx.Env.Foreign || !within(dir, j.ctx.Workspace) {
		return false
	}
	if name == "" {
		return true
	}
	remotes, err := j.ctx.Repo.Remotes()
	return err == nil && slices.Contains(remotes, name)
}

// remoteClass classifies the remote at url for eff.
func (j *judging) remoteClass(eff *Effect, url, dir string) {
	e := &j.ctx.Env
	scheme, _, hasScheme := strings.Cut(url, "://")
	scheme = strings.ToLower(scheme)
	switch {
	case hasScheme && scheme == "file":
		url = strings.TrimPrefix(url[len("file://"):], "localhost")
	case hasScheme && strings.Contains(scheme, "ssh"), !hasScheme && isRemote(url):
		eff.Path, eff.Class = url, ClassSSH
		return
	case hasScheme:
		eff.Path, eff.Class = url, j.set.hostClass(url)
		if eff.Class == ClassNone {
			eff.Class = ClassRemote
		}
		return
	}
	if e.Foreign || e.Windows {
		return
	}
	eff.Path = e.resolve(url, dir, false)
	eff.Class = j.set.classify(e, eff.Path)
	if eff.Kind == "push-to" && e.Writable != nil && eff.Path != "" && !e.Writable(eff.Path) {
		eff.Class = ClassReadOnly
	}
}
