package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The continuous guard: after each command, [Store.Track] saves the
// workspace's content git cannot restore (untracked and modified files)
// that changed since the last time, and records what the command changed
// or deleted of what was saved before as a snapshot of its own, so that
// any command, even one the judge wrongly allowed, can be undone. What
// was saved last is the workspace's index (a manifest of kind index,
// never listed), whose stat fields tell a changed file from one that did
// not change without reading it.

// indexID is the id of ws's index manifest.
func indexID(ws string) string {
	h := sha256.Sum256([]byte(ws))
	return "index-" + hex.EncodeToString(h[:8])
}

// Index returns ws's index, or an empty one.
func (s *Store) Index(ws string) *Manifest {
	m, err := s.Get(indexID(ws))
	if err != nil {
		return &Manifest{ID: indexID(ws), Kind: KindIndex, Workspace: ws}
	}
	return m
}

// statKey is what tells that a file changed: size, modification and
// change times, inode, mode.
func statKey(fi fs.FileInfo) string {
	sec, nsec := ctime(fi)
	return fmt.Sprintf("%d:%d:%d.%d:%d:%o", fi.Size(), fi.ModTime().UnixNano(), sec, nsec, inode(fi), fi.Mode())
}

// Bounds of what a workspace keeps between commands, besides the bytes
// of content: files, the bytes of their names (each costs the index,
// read and written every round, even when empty), and the lines saying
// what was not kept.
const (
	MaxKept   = 20000
	maxNames  = 4 << 20
	maxUnkept = 100
)

// TrackResult says what one round of the continuous guard did.
type TrackResult struct {
	Stored  int       // files whose content was saved this round
	Skipped []string  // files left out, each "PATH: WHY" (over a budget, unreadable)
	Lost    *Manifest // the snapshot of what the command changed or deleted, or nil
}

// Track saves what changed among paths (the workspace's unrecoverable
// files and directories now) since ws's index was written, and records
// what the command (m: its text, directory, and Kind; m.ID may name the
// snapshot the command already has, which the entries are added to)
// replaced or deleted of what the index held, changed since m.Time, when
// it started (a deleted file counts whatever its time). m.Ended is when
// the command ended on the file clock ([Store.FileClock], taken as soon
// as it ended; now when zero); Track returns once the file clock is past
// it, so that an edit made after the round is never taken for the
// command's. Extra entries are kept as they are (a repository's index
// as a tree, [TypeIndexTree]): one differs from the index's entry for its
// path when its type or commit does, and its path's file tells when it
// changed.
func (s *Store) Track(ws string, paths []string, m *Manifest, extra ...Entry) (*TrackResult, error) {
	if err := s.init(); err != nil {
		return nil, err
	}
	if m.Ended.IsZero() {
		m.Ended, _ = s.FileClock()
	}
	defer s.passClock(m.Ended)
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	idx := s.Index(ws)
	old := map[string]Entry{}
	for _, e := range idx.Entries {
		old[e.Path] = e
	}
	res := &TrackResult{}
	now := time.Now()
	// What a workspace keeps between commands may take a quarter of the
	// store: past it, new files are not kept (and said), so that a
	// command writing junk cannot make the store evict every snapshot.
	var kept int64
	for _, e := range idx.Entries {
		kept += e.Size
	}
	room := s.Budgets.Total/4 - kept
	next := &Manifest{ID: idx.ID, Kind: KindIndex, Workspace: ws, Time: time.Now()}
	var lost []Entry
	var stored, added int64
	var visited, over, names int
	changed := false // the index differs from the last one
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return // gone: lost, below, when the index held it
		}
		if visited++; visited > 2*MaxKept && !fi.Mode().IsRegular() {
			return // a tree of junk costs no more than this to look at
		}
		seen[p] = true
		switch {
		case fi.IsDir():
			des, _ := os.ReadDir(p)
			for _, d := range des {
				walk(filepath.Join(p, d.Name()))
			}
			return
		case !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0:
			res.Skipped = append(res.Skipped, p+": not a regular file (a socket, a device or a pipe), nothing to keep")
			return
		}
		key := statKey(fi)
		prev, had := old[p]
		if had && prev.Stat == key {
			next.Entries = append(next.Entries, prev)
			names += len(p)
			return
		}
		if !had && (len(next.Entries) >= MaxKept || names+len(p) > maxNames || visited > 2*MaxKept) {
			over++ // empty files cost no bytes, but each costs the index
			return
		}
		names += len(p)
		changed = true
		e := Entry{Path: p, Mode: uint32(fi.Mode().Perm()), Stat: key}
		if fi.Mode()&fs.ModeSymlink != 0 {
			e.Type = TypeSymlink
			e.Target, _ = os.Readlink(p)
		} else {
			e.Type, e.Size = TypeFile, fi.Size()
			if e.Size > s.Budgets.File || stored+e.Size > s.Budgets.Command || stored+e.Size > room {
				var why string
				switch {
				case e.Size > s.Budgets.File:
					why = (&OverBudgetError{Path: p, Size: e.Size, Budget: s.Budgets.File, What: "file"}).Error()
				case stored+e.Size > s.Budgets.Command:
					why = (&OverBudgetError{Path: p, Size: e.Size, Budget: s.Budgets.Command, What: "command"}).Error()
				default:
					why = fmt.Sprintf("%s (%s): what the workspace keeps between commands would pass a quarter of the snapshot store's budget (%s; snapshots.max_total in the settings)", p, human(e.Size), human(s.Budgets.Total))
				}
				res.Skipped = append(res.Skipped, why)
				if had {
					lost = append(lost, prev) // replaced by what cannot be saved
				}
				return
			}
			var isNew bool
			if e.Object, e.Size, isNew, err = s.store(p); err != nil {
				res.Skipped = append(res.Skipped, err.Error())
				if had {
					lost = append(lost, prev)
				}
				return
			}
			stored += e.Size
			if isNew {
				added += e.Size
			}
			res.Stored++
		}
		if racy(fi, now) {
			e.Stat = "racy"
		}
		next.Entries = append(next.Entries, e)
		if had && (prev.Object != e.Object || prev.Target != e.Target || prev.Type != e.Type) && ChangedSince(fi, m.Time) {
			lost = append(lost, prev)
		}
	}
	for _, p := range paths {
		walk(realParent(p))
	}
	if visited > 2*MaxKept {
		// What the index held below a tree not looked at is looked at
		// alone: junk beside a person's file cannot make it dropped.
		for p := range old {
			walk(p)
		}
	}
	for _, e := range extra {
		seen[e.Path] = true
		prev, had := old[e.Path]
		if had && prev.Type == e.Type && prev.Commit == e.Commit {
			next.Entries = append(next.Entries, prev)
			continue
		}
		changed = true
		next.Entries = append(next.Entries, e)
		if fi, err := os.Lstat(e.Path); had && err == nil && ChangedSince(fi, m.Time) {
			lost = append(lost, prev)
		}
	}
	// What the index held and is no longer among the paths: deleted, or
	// now clean in git (committed, or reset to the committed content).
	for p, prev := range old {
		if seen[p] {
			continue
		}
		changed = true
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || err == nil && statKey(fi) != prev.Stat && ChangedSince(fi, m.Time) {
			lost = append(lost, prev)
		}
	}
	if over > 0 {
		res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %d more files not kept: what a workspace keeps between commands is at most %d files (%s of names)", ws, over, MaxKept, human(maxNames)))
	}
	if len(res.Skipped) > maxUnkept {
		res.Skipped = append(res.Skipped[:maxUnkept], fmt.Sprintf("... and %d more", len(res.Skipped)-maxUnkept))
	}
	next.Unkept = res.Skipped
	if changed || !slices.Equal(idx.Unkept, next.Unkept) {
		if err := s.writeManifest(next); err != nil {
			return nil, err
		}
	}
	// git rewrites its index to refresh what it knows of the files (git
	// status does): a rewritten index alone is no loss worth a snapshot.
	// It is kept in the index manifest, and in a snapshot with the rest
	// of what a command changed, or when deleted.
	if index := filepath.Join(ws, ".git", "index"); len(lost) == 1 && lost[0].Path == index {
		if _, err := os.Lstat(index); err == nil {
			lost = nil
		}
	}
	if len(lost) > 0 || m.ID != "" {
		slices.SortFunc(lost, func(a, b Entry) int { return cmpString(a.Path, b.Path) })
		if err := s.addLost(m, lost); err != nil {
			return nil, err
		}
		res.Lost = m
	}
	return res, s.added(added, m.ID)
}

// KeptChanged reports whether a file or link ws's index holds (what the
// last round kept) is not as that round found it: its stat differs, or it
// is gone. One the round found changing (racy: its times may hide a
// second change within the same tick) is read again: it is as found when
// it holds the very content kept (its type, permissions, size and
// SHA-256, or a link's target), up to maxRecheck bytes in all; past
// that, it counts as changed. A session's manager asks it before it
// leaves a round out: a write inotify does not see (a shared mapping, a
// hard link named outside the workspace) still shows in the file's
// times. (Without the read, a command that wrote a file had the next
// command's end start a round of its own for that file alone, and the
// command after that wait for it.)
//
// seen, when not nil, is the caller's memory between calls (a session's
// manager): a file read again and found as kept, whose times were then
// older than a tick, is remembered by its stat and the content kept, and
// at the next call only its stat is compared (a change since would have
// later times).
func (s *Store) KeptChanged(ws string, seen Rechecked) bool {
	budget := int64(maxRecheck)
	for _, e := range s.Index(ws).Entries {
		if e.Type != TypeFile && e.Type != TypeSymlink {
			continue
		}
		fi, err := os.Lstat(e.Path)
		switch {
		case err != nil:
			return true
		case e.Stat == "racy":
			key := e.Object + " " + e.Target + " " + statKey(fi)
			if seen != nil && seen[e.Path] == key {
				continue
			}
			start := time.Now()
			if budget -= fi.Size(); budget < 0 || !asKept(e, fi) {
				return true
			}
			if seen != nil && !racy(fi, start) {
				if len(seen) >= MaxKept {
					clear(seen)
				}
				seen[e.Path] = key
			}
		case statKey(fi) != e.Stat:
			return true
		}
	}
	return false
}

// Rechecked is what [Store.KeptChanged] remembers between calls.
type Rechecked map[string]string

// maxRecheck bounds the bytes [Store.KeptChanged] reads again.
const maxRecheck = 4 << 20

// asKept reports whether the file or link at e.Path, whose Lstat is fi,
// holds what e kept: the same type and permissions, and the same
// content (read now, through a descriptor that is the file fi names) or
// target.
func asKept(e Entry, fi fs.FileInfo) bool {
	if uint32(fi.Mode().Perm()) != e.Mode {
		return false
	}
	switch {
	case e.Type == TypeSymlink && fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(e.Path)
		return err == nil && target == e.Target
	case e.Type != TypeFile || !fi.Mode().IsRegular() || fi.Size() != e.Size || len(e.Object) != 64:
		return false
	}
	f, err := openFile(e.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !os.SameFile(now, fi) {
		return false
	}
	h := sha256.New()
	if n, err := io.Copy(h, io.LimitReader(f, e.Size+1)); err != nil || n != e.Size {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == e.Object
}

// ChangedSince reports whether fi's inode changed at or after t: a
// change made before the command started (by a person, between
// commands) is not the command's doing.
func ChangedSince(fi fs.FileInfo, t time.Time) bool {
	sec, nsec := ctime(fi)
	return !time.Unix(sec, nsec).Before(t.Add(-tick))
}

// tick is more than the granularity of file times: the kernel stamps
// them with a coarse clock (a few milliseconds).
const tick = 20 * time.Millisecond

// racy reports whether fi may change again without its times showing
// it (within the same tick), as git calls it: such a file's content is
// read again next round rather than trusted to its stat.
func racy(fi fs.FileInfo, now time.Time) bool {
	sec, nsec := ctime(fi)
	return fi.ModTime().After(now.Add(-tick)) || time.Unix(sec, nsec).After(now.Add(-tick))
}

// addLost adds entries to the snapshot m.ID (when it still exists) or
// writes m as a new snapshot with them. The caller holds the lock.
func (s *Store) addLost(m *Manifest, lost []Entry) error {
	if m.ID != "" {
		if have, err := s.Get(m.ID); err == nil {
			in := map[string]bool{}
			for _, e := range have.Entries {
				in[e.Path] = true
			}
			for _, e := range lost {
				if !in[e.Path] {
					e.Stat = ""
					have.Entries = append(have.Entries, e)
					have.Size += e.Size
				}
			}
			have.Ended = m.Ended
			*m = *have
			return s.writeManifest(m)
		}
	}
	if len(lost) == 0 {
		return nil
	}
	m.ID, m.Kind = newID(), KindContinuous
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	for _, e := range lost {
		e.Stat = ""
		m.Entries = append(m.Entries, e)
		m.Size += e.Size
	}
	return s.writeManifest(m)
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Refresh records in ws's index the files among paths that a person
// changed before clock, the file clock ([Store.FileClock]) read before a
// command started, since the last round, so that the command can be
// undone back to them: a commit of their own between two commands is
// kept before the next command may destroy it. It runs while that
// command may already be running, so a file changed at or after clock
// (in the same tick, too), or gone, is left to the round after the
// command (it is the command's doing), and nothing is recorded as lost
// or dropped.
func (s *Store) Refresh(ws string, paths []string, clock time.Time) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	idx := s.Index(ws)
	at := map[string]int{}
	names := 0
	for i, e := range idx.Entries {
		at[e.Path] = i
		names += len(e.Path)
	}
	changed := false
	var added, stored int64
	now := time.Now()
	for _, p := range paths {
		p = realParent(p)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if sec, nsec := ctime(fi); !time.Unix(sec, nsec).Before(clock) {
			continue
		}
		key := statKey(fi)
		i, had := at[p]
		if had && idx.Entries[i].Stat == key {
			continue
		}
		if !had && (len(idx.Entries) >= MaxKept || names+len(p) > maxNames) {
			continue // bounded as Track is
		}
		if !had {
			names += len(p)
		}
		e := Entry{Path: p, Mode: uint32(fi.Mode().Perm()), Stat: key}
		if fi.Mode()&fs.ModeSymlink != 0 {
			e.Type = TypeSymlink
			e.Target, _ = os.Readlink(p)
		} else {
			var isNew bool
			e.Type = TypeFile
			if stored+fi.Size() > s.Budgets.Command {
				continue // (bounded as a command's save is)
			}
			if e.Object, e.Size, isNew, err = s.store(p); err != nil {
				continue
			}
			stored += e.Size
			if isNew {
				added += e.Size
			}
		}
		if racy(fi, now) {
			e.Stat = "racy"
		}
		if had {
			idx.Entries[i] = e
		} else {
			at[p] = len(idx.Entries)
			idx.Entries = append(idx.Entries, e)
		}
		changed = true
	}
	if changed {
		if idx.Time.IsZero() {
			idx.Time = now
		}
		if err := s.writeManifest(idx); err != nil {
			return err
		}
	}
	return s.added(added, "")
}

// RecordLost adds lost to the snapshot of the command m describes (made
// by [Store.Track], or made now).
func (s *Store) RecordLost(m *Manifest, lost []Entry) error {
	if len(lost) == 0 {
		return nil
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.addLost(m, lost)
}
