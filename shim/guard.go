package shim

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/rules"
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
// COMMAND, PID-START the command process's start ([platform.ProcessStart],
// so that a reused pid is not waited for), START the command's start in
// Unix nanoseconds.
const SnapshotRole = "cordon-snapshot"

// SnapshotMain is the saver: it waits for process PID to end, then saves
// the workspace. It prints nothing (its output goes nowhere); a failure
// is appended to guard.log in the store.
func SnapshotMain(args []string) int {
	if len(args) != 7 {
		return 2
	}
	ws, pidStart, id, dir, command := args[0], args[2], args[4], args[5], args[6]
	pid, err := strconv.Atoi(args[1])
	start, err2 := strconv.ParseInt(args[3], 10, 64)
	if err != nil || err2 != nil {
		return 2
	}
	env := os.Environ()
	getenv := envLookup(env)
	cfg, err := config.Load(getenv)
	if err != nil {
		return 1
	}
	sn := &cfg.Snapshots
	store := snapshot.Open(StateDir(getenv), snapshot.Budgets{File: int64(sn.MaxFile), Command: int64(sn.MaxCommand), Total: int64(sn.MaxTotal)})
	snapshot.WaitExit(pid, pidStart)
	ended, _ := store.FileClock() // the command's end, before anything else changes
	unlock, err := store.LockPending(ws)
	if err != nil {
		return 1
	}
	defer unlock()
	defer store.DonePending(ws, pid, pidStart)
	if err := guardSave(store, ws, id, dir, command, time.Unix(0, start), ended, env); err != nil {
		guardLog(store, fmt.Sprintf("%s %s: %v\n", time.Now().Format(time.RFC3339), ws, err))
		return 1
	}
	return 0
}

// guardSave is one round of the guard for ws, after the command
// (snapshot id, "" when it has none) started at start ran in dir and
// ended at ended (on the file clock, see [snapshot.Store.FileClock]).
func guardSave(store *snapshot.Store, ws, id, dir, command string, start, ended time.Time, env []string) error {
	// The shim made .git/hooks before the command ran (see
	// platform.Policy); gone now, the repository is being removed: reading
	// its state would make the directory again (the policy git is found
	// with makes it), in the middle of that removal.
	if _, err := os.Lstat(filepath.Join(ws, ".git", "hooks")); err != nil {
		return nil
	}
	paths, err := unrecoverable(ws, dir, env)
	if err != nil {
		return err
	}
	_, err = store.Track(ws, paths, &snapshot.Manifest{ID: id, Command: command, Dir: dir, Workspace: ws, Time: start, Ended: ended})
	return err
}

// unrecoverable lists ws's untracked and modified paths, without the
// ignored ones and what a build makes again.
func unrecoverable(ws, dir string, env []string) ([]string, error) {
	getenv := envLookup(env)
	loaded, err := Rules(ws, getenv)
	if err != nil {
		return nil, err
	}
	repo := &gitstate.Repo{Top: ws, Env: env, Host: gitHostFor(dir, env)}
	changes, err := repo.Changes()
	if err != nil {
		return nil, err
	}
	renv := &rules.Env{Home: getenv("HOME"), Workspace: ws, Getenv: getenv}
	var paths []string
	for _, ch := range changes {
		p := filepath.Clean(ch.Path)
		if ch.Kind == rules.Ignored || loaded.Set.IsRegenerable(renv, p) {
			continue
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// maxGuardLog bounds guard.log; past it, the log starts again.
const maxGuardLog = 64 << 10

func guardLog(store *snapshot.Store, line string) {
	file := filepath.Join(store.Dir, "guard.log")
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fi, err := os.Stat(file); err == nil && fi.Size() > maxGuardLog {
		flags |= os.O_TRUNC
	}
	if f, err := os.OpenFile(file, flags, 0o600); err == nil {
		f.WriteString(line)
		f.Close()
	}
}
