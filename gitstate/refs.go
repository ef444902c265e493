package gitstate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	data, err := os.ReadFile(filepath.Join(r.common, "logs", "refs", "stash"))
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

// WriteTree writes the tree of the index into the repository's objects
// and returns its name; it fails while the index has unmerged entries.
func (r *Repo) WriteTree() (string, error) {
	out, err := r.git("write-tree")
	return strings.TrimSpace(string(out)), err
}

// ReadTree makes the index hold tree (what is staged; git refreshes what
// it knows of the files on its next look).
func (r *Repo) ReadTree(tree string) error {
	_, err := r.git("read-tree", tree)
	return err
}
