package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A repository's history is kept in two parts. Its own small files
// (references, reflogs, the stash, the index, the configuration: the
// rules' git_data) are saved by the continuous round as any file is, so
// that what a command deletes or rewrites of them is in that command's
// snapshot. Its objects (the rules' git_objects) are immutable and named
// by their content: each is copied once into the store's mirror of the
// repository, git/ID/have/, and moved to git/ID/gone/ when the
// repository no longer has it, stamped with the time it was found gone.
// Restoring a snapshot copies back every object the repository had
// before the command (still in have/, or gone since) and lacks now.
//
// Objects are copies (clones where the file system can), never hard
// links: a sandboxed command can open a linked object for writing in
// place and so change the store's copy too.

// GitFiles lists the regular files and symlinks below gitDir that the
// patterns (relative to it; "DIR/**" is everything below DIR, whose
// name may hold a glob) match: at most [MaxKept], the walk stopping
// there (a repository with more references than that keeps them
// packed).
func GitFiles(gitDir string, patterns []string) []string {
	var out []string
	for _, p := range patterns {
		if dir, ok := strings.CutSuffix(p, "/**"); ok {
			roots, _ := filepath.Glob(filepath.Join(gitDir, dir))
			for _, root := range roots {
				filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if len(out) >= MaxKept {
						return filepath.SkipAll
					}
					if err == nil && !d.IsDir() && (d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
						out = append(out, p)
					}
					return nil
				})
			}
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(gitDir, p))
		for _, m := range matches {
			if fi, err := os.Lstat(m); err == nil && (fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// MaxGitDirs bounds the git directories of one workspace whose data a
// round keeps: the repository's and its submodules'.
const MaxGitDirs = 64

// GitDirs returns gitDir and the git directories of its submodules
// (.git/modules/NAME, NAME with slashes when the submodule's path has
// them, and theirs in turn), each a directory with a HEAD and objects,
// at most [MaxGitDirs] in all, reading at most a few thousand entries.
func GitDirs(gitDir string) []string {
	out := []string{gitDir}
	budget := 4096
	var walk func(dir string)
	walk = func(dir string) {
		des, _ := os.ReadDir(dir)
		for _, d := range des {
			if budget--; budget < 0 || len(out) >= MaxGitDirs {
				return
			}
			if !d.IsDir() {
				continue
			}
			p := filepath.Join(dir, d.Name())
			head, err := os.Lstat(filepath.Join(p, "HEAD"))
			objects, err2 := os.Lstat(filepath.Join(p, "objects"))
			if err == nil && err2 == nil && head.Mode().IsRegular() && objects.IsDir() {
				out = append(out, p)
				walk(filepath.Join(p, "modules"))
				continue
			}
			walk(p)
		}
	}
	walk(filepath.Join(gitDir, "modules"))
	return out
}

// mirrorDir is where the objects of the repository at gitDir are kept.
func (s *Store) mirrorDir(gitDir string) string {
	h := sha256.Sum256([]byte(filepath.Clean(gitDir)))
	return filepath.Join(s.Dir, "git", hex.EncodeToString(h[:8]))
}

// mirrorState is what a mirror remembers between rounds.
type mirrorState struct {
	GitDir string `json:"git_dir"`
	// Dirs are the modification times of the repository's object
	// directories when last read in full: an unchanged one is not read.
	Dirs map[string]int64 `json:"dirs"`
	Have int64            `json:"have"` // bytes in have/
	Gone int64            `json:"gone"` // bytes in gone/
	// Unkept says what the last round could not copy, and why.
	Unkept []string `json:"unkept,omitempty"`
	// Modules are the git directories of submodules below GitDir whose
	// objects the store keeps too (see [Store.SetModules]).
	Modules []string `json:"modules,omitempty"`
	// Checked is when the last look for objects changed in place began
	// (Unix nanoseconds), and Differs what it found changed (relative to
	// GitDir): an object file and its directory unchanged since (by
	// their change times) are not compared again.
	Checked int64    `json:"checked,omitempty"`
	Differs []string `json:"differs,omitempty"`
}

func (s *Store) readMirror(dir string) *mirrorState {
	st := &mirrorState{}
	if data, err := os.ReadFile(filepath.Join(dir, "state.json")); err == nil {
		json.Unmarshal(data, st)
	}
	if st.Dirs == nil {
		st.Dirs = map[string]int64{}
	}
	return st
}

// MirrorResult says what one round of the object mirror did.
type MirrorResult struct {
	Copied int      // object files copied this round
	Bytes  int64    // their size
	Gone   int      // object files the repository no longer has
	Unkept []string // what could not be copied, and why
	// Changed are the repository's object files whose content is no
	// longer what the mirror copied (changed in place: objects never
	// change, so only to destroy them).
	Changed []string
}

// KeepObjects copies into the mirror of the repository at gitDir the
// object files matching patterns (see [GitFiles]; the directory part may
// hold a glob, "objects/??/*") that it does not hold yet, and moves to
// gone/ those the repository no longer has. The mirrors of one
// workspace's repository and submodules hold at most half the store's
// total budget together (others: what the others hold); what does not fit is reported in Unkept and
// tried again next round. The caller holds the store's lock.
func (s *Store) KeepObjects(gitDir string, patterns []string, others int64) (*MirrorResult, error) {
	return s.keepObjects(gitDir, patterns, others, true)
}

// keepObjects is KeepObjects; inPlace false leaves out the objects
// changed in place (Changed stays empty).
func (s *Store) keepObjects(gitDir string, patterns []string, others int64, inPlace bool) (*MirrorResult, error) {
	dir := s.mirrorDir(gitDir)
	st := s.readMirror(dir)
	st.GitDir = filepath.Clean(gitDir)
	res := &MirrorResult{}
	limit := s.Budgets.Total/2 - others
	now := time.Now()
	below := newBelowChecker(gitDir)
	for _, p := range patterns {
		pdir, base := path.Split(p)
		dirs := map[string]bool{}
		for _, root := range []string{gitDir, filepath.Join(dir, "have")} {
			matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(pdir)))
			for _, m := range matches {
				if rel, err := filepath.Rel(root, m); err == nil {
					dirs[rel] = true
				}
			}
		}
		for rel := range dirs {
			key := rel + "\x00" + base
			fi, err := os.Lstat(filepath.Join(gitDir, rel))
			var mtime int64
			var des []fs.DirEntry
			if err == nil && below.dir(rel, fi) {
				mtime = fi.ModTime().UnixNano()
				if st.Dirs[key] == mtime {
					continue
				}
				des, _ = os.ReadDir(filepath.Join(gitDir, rel))
			}
			// A directory that is gone, or now leads through a symlink
			// (which could lead to what the sandbox hides), has nothing.
			complete := true
			inRepo := map[string]bool{}
			for _, d := range des {
				if ok, _ := path.Match(base, d.Name()); !ok || !d.Type().IsRegular() {
					continue
				}
				inRepo[d.Name()] = true
				have := filepath.Join(dir, "have", rel, d.Name())
				if _, err := os.Lstat(have); err == nil {
					continue
				}
				if gone := filepath.Join(dir, "gone", rel, d.Name()); os.Rename(gone, have) == nil {
					continue // back again (an undo, a fetch)
				}
				n, err := s.copyObject(filepath.Join(gitDir, rel, d.Name()), have, limit-st.Have)
				if err != nil {
					res.Unkept = append(res.Unkept, fmt.Sprintf("%s: %v", filepath.Join(gitDir, rel, d.Name()), err))
					complete = false
					continue
				}
				st.Have += n
				res.Copied++
				res.Bytes += n
			}
			kept, _ := os.ReadDir(filepath.Join(dir, "have", rel))
			for _, d := range kept {
				if ok, _ := path.Match(base, d.Name()); !ok || inRepo[d.Name()] {
					continue
				}
				from, to := filepath.Join(dir, "have", rel, d.Name()), filepath.Join(dir, "gone", rel, d.Name())
				fi, err := os.Lstat(from)
				if err != nil || os.MkdirAll(filepath.Dir(to), 0o700) != nil || os.Rename(from, to) != nil {
					continue
				}
				os.Chtimes(to, now, now) // when it was found gone
				st.Have -= fi.Size()
				st.Gone += fi.Size()
				res.Gone++
			}
			// A directory changed within the file clock's tick may change
			// again without its time showing it: read it again next round.
			if complete && mtime != 0 && time.Unix(0, mtime).Before(now.Add(-tick)) {
				st.Dirs[key] = mtime
			} else {
				delete(st.Dirs, key)
			}
		}
	}
	if inPlace {
		res.Changed = s.changedInPlace(dir, gitDir, st)
	}
	if len(res.Unkept) > maxUnkept {
		res.Unkept = append(res.Unkept[:maxUnkept], fmt.Sprintf("... and %d more object files", len(res.Unkept)-maxUnkept))
	}
	st.Unkept = res.Unkept
	if err := s.writeMirror(dir, st); err != nil {
		return nil, err
	}
	return res, nil
}

// changedInPlace returns the repository's object files that differ from
// the mirror's copies in dir. An object file is never written again once
// made, so its change time after the copy was made means a command
// opened it to change it (or git freshened it, or linked it): only then
// are the contents compared; a copy found the same is stamped so that it
// is not compared again. An object whose file and directory have not
// changed (by their change times, which no command can set back) since
// the last look began, and that it did not find changed, is not looked
// at in the mirror: that look saw it as it is. st records this look.
func (s *Store) changedInPlace(dir, gitDir string, st *mirrorState) []string {
	var out []string
	began := time.Now()
	since := time.Unix(0, st.Checked).Add(-tick) // before it, the last look saw a change
	differed := map[string]bool{}
	for _, rel := range st.Differs {
		differed[rel] = true
	}
	seen := func(fi os.FileInfo) bool {
		sec, nsec := ctime(fi)
		return ctimeHeld && st.Checked != 0 && time.Unix(sec, nsec).Before(since)
	}
	have := filepath.Join(dir, "have")
	// Each directory's files are looked at from the directory, opened
	// once in the repository and, when one of them is compared, once in
	// the mirror (a lookup of one name, not of the whole path).
	var cur string
	var mine, repo *os.Root
	var dirSeen bool // the repository's directory unchanged since the last look
	closeDirs := func() {
		for _, r := range []*os.Root{mine, repo} {
			if r != nil {
				r.Close()
			}
		}
		mine, repo = nil, nil
	}
	defer closeDirs()
	var found []string // relative to gitDir
	filepath.WalkDir(have, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(have, p)
		if parent := filepath.Dir(rel); parent != cur {
			closeDirs()
			cur = parent
			repo, _ = os.OpenRoot(filepath.Join(gitDir, parent))
			dirSeen = false
			if repo != nil {
				fi, err := repo.Lstat(".")
				dirSeen = err == nil && seen(fi)
			}
		}
		if repo == nil {
			return nil // the repository's directory is gone: the next round moves its objects to gone/
		}
		name := filepath.Base(rel)
		fr, err := repo.Lstat(name)
		if err != nil {
			return nil // gone: the next round moves it to gone/
		}
		if dirSeen && seen(fr) && !differed[rel] {
			return nil
		}
		if mine == nil {
			if mine, err = os.OpenRoot(filepath.Dir(p)); err != nil {
				return nil
			}
		}
		fm, err := mine.Lstat(name)
		if err != nil {
			return nil
		}
		differs, err := s.statsDiffer(fm, fr, p, filepath.Join(gitDir, rel))
		if err == nil && differs {
			out = append(out, filepath.Join(gitDir, rel))
			found = append(found, rel)
		}
		return nil
	})
	st.Checked, st.Differs = began.UnixNano(), found
	return out
}

// objectDiffers reports whether the repository's object file repo no
// longer holds what the mirror's copy mine does, comparing contents only
// when its size or change time says it may.
func (s *Store) objectDiffers(mine, repo string) (bool, error) {
	fm, err := os.Lstat(mine)
	if err != nil {
		return false, err
	}
	fr, err := os.Lstat(repo)
	if err != nil {
		return false, err // gone: the next round moves it to gone/
	}
	return s.statsDiffer(fm, fr, mine, repo)
}

// statsDiffer is objectDiffers with the files' Lstat, fm of mine and fr
// of repo.
func (s *Store) statsDiffer(fm, fr os.FileInfo, mine, repo string) (bool, error) {
	sec, nsec := ctime(fr)
	if fr.Size() == fm.Size() && !time.Unix(sec, nsec).After(fm.ModTime().Add(tick)) {
		return false, nil
	}
	if !fr.Mode().IsRegular() || fr.Size() != fm.Size() {
		return true, nil
	}
	same, err := sameContent(mine, repo)
	if err != nil {
		return false, err
	}
	if same {
		now := time.Now().Add(tick)
		os.Chtimes(mine, now, now)
	}
	return !same, nil
}

// sameContent reports whether files a and b hold the same bytes (b is
// opened without following symlinks).
func sameContent(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := openFile(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || string(ba[:na]) != string(bb[:nb]) {
			return false, nil
		}
		if ea != nil || eb != nil {
			return ea == eb || (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF), nil
		}
	}
}

// A belowChecker is realBelow for the directories of one pass over a
// repository: each directory that holds them is resolved once, not once
// for each of its subdirectories (objects/ for its 256 fan-out ones).
type belowChecker struct {
	gitDir  string
	parents map[string]bool
}

func newBelowChecker(gitDir string) *belowChecker {
	return &belowChecker{gitDir: gitDir, parents: map[string]bool{}}
}

// dir reports whether rel, whose Lstat is fi, is a directory below
// gitDir that no symlink leads to: it is one itself (fi does not follow
// a link), and realBelow holds for the directory holding it.
func (c *belowChecker) dir(rel string, fi os.FileInfo) bool {
	if !fi.IsDir() {
		return false
	}
	parent := filepath.Dir(rel)
	if rel == "." || parent == "." {
		return realBelow(c.gitDir, rel)
	}
	ok, seen := c.parents[parent]
	if !seen {
		ok = realBelow(c.gitDir, parent)
		c.parents[parent] = ok
	}
	return ok
}

// realBelow reports whether gitDir is a directory and no component of
// rel below it is a symlink.
func realBelow(gitDir, rel string) bool {
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return false
	}
	top, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(gitDir, rel))
	return err == nil && real == filepath.Join(top, rel)
}

func (s *Store) writeMirror(dir string, st *mirrorState) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot write the snapshot store: %v", err)
	}
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "state.json"), data, filepath.Join(s.Dir, "tmp"))
}

// copyObject copies the object file src to dst (a clone where the file
// system can), read-only, and returns its size; room is what the mirror
// may still take.
func (s *Store) copyObject(src, dst string, room int64) (int64, error) {
	in, err := openFile(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, errors.New("not a regular file")
	}
	if fi.Size() > room {
		return 0, fmt.Errorf("the mirror of this repository's objects would pass half the snapshot budget (%s; snapshots.max_total in the settings)", human(s.Budgets.Total))
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return 0, err
	}
	n, err := copyTo(in, dst, filepath.Join(s.Dir, "tmp"), 0o400)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// copyTo writes in's content to the new file dst, through a temporary
// file in tmpDir, with mode.
func copyTo(in *os.File, dst, tmpDir string, mode fs.FileMode) (int64, error) {
	tmp := filepath.Join(tmpDir, ".g-"+newID())
	if err := fillNew(tmp, mode, in, in); err != nil {
		return 0, err
	}
	fi, err := os.Stat(tmp)
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	return fi.Size(), nil
}

// RestoreObjects copies back into the repository at gitDir, and into
// its submodules' git directories below it, every object file of their
// mirrors that they lack and had at since (still held, or found gone at
// or after since), and makes the directories git needs to take each for
// a repository. It returns how many files it copied.
func (s *Store) RestoreObjects(gitDir string, since time.Time) (int, error) {
	n := 0
	var failed error
	mirrors, _ := os.ReadDir(filepath.Join(s.Dir, "git"))
	for _, md := range mirrors {
		dir := filepath.Join(s.Dir, "git", md.Name())
		st := s.readMirror(dir)
		if st.GitDir == "" || !within(st.GitDir, gitDir) || dir != s.mirrorDir(st.GitDir) {
			continue
		}
		k, err := s.restoreMirror(dir, st.GitDir, since)
		n += k
		if err != nil {
			failed = err
		}
	}
	return n, failed
}

// restoreMirror is [Store.RestoreObjects] for the mirror in dir, of the
// repository at gitDir.
func (s *Store) restoreMirror(dir, gitDir string, since time.Time) (int, error) {
	for _, d := range []string{"objects/pack", "objects/info", "refs/heads", "refs/tags"} {
		_, release, err := pinDir(filepath.Join(gitDir, d))
		if err != nil {
			return 0, err
		}
		release()
	}
	n := 0
	var failed error
	for _, part := range []string{"have", "gone", "trees"} {
		root := filepath.Join(dir, part)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if part == "gone" && !since.IsZero() {
				if fi, err := d.Info(); err != nil || fi.ModTime().Before(since.Add(-tick)) {
					return nil // gone before: not the repository's at since
				}
			}
			rel, _ := filepath.Rel(root, p)
			if part == "trees" {
				rel = filepath.Join("objects", rel) // an object directory of its own
			}
			// Written through the directory as it is now, opened without
			// following a symlink (see pinDir).
			dir, release, err := pinDir(filepath.Dir(filepath.Join(gitDir, rel)))
			if err != nil {
				failed = err
				return nil
			}
			defer release()
			dst := filepath.Join(dir, filepath.Base(rel))
			if _, err := os.Lstat(dst); err == nil {
				// There: put back the copy when a command changed it in
				// place, its changed content moved aside, not deleted.
				if differs, err := s.objectDiffers(p, dst); err != nil || !differs {
					return nil
				}
				aside, release, err := pinDir(filepath.Dir(filepath.Join(gitDir, "cordon-undo-changed", rel)))
				if err != nil || os.Rename(dst, filepath.Join(aside, filepath.Base(rel)+"."+newID())) != nil {
					failed = fmt.Errorf("cannot move %s aside to put back its saved copy", filepath.Join(gitDir, rel))
					return nil
				}
				release()
			}
			in, err := os.Open(p)
			if err != nil {
				failed = err
				return nil
			}
			defer in.Close()
			if _, err := copyTo(in, dst, dir, 0o444); err != nil {
				failed = fmt.Errorf("cannot restore %s: %v", filepath.Join(gitDir, rel), err)
				return nil
			}
			n++
			return nil
		})
	}
	return n, failed
}

// MirrorUnkept returns what the last round could not copy of the
// repository at gitDir's objects.
func (s *Store) MirrorUnkept(gitDir string) []string {
	return s.readMirror(s.mirrorDir(gitDir)).Unkept
}

// pruneMirrors removes from every mirror the objects found gone before
// the oldest snapshot of its workspace that is left (all of them when
// none is), which no restore can need, and returns the bytes the mirrors
// hold. The caller holds the lock.
func (s *Store) pruneMirrors(all []*Manifest) int64 {
	oldest := map[string]time.Time{} // by git directory
	for _, m := range all {
		if m.Kind == KindIndex || m.Workspace == "" {
			continue
		}
		g := filepath.Join(m.Workspace, ".git")
		if t, ok := oldest[g]; !ok || m.Time.Before(t) {
			oldest[g] = m.Time
		}
	}
	var total int64
	mirrors, _ := os.ReadDir(filepath.Join(s.Dir, "git"))
	for _, md := range mirrors {
		dir := filepath.Join(s.Dir, "git", md.Name())
		st := s.readMirror(dir)
		since, ok := oldest[st.GitDir]
		var gone int64
		filepath.WalkDir(filepath.Join(dir, "gone"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			if !ok || fi.ModTime().Before(since.Add(-tick)) {
				os.Remove(p)
				return nil
			}
			gone += fi.Size()
			return nil
		})
		if st.Gone != gone {
			st.Gone = gone
			s.writeMirror(dir, st)
		}
		total += st.Have + st.Gone
	}
	return total
}

// TrackObjects is [Store.KeepObjects] for gitDir, the repository at top
// or one of its submodules, under the store's lock, counting what it
// copied in the store's usage (the oldest snapshots are evicted past the
// total budget; no mirror of top's is removed for it).
func (s *Store) TrackObjects(gitDir, top string, patterns []string) (*MirrorResult, error) {
	return s.trackObjects(gitDir, top, patterns, true)
}

// TrackNewObjects is TrackObjects without looking for objects changed in
// place (Changed stays empty): the pre-round keeps what is new before a
// command runs, and the round after it finds what the command changed.
func (s *Store) TrackNewObjects(gitDir, top string, patterns []string) (*MirrorResult, error) {
	return s.trackObjects(gitDir, top, patterns, false)
}

func (s *Store) trackObjects(gitDir, top string, patterns []string, inPlace bool) (*MirrorResult, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var others int64
	for _, g := range s.Mirrored(top) {
		if g != filepath.Clean(gitDir) {
			st := s.readMirror(s.mirrorDir(g))
			others += st.Have + st.Gone
		}
	}
	res, err := s.keepObjects(gitDir, patterns, others, inPlace)
	if err != nil {
		return nil, err
	}
	return res, s.added(res.Bytes, "", top)
}

// TreeDir is the object directory where the trees of the repository at
// gitDir's index that it does not have are written (see
// gitstate.Repo.WriteTreeAside); restoring copies them into it.
func (s *Store) TreeDir(gitDir string) string { return filepath.Join(s.mirrorDir(gitDir), "trees") }

// Mirrored returns the git directories whose objects the store keeps
// for the repository at gitDir: its own and its submodules'.
func (s *Store) Mirrored(gitDir string) []string {
	if !s.HasMirror(gitDir) {
		return nil
	}
	return append([]string{gitDir}, s.readMirror(s.mirrorDir(gitDir)).Modules...)
}

// SetModules records the submodules' git directories of the repository
// at gitDir whose objects the store keeps (at most [MaxGitDirs]), and
// removes the mirror of one no longer among them that is gone and of
// which nothing is kept.
func (s *Store) SetModules(gitDir string, modules []string) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	dir := s.mirrorDir(gitDir)
	st := s.readMirror(dir)
	var keep []string
	for _, m := range slices.Concat(modules, st.Modules) {
		if slices.Contains(keep, m) || m == gitDir || !within(m, gitDir) || len(keep) >= MaxGitDirs-1 {
			continue
		}
		md := s.mirrorDir(m)
		_, gone := os.Lstat(m)
		if gone != nil && empty(filepath.Join(md, "have")) && empty(filepath.Join(md, "gone")) {
			os.RemoveAll(md)
			continue
		}
		keep = append(keep, m)
	}
	slices.Sort(keep)
	if slices.Equal(keep, st.Modules) {
		return nil
	}
	st.Modules = keep
	if st.GitDir == "" {
		st.GitDir = filepath.Clean(gitDir)
	}
	return s.writeMirror(dir, st)
}

// empty reports whether the tree at dir holds no file.
func empty(dir string) bool {
	none := true
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			none = false
			return filepath.SkipAll
		}
		return nil
	})
	return none
}

// Unkept is what the last round could not keep of a workspace, and why.
type Unkept struct {
	Workspace string
	What      []string // "PATH: WHY"
}

// Unkept lists, per workspace, what its last round could not keep: files
// over a budget or not regular, objects its mirror had no room for.
func (s *Store) Unkept() []Unkept {
	all, _ := s.list()
	var out []Unkept
	for _, m := range all {
		if m.Kind != KindIndex {
			continue
		}
		what := slices.Concat(m.Unkept, s.MirrorUnkept(filepath.Join(m.Workspace, ".git")))
		if len(what) > 0 {
			out = append(out, Unkept{Workspace: m.Workspace, What: what})
		}
	}
	return out
}

// HasMirror reports whether the store keeps objects of the repository at
// gitDir.
func (s *Store) HasMirror(gitDir string) bool {
	_, err := os.Stat(filepath.Join(s.mirrorDir(gitDir), "state.json"))
	return err == nil
}
