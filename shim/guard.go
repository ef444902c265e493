package shim

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/layers"
	"github.com/cordonsh/cordon/snapshot"
)

// The continuous guard: the judge can be fooled (a program written to
// disk and run, a tool it does not know), and the sandbox leaves the
// workspace writable, so the shim also starts, for each command it runs
// in a git workspace, a detached cordon (the hidden role [SnapshotRole])
// that waits for the command to end and then saves, off the critical
// path, the untracked and modified files that changed since the last
// save (ignored and regenerable files are left out; budgets apply), and
// records what the command replaced or deleted of the earlier saves as a
// snapshot `cordon undo` can restore. The next command in the workspace
// waits only while such a save is still running.

// SnapshotRole is the hidden argv[0] that makes cordon the guard's
// saver: SnapshotRole WORKSPACE PID PID-START START SNAPSHOT-ID DIR
// COMMAND [CLOCK], PID-START the command process's start
// ([platform.ProcessStart], so that a reused pid is not waited for),
// START the command's start in Unix nanoseconds, CLOCK the file clock
// read before it ([snapshot.Store.FileClock]; without it, no pre-round).
const SnapshotRole = snapshot.SaverRole

// SnapshotMain is the saver: it waits for process PID to end, then saves
// the workspace. It prints nothing (its output goes nowhere); a failure
// is appended to guard.log in the store.
func SnapshotMain(args []string) int {
	if len(args) != 7 && len(args) != 8 {
		return 2
	}
	ws, pidStart, id, dir, command := args[0], args[2], args[4], args[5], args[6]
	pid, err := strconv.Atoi(args[1])
	start, err2 := strconv.ParseInt(args[3], 10, 64)
	if err != nil || err2 != nil {
		return 2
	}
	env := os.Environ()
	getenv := decide.EnvLookup(env)
	cfg, err := config.Load(getenv)
	if err != nil {
		return 1
	}
	sn := &cfg.Snapshots
	store := snapshot.Open(decide.StateDir(getenv), snapshot.Budgets{File: int64(sn.MaxFile), Command: int64(sn.MaxCommand), Total: int64(sn.MaxTotal)})
	if len(args) == 8 {
		if clock, err := strconv.ParseInt(args[7], 10, 64); err == nil {
			preRound(store, ws, time.Unix(0, clock), env)
		}
	}
	snapshot.WaitExit(pid, pidStart)
	ended, _ := store.FileClock() // the command's end, before anything else changes
	// Last, once the round is done and no command waits for this saver:
	// what ended commands, sessions and workspaces left in the state
	// directory (a session's manager does the same when it starts; this
	// saver runs with sessions off too).
	defer func() {
		store.CleanTemp()
		guard.CleanLedgers(decide.StateDir(getenv))
		platform.CleanLayers(decide.StateDir(getenv))
	}()
	unlock, err := store.LockPending(ws)
	if err != nil {
		return 1
	}
	defer unlock()
	defer store.DonePending(ws, pid, pidStart)
	store.CountRound(ws)
	began := time.Unix(0, start)
	if len(args) == 8 {
		if clock, err := strconv.ParseInt(args[7], 10, 64); err == nil {
			began = time.Unix(0, clock)
		}
	}
	if err := guardSave(store, ws, id, dir, command, time.Unix(0, start), began, ended, env); err != nil {
		store.Log(fmt.Sprintf("%s: %v", ws, err))
		return 1
	}
	return 0
}

// guardSave is one round of the guard for ws, after the command
// (snapshot id, "" when it has none) started at start ran in dir and
// ended at ended (on the file clock, see [snapshot.Store.FileClock]).
// It keeps the repository's own data (the rules' git_data as files,
// git_objects in the store's mirror) and the files git cannot restore.
// When the repository is broken or gone (a command removed .git, or the
// workspace), git is not run: the files the last round kept are looked
// at again, so that their loss is recorded, as is the loss of the
// repository's data.
func guardSave(store *snapshot.Store, ws, id, dir, command string, start, began, ended time.Time, env []string) error {
	getenv := decide.EnvLookup(env)
	loaded, err := decide.Rules(ws, getenv)
	if err != nil {
		return err
	}
	classes := loaded.Set.Paths()
	gitDir := filepath.Join(ws, ".git")
	var paths []string
	var extra []snapshot.Entry // the index, as a tree
	var changed []snapshot.Entry
	intact := repoIntact(gitDir)
	repo := &gitstate.Repo{Top: ws, Env: env, Host: gitHostFor(dir, env)}
	if intact {
		if paths, err = unrecoverable(ws, repo, getenv, loaded); err != nil {
			// A repository git cannot read (an index or an object a
			// command broke) is kept as one that is gone: what the last
			// round kept, and the repository's own files, are looked at.
			store.Log(fmt.Sprintf("%s: git cannot read the repository, the round keeps its files without it: %v", ws, err))
			intact = false
		} else {
			paths = append(paths, hiddenFromStatus(store, ws, gitDir, repo, paths)...)
		}
	}
	if intact {
		// What is staged, kept as the tree git writes of it (a few bytes
		// where the file is a megabyte in a large project), the trees the
		// repository lacks written into the store, not the repository
		// (which stays as the command left it); an index git cannot write
		// a tree of (a merge's conflicts) is kept as a file.
		if tree, err := repo.WriteTreeAside(store.TreeDir(gitDir)); err == nil {
			extra = append(extra, snapshot.Entry{Path: filepath.Join(gitDir, "index"), Type: snapshot.TypeIndexTree, Commit: tree})
		}
	} else {
		for _, e := range store.Index(ws).Entries {
			if !decide.Within(e.Path, []string{gitDir}) {
				paths = append(paths, e.Path)
			}
		}
	}
	// The repository's data and its submodules' (their git directories
	// are below its own); those the last round kept and that are gone
	// now are in the index, whose entries that are gone count as lost.
	for _, g := range gitDirsOf(store, gitDir) {
		for _, p := range snapshot.GitFiles(g, classes.GitData) {
			if len(extra) == 0 || p != extra[0].Path {
				paths = append(paths, p)
			}
		}
		res, err := store.TrackObjects(g, gitDir, classes.GitObjects)
		if err != nil {
			return err
		}
		for _, u := range res.Unkept {
			store.Log(fmt.Sprintf("%s: not kept: %s", ws, u))
		}
		for _, p := range res.Changed {
			changed = append(changed, snapshot.Entry{Path: p, Type: snapshot.TypeObject})
		}
	}
	m := &snapshot.Manifest{ID: id, Command: command, Dir: dir, Workspace: ws, Time: start, Ended: ended}
	res, err := store.Track(ws, paths, m, extra...)
	if err != nil {
		return err
	}
	// Auto-run places below the root (packages/app/.npmrc, a nested
	// .vscode/tasks.json, one below a nested repository's root) and links
	// to directories that hold one, that the command made or changed: the
	// guard keeps those at the root and at every repository's. git's walk
	// finds them by name (no number of files makes it give up), cordon's
	// own walk finds the links and what git cannot list (a broken index,
	// a nested repository, git timing out). Moved aside now that the
	// round has kept them. A session's watch that could not see every
	// directory leaves a mark: the round then looks from the watch's
	// start on.
	state := decide.StateDir(getenv)
	since := began
	mark, marked := guard.BelowSince(state, ws)
	if marked && mark.Before(since) {
		since = mark
	}
	var below []string
	if intact {
		below = belowRoot(ws, repo, classes.AutoRun, classes.Regenerable, since)
	}
	var roots []string
	nested, _ := platform.NestedRepos(ws, "")
	for _, n := range nested {
		roots = append(roots, n.Root)
	}
	clean := guard.CommittedPlaces(ws, env, repo.Host, roots, guard.PlaceSpecs(classes.AutoRun, classes.Regenerable))
	walked, made, complete := guard.FindBelow(state, ws, classes.AutoRun, platform.RegenerableNames(classes.Regenerable), roots, since, clean)
	for _, l := range guard.AdoptRoots(state, ws, made) {
		store.Log(l)
	}
	for _, p := range walked {
		if !slices.Contains(below, p) {
			below = append(below, p)
		}
	}
	lines := guard.MoveAside(state, ws, below)
	if !complete {
		lines = append(lines, "cordon: "+printable.String(ws)+": the workspace has more directories (or deeper) than the guard looks through for auto-run places below its root and links to them: those past them were not looked at; look before you run npm, direnv or an editor's tasks there")
		guard.SayNext(state, ws, "below-partial", lines[len(lines)-1:])
	}
	for _, l := range lines {
		store.Log(l)
	}
	if marked {
		guard.DoneBelow(state, ws, mark)
	}
	if err := store.RecordLost(m, changed); err != nil {
		return err
	}
	for _, u := range res.Skipped {
		store.Log(fmt.Sprintf("%s: not kept: %s", ws, u))
	}
	return nil
}

// gitDirsOf returns the git directories whose data a round keeps: the
// repository's at gitDir and its submodules', and those the store
// mirrors below gitDir that are gone now (so that their objects are
// found gone).
func gitDirsOf(store *snapshot.Store, gitDir string) []string {
	var dirs []string
	if fi, err := os.Lstat(gitDir); err == nil && fi.IsDir() {
		dirs = snapshot.GitDirs(gitDir)
	}
	for _, g := range store.Mirrored(gitDir) {
		if !slices.Contains(dirs, g) && len(dirs) < snapshot.MaxGitDirs {
			dirs = append(dirs, g)
		}
	}
	if len(dirs) > 0 {
		store.SetModules(gitDir, dirs[1:])
	}
	return dirs
}

// preRound runs while the command starts: what a person changed of the
// repository's data (refs, the stash, reflogs; not the index) and the
// objects they added since the last round, a commit of their own, are
// kept before the command can destroy them (see [snapshot.Store.Refresh]),
// clock being the file clock read before the command started.
// git is not run: it would contend with the command's git for the
// index's lock.
func preRound(store *snapshot.Store, ws string, start time.Time, env []string) {
	gitDir := filepath.Join(ws, ".git")
	if !repoIntact(gitDir) {
		return
	}
	loaded, err := decide.Rules(ws, decide.EnvLookup(env))
	if err != nil {
		return
	}
	classes := loaded.Set.Paths()
	var paths []string
	for _, g := range gitDirsOf(store, gitDir) {
		for _, p := range snapshot.GitFiles(g, classes.GitData) {
			if filepath.Base(p) != "index" {
				paths = append(paths, p)
			}
		}
		store.TrackNewObjects(g, gitDir, classes.GitObjects)
	}
	store.Refresh(ws, paths, start)
}

// repoIntact reports whether git can be asked about the repository at
// gitDir: it has a HEAD, and the hooks directory the shim made before
// the command ran (see platform.Policy) is still there. Reading a
// repository's state finds git with a policy that makes that directory
// again, which must not happen in the middle of its removal.
func repoIntact(gitDir string) bool {
	for _, f := range []string{"HEAD", "hooks"} {
		if _, err := os.Lstat(filepath.Join(gitDir, f)); err != nil {
			return false
		}
	}
	return true
}

// hiddenFromStatus returns the files the last round kept that git
// status no longer lists, that are still there, and that git status does
// not look at (skip-worktree, assume-unchanged): their changes stay the
// person's work, not something git can restore.
func hiddenFromStatus(store *snapshot.Store, ws, gitDir string, repo *gitstate.Repo, paths []string) []string {
	listed := map[string]bool{}
	for _, p := range paths {
		listed[p] = true
	}
	var dropped []string
	for _, e := range store.Index(ws).Entries {
		if listed[e.Path] || decide.Within(e.Path, []string{gitDir}) || e.Type != snapshot.TypeFile {
			continue
		}
		if _, err := os.Lstat(e.Path); err == nil {
			dropped = append(dropped, e.Path)
		}
	}
	hidden, err := repo.Hidden(dropped)
	if err != nil {
		return dropped // unknown: keep them all
	}
	return hidden
}

// unrecoverable lists ws's untracked, modified and ignored paths,
// without what a build makes again (the rules' regenerable class) unless
// git tracks it (a modified tracked file is the person's work, whatever
// its name).
func unrecoverable(ws string, repo *gitstate.Repo, getenv func(string) string, loaded *layers.Loaded) ([]string, error) {
	changes, err := repo.Changes()
	if err != nil {
		return nil, err
	}
	renv := &rules.Env{Home: getenv("HOME"), Workspace: ws, Getenv: getenv}
	var paths []string
	for _, ch := range changes {
		p := filepath.Clean(ch.Path)
		if ch.Kind != rules.Modified && loaded.Set.IsRegenerable(renv, p) {
			continue
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// belowRoot returns the auto-run places below ws's root (entries: the
// rules' autorun list, see [platform.BelowRoot]) that changed since
// began: committed, untracked or ignored, found by git's own walk for
// their names (regenerable directories, node_modules, left out), so that
// no number of other files hides one.
func belowRoot(ws string, repo *gitstate.Repo, entries, regenerable []string, began time.Time) []string {
	specs := guard.PlaceSpecs(entries, regenerable)
	if len(specs) == 0 {
		return nil
	}
	files, err := repo.Files(specs, true)
	if err != nil {
		return nil
	}
	var out []string
	var clean []string // tracked files unchanged, asked of git when needed
	asked := false
	for _, rel := range files {
		if !platform.BelowRoot(rel, entries) {
			continue
		}
		p := filepath.Join(ws, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil || slices.Contains(out, p) {
			continue
		}
		// A file moved in with its directory (mv staged/app packages/app)
		// keeps its change time; its directory's tells. Unless git has
		// it as committed, unchanged: the person's.
		if !snapshot.ChangedSince(fi, began) {
			if !dirChangedSince(ws, rel, began) {
				continue
			}
			if !asked {
				clean, _ = repo.Unchanged(specs)
				asked = true
			}
			if slices.Contains(clean, rel) {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// dirChangedSince reports whether a directory on the way from ws to rel
// (below ws, ws itself left out) changed since t: an entry made, removed
// or moved there, the directory itself moved.
func dirChangedSince(ws, rel string, t time.Time) bool {
	dir := filepath.Dir(filepath.FromSlash(rel))
	for dir != "." && dir != "/" && dir != "" {
		if fi, err := os.Lstat(filepath.Join(ws, dir)); err == nil && snapshot.ChangedSince(fi, t) {
			return true
		}
		dir = filepath.Dir(dir)
	}
	return false
}
