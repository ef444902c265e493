package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/cordonsh/cordon/internal/smallfile"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// The guard without a process tree, for a sandbox that outlives its
// commands (package sessionbox): the session's manager holds a ticket
// while a command runs or anything a command left runs in the sandbox,
// so that the disk is not trusted again meanwhile, and each command
// reconciles before it starts (a background process may have written
// since the last one) and after it ends.

// Hold records, for the calling process (the session's manager), that a
// sandbox with policy p runs in its workspace, as the start of a command
// does (see [begin]); [Release] ends it. While it is held, a code-running
// key written to git's configuration is undone at once, as during a
// command ([watchConfigs]): a background process of the session may
// write one at any time. The lines say what was put back, and what was
// adopted: the repositories that appeared below the root since the last
// trusted state ([adoptAppeared]).
func Hold(stateDir string, p *platform.Policy) ([]string, error) {
	return HoldWatched(stateDir, p, nil)
}

// HoldWatched is [Hold] for a session with its watch c ([WatchChanges]):
// the look for repositories that appeared since the last trusted state
// is left out when c ran from before that state was taken and saw none
// appear since it was last asked ([Changes.Appeared]). A nil c looks
// every time, and so does a watch younger than the trusted state (a new
// session's first ticket: what appeared before it started is not its).
func HoldWatched(stateDir string, p *platform.Policy, c *Changes) ([]string, error) {
	ws := p.Workspace
	lines, watch, prev, err := beginWatching(stateDir, ws, guardedBy(p), p.GitConfig, c)
	if err != nil {
		return lines, err
	}
	if !prev.IsZero() && (c.Appeared() || c.startedAfter(prev)) {
		lines = append(lines, adoptAppeared(stateDir, p, prev)...)
	}
	if len(p.GitConfig) > 0 {
		watching.Lock()
		if watching.stop == nil {
			watching.stop = map[string]func(){}
		}
		if _, ok := watching.stop[ws]; !ok {
			watching.stop[ws] = watchConfigs(stateDir, ws, watch, func(lines []string) { keepLines(stateDir, ws, lines) })
		}
		watching.Unlock()
	}
	return lines, nil
}

// watching holds the stop functions of the watches [Hold] started, by
// workspace.
var watching struct {
	sync.Mutex
	stop map[string]func()
}

// Release reconciles ws and drops the calling process's ticket.
func Release(stateDir, ws string) ([]string, error) {
	lines, _, err := ReleaseIdle(stateDir, ws)
	return lines, err
}

// ReleaseIdle is [Release] that also reports whether the ledger, once
// saved, holds no ticket: no command of any guard or session runs in ws,
// and what was kept to say is in lines. Then a [Reconcile] would find
// nothing to put back and only take the lines kept since.
func ReleaseIdle(stateDir, ws string) (lines []string, idle bool, err error) {
	lines, idle, save, err := ReleaseIdleSaveLater(stateDir, ws, nil)
	if err == nil {
		if err = save(); err != nil {
			idle = false
		}
	}
	return lines, idle, err
}

// ReleaseIdleSaveLater is [ReleaseIdle] but for the ledger's save, which
// the caller must do by calling save (its error is the save's): until
// then the ledger stays locked, so no other guard reads or writes it,
// and everything the release put back is back. A session's manager
// answers its command's shim in between: the save is off the command's
// path. idle assumes the save succeeds.
//
// With c, the session's watch of ws marked as the ticket was taken
// ([Changes.Mark]), the reconcile's walks are left out when nothing
// could have changed what they would find: c saw nothing change in ws
// since ([Changes.Still]) and every file the ledger trusts is as it was
// recorded, by its only name ([book.stillTrusted]). A nil c reconciles.
func ReleaseIdleSaveLater(stateDir, ws string, c *Changes) (lines []string, idle bool, save func() error, err error) {
	watching.Lock()
	if stop := watching.stop[ws]; stop != nil {
		stop()
		delete(watching.stop, ws)
	}
	watching.Unlock()
	put, idle, save, err := ending(stateDir, ws, c)
	if err != nil {
		return append(takeLines(stateDir, ws), put...), false, nil, err
	}
	return append(takeLines(stateDir, ws), put...), idle, save, nil
}

// Drop gives back the calling process's ticket in ws without putting
// anything back: for a ticket taken before a command that never came (a
// session's ticket taken early, while nothing of the session ran).
// Nothing it held ran, so what changed at the guarded places meanwhile
// is a person's, or another holder's, which that holder's own end puts
// back; a dead holder's leftovers are put back, as [Sweep] does.
func Drop(stateDir, ws string) ([]string, error) {
	watching.Lock()
	if stop := watching.stop[ws]; stop != nil {
		stop()
		delete(watching.stop, ws)
	}
	watching.Unlock()
	b, err := open(stateDir, ws, true)
	if err != nil {
		return nil, err
	}
	defer b.close()
	lines, _ := b.sweep()
	me := self()
	b.l.Active = slices.DeleteFunc(b.l.Active, func(t ticket) bool { return t == me })
	b.closeHeld()
	return append(takeLines(stateDir, ws), lines...), b.save()
}

// Reconcile puts ws's guarded places back to the trusted state the
// ledger holds while a live process holds a ticket (a command, or a
// session's sandbox with something running); a dead holder's ticket is
// dropped and its work done, as [Sweep] does. Without a live holder the
// disk is left as it is: what changed was a person's doing. It returns
// one line per path put back.
func Reconcile(stateDir, ws string) ([]string, error) {
	if _, err := os.Stat(ledgerFile(stateDir, ws)); err != nil {
		return nil, nil
	}
	if kept, ok := reconcileIdle(stateDir, ws); ok {
		return kept, nil
	}
	b, err := open(stateDir, ws, false)
	if err != nil {
		return nil, fmt.Errorf("cannot open the guard's ledger in %s: %w", stateDir, err)
	}
	defer b.close()
	kept := takeLines(stateDir, ws)
	lines, dropped := b.sweep()
	if dropped {
		return append(kept, lines...), b.save()
	}
	if len(b.l.Active) == 0 {
		return append(kept, lines...), nil
	}
	// Saved: safe changes to git's configuration become trusted, or a
	// later undo would bring back an older file.
	lines = append(lines, b.reconcile()...)
	return append(kept, lines...), b.save()
}

// reconcileIdle is Reconcile when the ledger holds no ticket (nothing
// of a command or a session runs): there is nothing to sweep or put
// back, so only the kept lines are taken, under the ledger's lock,
// without decoding the trusted state (every guarded file's content). It
// reports false when the ledger holds a ticket or cannot be read that
// way: Reconcile then opens it in full.
func reconcileIdle(stateDir, ws string) ([]string, bool) {
	file := ledgerFile(stateDir, ws)
	lock, err := lockLedger(stateDir, file, false)
	if err != nil {
		return nil, false
	}
	defer lock.Close()
	data, err := smallfile.ReadFile(file)
	if err != nil || bytes.Contains(data, []byte(`"active":`)) {
		return nil, false // a ticket (or a name that looks like one): read in full
	}
	// Not decoded (a third of a later command's reconcile): the ledger
	// of ws, as save writes it (json.Marshal: the workspace first, an
	// empty Active left out), whole. A ledger damaged otherwise is read
	// in full by the next holder, which says so; here it holds no ticket
	// either way, so there is nothing to put back.
	name, err := json.Marshal(ws)
	if err != nil || !bytes.HasPrefix(data, append([]byte(`{"workspace":`), append(name, ',')...)) || !bytes.HasSuffix(data, []byte("}")) {
		return nil, false
	}
	return takeLines(stateDir, ws), true
}

// keepLines keeps what a session's watch undid (it has no terminal of
// its own), for the next command's reconcile to say ([takeLines]).
func keepLines(stateDir, ws string, lines []string) {
	if len(lines) == 0 {
		return
	}
	f, err := os.OpenFile(ledgerFile(stateDir, ws)+".lines", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(strings.Join(lines, "\n") + "\n")
}

// SayNext keeps lines for the next command in ws to say (the snapshot
// saver's, which has no terminal), once a day for the same kind: the
// file kind.said, beside the ledger, records when they were last said.
func SayNext(stateDir, ws, kind string, lines []string) {
	said := ledgerFile(stateDir, ws) + "." + kind + ".said"
	if fi, err := os.Stat(said); err == nil && time.Since(fi.ModTime()) < 24*time.Hour {
		return
	}
	os.WriteFile(said, nil, 0o600)
	os.Chtimes(said, time.Now(), time.Now())
	keepLines(stateDir, ws, lines)
}

// KeepLines keeps lines for the next command in ws to say ([TakeLines]).
func KeepLines(stateDir, ws string, lines []string) { keepLines(stateDir, ws, lines) }

// TakeLines returns and forgets the lines kept for ws: a session's
// command says, when it ends, what its manager put back.
func TakeLines(stateDir, ws string) []string { return takeLines(stateDir, ws) }

// takeLines returns and forgets the lines [keepLines] kept for ws.
func takeLines(stateDir, ws string) []string {
	name := ledgerFile(stateDir, ws) + ".lines"
	data, err := smallfile.ReadFile(name)
	if err != nil || len(data) == 0 {
		// (An empty file is one keepLines has just made and is about
		// to write: removed now, its lines would be lost.)
		return nil
	}
	os.Remove(name)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// Descendants lists the processes below pid.
func Descendants(pid int) []int { return descendants(pid) }

// CheckStateDir refuses a state directory the sandbox of p could write
// (see [Start]).
func CheckStateDir(p *platform.Policy, stateDir string) error { return checkStateDir(p, stateDir) }

// KillAll kills and reaps every process below this one; the caller
// must be their subreaper (prctl PR_SET_CHILD_SUBREAPER).
func KillAll(spare func(pid int) bool) { killAll(spare) }

// InheritedFDs lists the descriptors open in this process, read with raw
// system calls (none of the runtime's own, when called first thing).
func InheritedFDs() []int { return inheritedFDs() }
