package gitstate

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordonsh/cordon/internal/gitindex"
)

// What a snapshot keeps of references a command would drop (the stash,
// an unmerged branch), and what `cordon undo` writes back. The commits
// stay in the repository's object store until git gc prunes them (by
// default two weeks after they became unreachable).

// A StashEntry is one entry of the stash.
type StashEntry struct {
	Commit  string
	Message string
}

// StashEntries lists the stash, newest first, read from its reflog file.
func (r *Repo) StashEntries() ([]StashEntry, error) {
	if err := r.prepare(); err != nil {
		return nil, err
	}
	data, err := readRepoFile(filepath.Join(r.common, "logs", "refs", "stash"), maxReflog)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []StashEntry
	for _, line := range strings.Split(string(data), "\n") {
		head, msg, _ := strings.Cut(line, "\t")
		f := strings.Fields(head)
		if len(f) < 2 {
			continue
		}
		out = append([]StashEntry{{Commit: f[1], Message: msg}}, out...)
	}
	return out, nil
}

// BranchCommit returns the commit branch points at, or "" when there is
// no such branch.
func (r *Repo) BranchCommit(branch string) (string, error) {
	ref := "refs/heads/" + branch
	out, err := r.git("for-each-ref", "--format=%(objectname) %(refname)", ref)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if sum, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sum, nil
		}
	}
	return "", nil
}

// StoreStash makes commit a stash entry again (git stash store).
func (r *Repo) StoreStash(commit, message string) error {
	_, err := r.git("stash", "store", "-m", message, commit)
	return err
}

// CreateBranch makes branch point at commit; it fails if the branch
// exists.
func (r *Repo) CreateBranch(branch, commit string) error {
	_, err := r.git("update-ref", "refs/heads/"+branch, commit, "")
	return err
}

// CheckoutMissing writes the tracked files missing from the work tree
// from the index (no file there is overwritten), and returns how many.
func (r *Repo) CheckoutMissing() (int, error) {
	out, err := r.git("ls-files", "-z", "--deleted")
	if err != nil {
		return 0, err
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return 0, nil
	}
	_, err = r.gitStdin(strings.Join(files, "\x00")+"\x00", "checkout-index", "-z", "--stdin")
	return len(files), err
}

// WriteTreeAside returns the tree of the index, writing the trees the
// repository does not have into the object directory objects, not into
// the repository, and reading a copy of the index: the repository is
// left exactly as it was (git would otherwise write the trees, and the
// index again with its cache of them). With objects "", they go to a
// temporary directory, removed after. It fails while the index has
// unmerged entries.
func (r *Repo) WriteTreeAside(objects string) (string, error) {
	if err := r.prepare(); err != nil {
		return "", err
	}
	if objects == "" {
		dir, err := os.MkdirTemp(r.host.Dir, "objects-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		objects = dir
	}
	// (A regular file, not waited for: a command can leave a named pipe
	// or a link to a device in its place.)
	src, err := gitindex.Open(filepath.Join(r.gitDir, "index"))
	if err != nil {
		return "", err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(r.host.Dir, "index-")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, src)
	if e := tmp.Close(); err == nil {
		err = e
	}
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(objects, 0o700); err != nil {
		return "", err
	}
	out, err := r.gitWith([]string{"GIT_INDEX_FILE=" + tmp.Name(), "GIT_OBJECT_DIRECTORY=" + objects,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(r.common, "objects")}, "", "write-tree")
	return strings.TrimSpace(string(out)), err
}

// ReadTree makes the index hold tree (what is staged; git refreshes what
// it knows of the files on its next look).
func (r *Repo) ReadTree(tree string) error {
	_, err := r.git("read-tree", tree)
	return err
}

// Connected fails when an object the references, reflogs or index lead
// to is missing (git fsck --connectivity-only).
func (r *Repo) Connected() error {
	_, err := r.git("fsck", "--connectivity-only", "--no-dangling", "--no-progress")
	return err
}

// Hidden returns those of paths (absolute, in the work tree) that git
// status does not look at: tracked files marked skip-worktree or
// assume-unchanged (git update-index), whose changes it never lists.
func (r *Repo) Hidden(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	out, err := r.git("ls-files", "-z", "-v")
	if err != nil {
		return nil, err
	}
	flagged := map[string]bool{}
	for rec := range strings.SplitSeq(string(out), "\x00") {
		if len(rec) > 2 && rec[1] == ' ' && (rec[0] == 'S' || rec[0] >= 'a' && rec[0] <= 'z') {
			flagged[filepath.Join(r.Top, rec[2:])] = true
		}
	}
	var hidden []string
	for _, p := range paths {
		if flagged[p] {
			hidden = append(hidden, p)
		}
	}
	return hidden, nil
}
