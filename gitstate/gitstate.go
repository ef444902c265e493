package gitstate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordonsh/cordon/rules"
)

// Repo is one repository, queried lazily. It implements [rules.Repo].
type Repo struct {
	// Top is the repository's top-level directory.
	Top string
	// Env is the environment git runs with.
	Env []string
}

// TopLevel returns the top-level directory of the repository containing
// dir, found by looking for .git without running git, or "" when dir is
// not in a repository.
func TopLevel(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == "/" || d == "." || d == "" || filepath.Dir(d) == d {
			return ""
		}
	}
}

// safeConfig keeps git from running programs configured by the
// repository while cordon reads its state.
var safeConfig = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.untrackedCache=false",
	"-c", "status.showUntrackedFiles=normal",
	"--no-optional-locks",
}

// timeout bounds one git query: a huge repository or a hung file system
// makes the state unknown (which asks) instead of hanging the shim.
const timeout = 3 * time.Second

func (r *Repo) git(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append(append([]string{"-C", r.Top}, safeConfig...), args...)...)
	cmd.Env = append(cleanEnv(r.Env), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New("git " + strings.Join(args, " ") + ": " + strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// cleanEnv drops the GIT_* variables of the judged command's environment:
// GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE there would point cordon's
// reading of the state somewhere else than where the command works.
func cleanEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return out
}

// Changes implements [rules.Repo].
func (r *Repo) Changes() ([]rules.Change, error) {
	out, err := r.git("status", "--porcelain=v1", "-z", "--ignored", "--untracked-files=normal")
	if err != nil {
		return nil, err
	}
	var changes []rules.Change
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		if len(f) < 4 {
			continue
		}
		xy, p := f[:2], f[3:]
		kind := rules.Modified
		switch xy {
		case "??":
			kind = rules.Untracked
		case "!!":
			kind = rules.Ignored
		}
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the rename's source follows
		}
		abs := filepath.Join(r.Top, p)
		if strings.HasSuffix(p, "/") {
			abs += "/"
		}
		changes = append(changes, rules.Change{Path: abs, Kind: kind})
	}
	return changes, nil
}

// Stashes implements [rules.Repo].
func (r *Repo) Stashes() (int, error) {
	out, err := r.git("stash", "list")
	if err != nil {
		return 0, err
	}
	return bytes.Count(out, []byte{'\n'}), nil
}

// Unmerged implements [rules.Repo].
func (r *Repo) Unmerged(branch string) (bool, error) {
	if _, err := r.git("rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		return false, nil // no such branch: deleting it loses nothing
	}
	out, err := r.git("for-each-ref", "--contains", "refs/heads/"+branch, "--format=%(refname)", "refs/remotes/", "refs/heads/")
	if err != nil {
		return false, err
	}
	for _, ref := range strings.Fields(string(out)) {
		if ref != "refs/heads/"+branch {
			if strings.HasPrefix(ref, "refs/remotes/") || r.isHead(ref) {
				return false, nil
			}
		}
	}
	return true, nil
}

// Remotes implements [rules.Repo].
func (r *Repo) Remotes() ([]string, error) {
	out, err := r.git("remote")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

func (r *Repo) isHead(ref string) bool {
	out, err := r.git("symbolic-ref", "-q", "HEAD")
	return err == nil && strings.TrimSpace(string(out)) == ref
}
