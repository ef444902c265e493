package shim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
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

func init() { decide.BeforeRun = append(decide.BeforeRun, saveBeforeRun) }

// saveBeforeRun is the [decide.BeforeRun] step of snapshots: when every reason
// to ask about d's command is a loss, it waits for the continuous
// saver's pending save of the workspace, saves what the command would
// lose, lists the snapshot in d.Saved and allows the command; when it
// cannot, d.Unsaved says why and the verdict stays ask.
func saveBeforeRun(ctx *decide.Context, d *decision.Decision) {
	j := d.Judgement
	if j == nil || len(j.Losses) == 0 || !j.Savable() {
		return
	}
	prepare := ctx.Prepare
	if prepare == nil {
		prepare = func() (*decide.Confinement, error) { return ctx.Confine(nil) }
	}
	c, err := prepare()
	if err != nil {
		d.Unsaved = err.Error()
		return
	}
	store, err := snapshotStore(ctx.Env, c)
	if err != nil {
		d.Unsaved = err.Error()
		return
	}
	if ws := c.Workspace.Dir; ws != "" {
		store.WaitPending(ws)
	}
	m, err := saveLosses(ctx, store, j, d.Command, c)
	if err != nil {
		d.Unsaved = err.Error()
		return
	}
	d.Saved = append(d.Saved, m.ID)
	if d.Verdict == decision.Ask {
		d.Verdict = decision.Allow
	}
}

// prepareRound waits for the continuous saver's pending save of the
// workspace and makes this command's round (r.round), confined by c,
// which [execConfined] hands to the session's manager or starts right
// before the shell runs; only for a command that was decided.
func (r *run) prepareRound(c *decide.Confinement) {
	if !r.judged || r.ctx == nil {
		return
	}
	store, err := snapshotStore(r.env, c)
	if err != nil {
		return
	}
	if ws := c.Workspace.Dir; ws != "" {
		store.WaitPending(ws)
	}
	r.round = &guardRound{run: r, store: store, c: c}
}

// A guardRound is the continuous guard's round after one command.
type guardRound struct {
	run   *run
	store *snapshot.Store
	c     *decide.Confinement
}

// startSaver starts the round's saver (nil: none), for a command run in
// a sandbox of its own.
func (g *guardRound) startSaver() {
	if g != nil {
		r := g.run
		r.startGuard(g.store, g.c, r.ctx.Dir, r.saved, r.command, r.start)
	}
}

// snapshotStore is the store for a command confined by c, or why there
// is none that sandboxed commands could not tamper with.
func snapshotStore(env []string, c *decide.Confinement) (*snapshot.Store, error) {
	state := decide.StateDir(decide.EnvLookup(env))
	switch {
	case state == "":
		return nil, errors.New("there is no home directory to keep snapshots in")
	case c.Nested:
		return nil, errors.New("this shell runs inside a cordon sandbox, where cordon's state directory is read-only")
	case decide.Within(state, c.Policy.WritableRoots()):
		return nil, fmt.Errorf("cordon's state directory %s is inside a directory sandboxed commands can write (set XDG_STATE_HOME elsewhere)", printable.String(state))
	}
	sn := &c.Settings.Snapshots
	return snapshot.Open(state, snapshot.Budgets{File: int64(sn.MaxFile), Command: int64(sn.MaxCommand), Total: int64(sn.MaxTotal)}), nil
}

// saveLosses saves what j says the command (its text: command) would
// destroy, before it runs in dir, and returns the snapshot.
func saveLosses(ctx *decide.Context, store *snapshot.Store, j *rules.Judgement, command string, c *decide.Confinement) (*snapshot.Manifest, error) {
	dir, env := ctx.Dir, ctx.Env
	ws := c.Workspace.Dir
	var paths []string
	var refs []snapshot.Entry
	var repo *gitstate.Repo
	for _, l := range j.Losses {
		if (l.Kind == "stash" || l.Kind == "unmerged") && repo == nil {
			if _, err := os.Lstat(filepath.Join(ws, ".git")); ws == "" || err != nil {
				return nil, errors.New("the repository could not be found")
			}
			repo = &gitstate.Repo{Top: ws, Env: env, Host: decide.GitHost(ctx)}
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
				return nil, fmt.Errorf("cannot read the branch %s: %v", printable.String(l.Ref), err)
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
func commandText(inv *invocation.Invocation, argv []string) string {
	if inv != nil && inv.Mode == invocation.ModeCommand {
		return inv.Script
	}
	return invocation.QuoteArgv(argv)
}

// UndoStore returns the snapshot store for a person's `cordon undo` run
// in dir, refusing inside a cordon sandbox: an agent must not undo a
// person's work (the rules deny `cordon undo` through the shim too, and
// the store is read-only and hidden in the sandbox).
func UndoStore(dir string, env []string) (*snapshot.Store, error) {
	c, err := decide.Confine(dir, env, &decide.ConfineOptions{Inspect: true})
	if err != nil {
		// No sandbox can run here, so this is not inside one.
		cfg, cerr := config.Load(decide.EnvLookup(env))
		if cerr != nil {
			return nil, cerr
		}
		c = &decide.Confinement{Settings: cfg, Policy: &platform.Policy{}}
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
	r := &gitstate.Repo{Top: top, Env: g.env, Host: gitHostFor(top, g.env)}
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

// gitHostFor is [decide.GitHost] for reading the repository at dir with env
// outside a shim run (cordon undo, the continuous saver).
func gitHostFor(dir string, env []string) func() (gitstate.Host, error) {
	ctx, err := decide.NewContext(dir, env, nil)
	if err != nil {
		return func() (gitstate.Host, error) { return gitstate.Host{}, err }
	}
	return decide.GitHost(ctx)
}

func (g *gitRestorer) IndexTree(top string) (string, error) { return g.repo(top).WriteTreeAside("") }

func (g *gitRestorer) ReadTree(top, tree string) error { return g.repo(top).ReadTree(tree) }

func (g *gitRestorer) Complete(top string) (bool, error) {
	err := g.repo(top).Connected()
	return err == nil, err
}

func (g *gitRestorer) CheckoutMissing(top string) (int, error) {
	return g.repo(top).CheckoutMissing()
}

// UndoVet is how cordon undo, in the workspace of dir, writes back a
// file that runs or is obeyed on its own (the rules' autorun and
// git_config classes): a round may have saved it in the milliseconds
// before the guard undid a command's change to it (a command killed on
// a timeout ends before its guard has put the trusted file back). Such
// a file is not written back (its saved content goes beside it, for the
// person to check and move), except git's configuration, which a
// repository needs: it is written back without the keys that can make
// git run a program (outside git_config_safe), which go beside it in the
// whole saved file. With force, everything is written back as saved.
func UndoVet(dir string, env []string, force bool) func(string, string, func() ([]byte, error)) (snapshot.Verdict, string) {
	getenv := decide.EnvLookup(env)
	return func(ws, path string, saved func() ([]byte, error)) (snapshot.Verdict, string) {
		if force || ws == "" {
			return snapshot.Verdict{}, ""
		}
		loaded, err := decide.Rules(ws, getenv)
		if err != nil {
			return snapshot.Verdict{Keep: true}, "not written back: the rules cannot be read to tell whether it runs on its own (" + err.Error() + "); its saved content is beside it"
		}
		renv := &rules.Env{Home: getenv("HOME"), Workspace: ws, Getenv: getenv}
		if !loaded.Set.IsAutoRun(renv, path) {
			return snapshot.Verdict{}, ""
		}
		if saved == nil {
			return snapshot.Verdict{Keep: true}, "not written back: a symbolic link where tools run or obey a file on their own (a command may have made it, to lead them to its own file); make it again yourself if it was yours (or cordon undo --force)"
		}
		aside := filepath.Base(path) + ".cordon-undo-ID beside it"
		base := filepath.Base(path)
		if (base == "config" || base == "config.worktree") && filepath.Base(filepath.Dir(path)) == ".git" {
			data, err := saved()
			if err != nil {
				return snapshot.Verdict{Keep: true}, "not written back: " + err.Error()
			}
			trusted, _ := guard.TrustedContent(decide.StateDir(getenv), ws, path)
			safe, unsafe, err := safeConfig(dir, env, data, trusted, loaded.Set.GitConfigSafe())
			if err != nil {
				return snapshot.Verdict{Keep: true}, "not written back: git cannot read the saved file (" + err.Error() + "); it is " + aside
			}
			if len(unsafe) == 0 {
				return snapshot.Verdict{}, ""
			}
			return snapshot.Verdict{Write: safe}, fmt.Sprintf("written back with the keys that can make git run a program or send the work elsewhere as the guard trusted them, or without them (%s); the whole saved file is %s: copy them back if they are yours (or cordon undo --force)", strings.Join(unsafe, ", "), aside)
		}
		return snapshot.Verdict{Keep: true}, "not written back: tools run it or obey it on their own, and a command may have written it; its saved content is " + aside + ": check it and move it in place (or cordon undo --force)"
	}
}

// safeConfig returns git configuration data in which the keys that are
// not safe whatever their value (see package gitkey: conditional ones,
// a remote's address, core.worktree, are not either) have the entries
// trusted, the guard's trusted copy of the file, has for them (none
// when there is none); and the keys that differed. It is read and edited by the host's git on a private copy
// (reading and editing run nothing).
func safeConfig(dir string, env []string, data, trusted []byte, safe []string) ([]byte, []string, error) {
	host, err := gitHostFor(dir, env)()
	if err != nil {
		return nil, nil, err
	}
	write := func(data []byte) (string, error) {
		f, err := os.CreateTemp(host.Dir, "config-")
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if e := f.Close(); err == nil {
			err = e
		}
		return f.Name(), err
	}
	git := func(file string, args ...string) ([]byte, error) {
		cmd := exec.Command(host.Git, append([]string{"config", "--file", file}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + host.Dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}
		return cmd.Output()
	}
	file, err := write(data)
	defer os.Remove(file)
	if err != nil {
		return nil, nil, err
	}
	entries, err := gitstate.ListConfig(host.Git, data)
	if err != nil {
		return nil, nil, err
	}
	var before []gitkey.Entry
	if trusted != nil {
		before, _ = gitstate.ListConfig(host.Git, trusted)
	}
	values := func(es []gitkey.Entry, key string) []gitkey.Entry {
		return slices.DeleteFunc(slices.Clone(es), func(e gitkey.Entry) bool { return e.Key != key })
	}
	var unsafe []string
	for _, e := range entries {
		if gitkey.Safe(safe, e.Key) || slices.Contains(unsafe, e.Key) {
			continue
		}
		if before != nil && slices.Equal(values(entries, e.Key), values(before, e.Key)) {
			continue // as the person had it
		}
		unsafe = append(unsafe, e.Key)
	}
	for _, k := range unsafe {
		if _, err := git(file, "--unset-all", k); err != nil {
			return nil, nil, fmt.Errorf("cannot remove %s: %v", k, err)
		}
		// The person's own value, as the guard trusts it, goes back.
		for _, e := range values(before, k) {
			v := e.Value
			if e.Bare {
				v = "true"
			}
			if _, err := git(file, "--add", k, v); err != nil {
				return nil, nil, fmt.Errorf("cannot put back %s: %v", k, err)
			}
		}
	}
	clean, err := os.ReadFile(file)
	return clean, unsafe, err
}
