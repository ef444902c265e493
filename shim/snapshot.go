package shim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/snapshot"
)

// Snapshots before loss: when every reason the judge has to ask about a
// command is workspace content git cannot restore ([rules.Loss]), the
// shim saves that content in the snapshot store and runs the command;
// `cordon undo` brings it back. Content that cannot be saved (over a
// budget, a store a sandboxed command could write) leaves the verdict
// as it was.

// snapshotStore is the store for a command confined by c, or why there
// is none that sandboxed commands could not tamper with.
func snapshotStore(env []string, c *Confinement) (*snapshot.Store, error) {
	state := StateDir(envLookup(env))
	switch {
	case state == "":
		return nil, errors.New("there is no home directory to keep snapshots in")
	case c.Nested:
		return nil, errors.New("this shell runs inside a cordon sandbox, where cordon's state directory is read-only")
	case within(state, c.Policy.WritableRoots()):
		return nil, fmt.Errorf("cordon's state directory %s is inside a directory sandboxed commands can write (set XDG_STATE_HOME elsewhere)", Printable(state))
	}
	sn := &c.Settings.Snapshots
	return snapshot.Open(state, snapshot.Budgets{File: int64(sn.MaxFile), Command: int64(sn.MaxCommand), Total: int64(sn.MaxTotal)}), nil
}

// saveLosses saves what j says the command (its text: command) would
// destroy, before it runs in dir, and returns the snapshot.
func saveLosses(store *snapshot.Store, j *rules.Judgement, dir string, env []string, command string, c *Confinement) (*snapshot.Manifest, error) {
	ws := c.Workspace.Dir
	var paths []string
	var refs []snapshot.Entry
	var repo *gitstate.Repo
	for _, l := range j.Losses {
		if (l.Kind == "stash" || l.Kind == "unmerged") && repo == nil {
			if _, err := os.Lstat(filepath.Join(ws, ".git")); ws == "" || err != nil {
				return nil, errors.New("the repository could not be found")
			}
			repo = &gitstate.Repo{Top: ws, Env: env, Host: gitHost(dir, env)}
		}
		switch l.Kind {
		case "stash":
			stash, err := repo.StashEntries()
			if err != nil {
				return nil, fmt.Errorf("cannot read the stash: %v", err)
			}
			for _, s := range stash {
				refs = append(refs, snapshot.Entry{Type: snapshot.TypeStash, Path: ws, Commit: s.Commit, Message: s.Message})
			}
		case "unmerged":
			commit, err := repo.BranchCommit(l.Ref)
			if err != nil || commit == "" {
				return nil, fmt.Errorf("cannot read the branch %s: %v", Printable(l.Ref), err)
			}
			refs = append(refs, snapshot.Entry{Type: snapshot.TypeBranch, Path: ws, Ref: l.Ref, Commit: commit})
		default:
			paths = append(paths, l.Paths...)
		}
	}
	entries, total, err := store.Plan(paths)
	if err != nil {
		return nil, err
	}
	m := &snapshot.Manifest{Kind: snapshot.KindBefore, Command: command, Dir: dir, Workspace: ws, Entries: refs}
	return m, store.SaveEntries(m, entries, total)
}

// commandText is the command as the person would read it in cordon undo
// --list.
func commandText(inv *Invocation, argv []string) string {
	if inv != nil && inv.Mode == ModeCommand {
		return inv.Script
	}
	return QuoteArgv(argv)
}

// UndoStore returns the snapshot store for a person's `cordon undo` run
// in dir, refusing inside a cordon sandbox: an agent must not undo a
// person's work (the rules deny `cordon undo` through the shim too, and
// the store is read-only and hidden in the sandbox).
func UndoStore(dir string, env []string) (*snapshot.Store, error) {
	c, err := Confine(dir, env, &ConfineOptions{Inspect: true})
	if err != nil {
		// No sandbox can run here, so this is not inside one.
		cfg, cerr := config.Load(envLookup(env))
		if cerr != nil {
			return nil, cerr
		}
		c = &Confinement{Settings: cfg, Policy: &platform.Policy{}}
	}
	if c.Nested {
		return nil, errors.New("refused inside a cordon sandbox: an agent must not undo a person's work; run it in your own terminal")
	}
	return snapshotStore(env, c)
}

// GitRestorer is what `cordon undo` restores stash entries and branches
// with: git run as the judge runs it (package gitstate), never the
// repository's own configuration.
func GitRestorer(dir string, env []string) snapshot.Git { return &gitRestorer{dir: dir, env: env} }

type gitRestorer struct {
	dir   string
	env   []string
	repos map[string]*gitstate.Repo
}

func (g *gitRestorer) repo(top string) *gitstate.Repo {
	if g.repos == nil {
		g.repos = map[string]*gitstate.Repo{}
	}
	if r := g.repos[top]; r != nil {
		return r
	}
	r := &gitstate.Repo{Top: top, Env: g.env, Host: gitHost(top, g.env)}
	g.repos[top] = r
	return r
}

func (g *gitRestorer) Stashes(top string) ([]string, error) {
	entries, err := g.repo(top).StashEntries()
	var out []string
	for _, e := range entries {
		out = append(out, e.Commit)
	}
	return out, err
}

func (g *gitRestorer) StoreStash(top, commit, msg string) error {
	return g.repo(top).StoreStash(commit, msg)
}

func (g *gitRestorer) Branch(top, name string) (string, error) { return g.repo(top).BranchCommit(name) }

func (g *gitRestorer) SetBranch(top, name, commit string) error {
	return g.repo(top).CreateBranch(name, commit)
}
