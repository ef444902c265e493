package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Git restores what a snapshot saved of a repository's references.
type Git interface {
	// Stashes lists the commits of the repository's stash entries.
	Stashes(repo string) ([]string, error)
	// StoreStash makes commit a stash entry again, with message.
	StoreStash(repo, commit, message string) error
	// Branch returns the commit branch points at, or "" when there is no
	// such branch.
	Branch(repo, name string) (string, error)
	// SetBranch makes branch name point at commit.
	SetBranch(repo, name, commit string) error
	// IndexTree writes the tree of the repository's index and returns it.
	IndexTree(repo string) (string, error)
	// ReadTree makes the repository's index hold tree.
	ReadTree(repo, tree string) error
	// Complete reports whether every object the repository's references
	// lead to is there.
	Complete(repo string) (bool, error)
	// CheckoutMissing writes the tracked files missing from the
	// repository's work tree from its index, and returns how many.
	CheckoutMissing(repo string) (int, error)
}

// Outcome of restoring one entry.
const (
	Restored = "restored"
	Same     = "unchanged" // already as saved
	Kept     = "kept"      // changed since the snapshot; --force overwrites
	Failed   = "failed"
)

// A Result is what happened to one entry.
type Result struct {
	Entry  Entry
	Action string
	Why    string
}

// RestoreOptions say how to restore.
type RestoreOptions struct {
	// Force overwrites paths that changed after the command.
	Force bool
	// Git restores stash entries and branches; nil leaves them.
	Git Git
	// Vet, when set, is asked about each file or symlink before it is
	// written back, with its snapshot's workspace and a reader of its
	// saved content (nil for a symlink). It returns what to do (a
	// [Verdict]) and a word for the person. A file not written back as
	// saved has its saved content written beside it, as
	// PATH.cordon-undo-ID, for the person to look at.
	Vet func(ws, path string, saved func() ([]byte, error)) (Verdict, string)
}

// A Verdict says how a file is written back.
type Verdict struct {
	// Keep leaves the path as it is.
	Keep bool
	// Write, when not nil, is written in its place instead of what was
	// saved.
	Write []byte
}

// Kinds of result that are no entry of a snapshot.
const (
	TypeObjects  = "objects"  // a repository's objects copied back from the mirror
	TypeCheckout = "checkout" // tracked files written from the restored index
	TypeMoved    = "moved"    // what stood where the workspace was, moved aside
)

// Restore puts what snapshot m saved back in its place. A path that
// differs from the snapshot is overwritten only when the snapshot's
// command is what changed it (its inode changed no later than the command
// ended) or with opts.Force; otherwise it is kept and reported. Nothing
// is ever deleted, and no path is written through a symlink.
func (s *Store) Restore(m *Manifest, opts RestoreOptions) []Result {
	var out []Result
	if r := moveAside(m); r != nil {
		out = append(out, *r)
	}
	gitDir := filepath.Join(m.Workspace, ".git")
	repo := false // the snapshot holds some of the repository's data
	for _, e := range m.Entries {
		repo = repo || e.Type == TypeStash || e.Type == TypeBranch || within(e.Path, gitDir)
	}
	if repo && m.Workspace != "" {
		// The objects first: the references restored next point at them.
		n, err := s.RestoreObjects(gitDir, m.Time)
		r := Result{Entry: Entry{Path: filepath.Join(gitDir, "objects"), Type: TypeObjects, Size: int64(n)}, Action: Restored}
		if err != nil {
			r.Action, r.Why = Failed, err.Error()
		}
		if n > 0 || err != nil {
			out = append(out, r)
		}
	}
	index := false
	// The repository's own files before what git restores (the index,
	// stash entries and branches kept by commit), which needs them, and
	// which restoring the stash's reflog may have brought back already.
	byGit := func(e Entry) bool { return e.Type == TypeStash || e.Type == TypeBranch || e.Type == TypeIndexTree }
	for _, phase := range []bool{false, true} {
		if phase && repo && m.Workspace != "" && opts.Git != nil {
			// The references restored may lead to objects a command
			// removed before this one (a rename of objects/ that made the
			// round find them gone): all the mirror holds then.
			if ok, _ := opts.Git.Complete(m.Workspace); !ok {
				n, err := s.RestoreObjects(gitDir, time.Time{})
				r := Result{Entry: Entry{Path: filepath.Join(gitDir, "objects"), Type: TypeObjects, Size: int64(n)}, Action: Restored,
					Why: "found gone before the command; the history was not complete without them"}
				if err != nil {
					r.Action, r.Why = Failed, err.Error()
				}
				if n > 0 || err != nil {
					out = append(out, r)
				}
			}
		}
		for _, e := range m.Entries {
			if byGit(e) != phase || e.Type == TypeObject {
				continue // an object changed in place is put back with the others
			}
			action, why := s.restoreOne(m, e, opts)
			out = append(out, Result{Entry: e, Action: action, Why: why})
			index = index || action == Restored && e.Path == filepath.Join(gitDir, "index")
		}
	}
	if index && opts.Git != nil {
		// The index restored names tracked files the command may have
		// removed with the repository; files there are left as they are.
		n, err := opts.Git.CheckoutMissing(m.Workspace)
		r := Result{Entry: Entry{Path: m.Workspace, Type: TypeCheckout, Size: int64(n)}, Action: Restored}
		if err != nil {
			r.Action, r.Why = Failed, err.Error()
		}
		if n > 0 || err != nil {
			out = append(out, r)
		}
	}
	s.reindex(m.Workspace, out)
	return out
}

// moveAside moves what is now where m's workspace was, when that is not
// a directory, to a name beside it, so that the workspace can be
// restored; nothing is deleted.
func moveAside(m *Manifest) *Result {
	ws := m.Workspace
	fi, err := os.Lstat(ws)
	if ws == "" || err != nil || fi.IsDir() {
		return nil
	}
	to := ws + ".cordon-undo-" + m.ID
	r := &Result{Entry: Entry{Path: ws, Type: TypeMoved, Target: to}, Action: Restored}
	dir, release, err := pinDir(filepath.Dir(ws))
	if err == nil {
		defer release()
		err = os.Rename(filepath.Join(dir, filepath.Base(ws)), filepath.Join(dir, filepath.Base(to)))
	}
	if err != nil {
		r.Action, r.Why = Failed, err.Error()
	}
	return r
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// Content returns what e saved of a file, when it is at most max bytes.
func (s *Store) Content(e Entry, max int64) ([]byte, error) { return s.readObject(e.Object, max) }

// readObject reads a saved content of at most max bytes.
func (s *Store) readObject(sum string, max int64) ([]byte, error) {
	f, err := s.openObject(sum)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		err = errors.New("too large")
	}
	return data, err
}

// reindex records restored files in the workspace's continuous index, so
// that the guard does not take them for the next command's changes.
func (s *Store) reindex(ws string, results []Result) {
	unlock, err := s.lock()
	if err != nil {
		return
	}
	defer unlock()
	idx, err := s.Get(indexID(ws))
	if err != nil {
		return
	}
	at := map[string]int{}
	for i, e := range idx.Entries {
		at[e.Path] = i
	}
	for _, r := range results {
		fi, err := os.Lstat(r.Entry.Path)
		if r.Action != Restored || err != nil || r.Entry.Type != TypeFile && r.Entry.Type != TypeSymlink {
			continue
		}
		e := r.Entry
		e.Stat = statKey(fi)
		if racy(fi, time.Now()) {
			e.Stat = "racy"
		}
		if i, ok := at[e.Path]; ok {
			idx.Entries[i] = e
		} else {
			idx.Entries = append(idx.Entries, e)
		}
	}
	s.writeManifest(idx)
}

func (s *Store) restoreOne(m *Manifest, e Entry, opts RestoreOptions) (string, string) {
	switch e.Type {
	case TypeStash, TypeBranch:
		return restoreGit(e, opts.Git)
	case TypeIndexTree:
		return restoreIndex(m, e, opts)
	}
	// Every change below is made through the directory as it is now,
	// opened without following a symlink: a process swapping a
	// directory for a link meanwhile cannot lead the writes elsewhere.
	dir, release, err := pinDir(filepath.Dir(e.Path))
	if err != nil {
		return Failed, err.Error()
	}
	defer release()
	at := filepath.Join(dir, filepath.Base(e.Path))
	fi, err := os.Lstat(at)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Failed, err.Error()
	}
	if exists && s.same(e, at, fi) {
		return Same, ""
	}
	if exists && !opts.Force && changedAfter(m, fi) {
		return Kept, "changed since the command ran (--force overwrites it)"
	}
	switch e.Type {
	case TypeDir:
		if exists {
			if err := os.RemoveAll(at); err != nil {
				return Failed, err.Error()
			}
		}
		if err := os.Mkdir(at, fs.FileMode(e.Mode)|0o700); err != nil {
			return Failed, err.Error()
		}
		os.Chmod(at, fs.FileMode(e.Mode))
		return Restored, ""
	case TypeSymlink:
		if opts.Vet != nil {
			// A link is judged as what it leads to: a place tools run or
			// obey is not made a link again (its saved content, nil, is
			// the link's).
			if v, note := opts.Vet(m.Workspace, e.Path, nil); v.Keep || v.Write != nil {
				return Kept, note
			}
		}
		tmp := tempName(at)
		if err := os.Symlink(e.Target, tmp); err != nil {
			return Failed, err.Error()
		}
		return renameInto(tmp, at, exists && fi.IsDir())
	case TypeFile:
		var note string
		var content []byte
		if opts.Vet != nil {
			var v Verdict
			v, note = opts.Vet(m.Workspace, e.Path, func() ([]byte, error) { return s.readObject(e.Object, 16<<20) })
			if v.Keep || v.Write != nil {
				aside := at + ".cordon-undo-" + m.ID
				tmp, err := s.writeTemp(at, e.Object, nil, 0o600)
				if err == nil {
					_, why := renameInto(tmp, aside, false)
					if why != "" {
						err = errors.New(why)
					}
				}
				if err != nil {
					return Failed, fmt.Sprintf("%s; and its saved content could not be written beside it: %v", note, err)
				}
				if v.Keep {
					return Kept, note
				}
				content = v.Write
			}
		}
		tmp, err := s.writeTemp(at, e.Object, content, fs.FileMode(e.Mode))
		if err != nil {
			return Failed, err.Error()
		}
		action, why := renameInto(tmp, at, exists && fi.IsDir())
		if why == "" {
			why = note
		}
		return action, why
	}
	return Failed, "unknown entry type " + e.Type
}

// same reports whether the file at (e's path, pinned) is already as e
// saved it.
func (s *Store) same(e Entry, at string, fi fs.FileInfo) bool {
	switch e.Type {
	case TypeDir:
		return fi.IsDir()
	case TypeSymlink:
		t, err := os.Readlink(at)
		return fi.Mode()&fs.ModeSymlink != 0 && err == nil && t == e.Target
	case TypeFile:
		if !fi.Mode().IsRegular() || fi.Size() != e.Size {
			return false
		}
		f, err := openFile(at)
		if err != nil {
			return false
		}
		defer f.Close()
		h := sha256.New()
		io.Copy(h, f)
		return hex.EncodeToString(h.Sum(nil)) == e.Object
	}
	return false
}

// changedAfter reports whether fi changed after m's command ended (or,
// when that is unknown, after the snapshot was taken), comparing change
// times with the file clock's reading at its end.
func changedAfter(m *Manifest, fi fs.FileInfo) bool {
	end := m.Ended
	if end.IsZero() {
		end = m.Time
	}
	sec, nsec := ctime(fi)
	if sec == 0 && nsec == 0 {
		return true
	}
	return time.Unix(sec, nsec).After(end)
}

// noLinks makes dir and refuses when a component of it is a symlink: an
// agent could otherwise plant one so that restoring writes elsewhere.
// ([pinDir] then holds the directory so checked.)
func noLinks(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if real != filepath.Clean(dir) {
		return fmt.Errorf("%s now leads through a symlink to %s; not restored there", dir, real)
	}
	return nil
}

func tempName(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".cordon-undo-"+newID())
}

// writeTemp writes the saved content object (or content, when not nil)
// next to the path at, with mode.
func (s *Store) writeTemp(at, object string, content []byte, mode fs.FileMode) (string, error) {
	tmp := tempName(at)
	if content != nil {
		return tmp, fillNew(tmp, mode, bytes.NewReader(content), nil)
	}
	src, err := s.openObject(object)
	if err != nil {
		return "", fmt.Errorf("its saved content is gone from the store: %v", err)
	}
	defer src.Close()
	return tmp, fillNew(tmp, mode, src, src)
}

// fillNew makes the file path, which must not exist, with what src
// holds and with mode: a clone of the file clone where the file system
// can make one, a copy otherwise. Nothing is left when it fails.
func fillNew(path string, mode fs.FileMode, src io.Reader, clone *os.File) error {
	err := errors.ErrUnsupported
	if clone != nil {
		err = cloneFile(clone, path)
	}
	if err != nil {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, src)
		if e := f.Close(); err == nil {
			err = e
		}
		if err != nil {
			os.Remove(path)
			return err
		}
	}
	if err := os.Chmod(path, mode); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// renameInto moves tmp to path (a directory there is removed first).
func renameInto(tmp, path string, dir bool) (string, string) {
	if dir {
		if err := os.RemoveAll(path); err != nil {
			os.Remove(tmp)
			return Failed, err.Error()
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return Failed, err.Error()
	}
	return Restored, ""
}

// restoreIndex makes the repository's index hold the tree e saved,
// unless it changed after the command (or --force).
func restoreIndex(m *Manifest, e Entry, opts RestoreOptions) (string, string) {
	if opts.Git == nil {
		return Failed, "git is not available"
	}
	repo := filepath.Dir(filepath.Dir(e.Path))
	if fi, err := os.Lstat(e.Path); err == nil {
		if cur, err := opts.Git.IndexTree(repo); err == nil && cur == e.Commit {
			return Same, ""
		}
		if !opts.Force && changedAfter(m, fi) {
			return Kept, "changed since the command ran (--force overwrites it)"
		}
	}
	if err := opts.Git.ReadTree(repo, e.Commit); err != nil {
		return Failed, err.Error()
	}
	return Restored, ""
}

func restoreGit(e Entry, g Git) (string, string) {
	if g == nil {
		return Failed, "git is not available"
	}
	switch e.Type {
	case TypeStash:
		have, err := g.Stashes(e.Path)
		if err != nil {
			return Failed, err.Error()
		}
		for _, c := range have {
			if c == e.Commit {
				return Same, ""
			}
		}
		if err := g.StoreStash(e.Path, e.Commit, e.Message); err != nil {
			return Failed, err.Error()
		}
		return Restored, ""
	default:
		cur, err := g.Branch(e.Path, e.Ref)
		switch {
		case err != nil:
			return Failed, err.Error()
		case cur == e.Commit:
			return Same, ""
		case cur != "":
			return Kept, "the branch exists again, at " + short(cur)
		}
		if err := g.SetBranch(e.Path, e.Ref, e.Commit); err != nil {
			return Failed, err.Error()
		}
		return Restored, ""
	}
}

func short(c string) string { return c[:min(len(c), 12)] }
