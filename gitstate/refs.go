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
