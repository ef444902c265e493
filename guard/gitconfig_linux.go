package guard

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordonsh/cordon/gitkey"
	"golang.org/x/sys/unix"
)

// git's configuration files (platform.Policy.GitConfig) are writable in
// the sandbox: git remote add, git branch -m and git config user.name
// write them. What is guarded there is the keys that make git run a
// program (core.fsmonitor, core.hooksPath, alias.*, filter.*, ...), not
// the file: after a command, a file that differs from its trusted version
// is read with the host's git (git config --list on a copy of its bytes,
// includes not followed, no repository, no other configuration: reading
// runs nothing) and compared with it. A change to any key outside the
// safe list, a file git cannot read, a link or a file others may now
// write puts the whole trusted file back (the command's version goes to
// the quarantine); a change to safe keys only is kept and trusted.

// A keyGuard is what judging git's configuration files needs.
type keyGuard struct {
	git  string   // the host's git, outside every writable directory; "" if none
	safe []string // globs of the keys that never run a program
}

// snapshotConfigs records the trusted state of the files that the
// patterns (absolute) match: regular files and links, nothing else.
func snapshotConfigs(patterns []string) state {
	w := &walker{out: state{}, budget: maxTotal, files: true}
	w.absolute(patterns)
	return w.out
}

// reconcileConfigs checks the files that the patterns match against
// trusted, which it updates with the changes it keeps, and returns one
// line per file put back.
func reconcileConfigs(patterns []string, trusted state, g *keyGuard, q *quarantine) []string {
	w := &walker{trusted: trusted, q: q, keys: g, files: true}
	w.absolute(patterns)
	return w.lines
}

// absolute walks absolute patterns from the root, every directory opened
// without following links.
func (w *walker) absolute(patterns []string) {
	root, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(root)
	seen := map[string]bool{}
	for _, pat := range patterns {
		pat = filepath.Clean(pat)
		if !filepath.IsAbs(pat) || pat == "/" || seen[pat] {
			continue
		}
		seen[pat] = true
		w.walk(root, "", strings.Split(pat[1:], "/"))
	}
}

// checkKeys compares the configuration file at name (stat st, or the
// error of looking it up) with its trusted version: a change that leaves
// every key outside the safe list as it was is trusted from now on; any
// other is undone.
func (w *walker) checkKeys(dirfd int, name, path string, st *unix.Stat_t, statErr error) {
	te := w.trusted[path]
	switch {
	case statErr != nil && te == nil:
		return
	case statErr == nil && te != nil && same(dirfd, name, st, te):
		return
	}
	why, ok := w.keys.judge(dirfd, name, st, statErr, te)
	if ok {
		if statErr != nil {
			delete(w.trusted, path)
			return
		}
		r := &walker{out: state{}, budget: maxFile}
		r.record(dirfd, name, path, st)
		if e := r.out[path]; e != nil {
			w.trusted[path] = e
		}
		return
	}
	line := "cordon: " + printable(path) + ": " + why
	if statErr == nil {
		line += "; " + w.q.move(dirfd, name, path)
	}
	if te != nil {
		if msg := w.restore(dirfd, name, path, te); msg != "" {
			line += "; " + msg
		} else {
			line += "; the trusted version is back"
		}
	}
	w.lines = append(w.lines, line)
}

// judge says why the file's new state cannot be kept, or reports that
// it can.
func (g *keyGuard) judge(dirfd int, name string, st *unix.Stat_t, statErr error, te *entry) (string, bool) {
	var before []gitkey.Entry
	if te != nil && te.Kind == 'f' {
		if te.Data == nil && te.Sum != emptySum {
			return "changed by a sandboxed command, and its trusted version was too large to compare it with", false
		}
		var err error
		if before, err = g.list(te.Data); err != nil {
			return fmt.Sprintf("changed by a sandboxed command, and its trusted version cannot be read (%v)", err), false
		}
	}
	var after []gitkey.Entry
	switch {
	case statErr != nil:
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return "replaced by a symbolic link by a sandboxed command (git would read its configuration elsewhere)", false
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "replaced by something other than a file by a sandboxed command", false
	case st.Nlink > 1:
		return "linked to another file by a sandboxed command (a change there would change it)", false
	case te != nil && st.Mode&0o022&^te.Mode != 0:
		return "made writable by others by a sandboxed command", false
	default:
		data, _, err := readFile(dirfd, name, maxFile)
		if err == nil && data == nil {
			err = fmt.Errorf("larger than %d bytes", maxFile)
		}
		if err == nil {
			after, err = g.list(data)
		}
		if err != nil {
			return fmt.Sprintf("changed by a sandboxed command into something git cannot read (%v)", err), false
		}
	}
	var unsafe, kept []string
	for _, k := range gitkey.Diff(before, after) {
		if gitkey.Safe(g.safe, k) {
			kept = append(kept, k)
			continue
		}
		switch {
		case !gitkey.Has(before, k):
			unsafe = append(unsafe, k+" added")
		case !gitkey.Has(after, k):
			unsafe = append(unsafe, k+" removed")
		default:
			unsafe = append(unsafe, k+" changed")
		}
	}
	if len(unsafe) == 0 {
		return "", true
	}
	why := "a sandboxed command changed keys git runs programs from or that lead it elsewhere (" + printable(strings.Join(unsafe, ", ")) + "): its change to the file was undone"
	if len(kept) > 0 {
		why += ", the safe keys' too (" + printable(strings.Join(kept, ", ")) + ": set them again in a command of their own)"
	}
	return why, false
}

// list lists a configuration file's entries with the host's git: from
// its bytes on standard input, includes not followed, without a
// repository or any other configuration, so that nothing is run.
func (g *keyGuard) list(data []byte) ([]gitkey.Entry, error) {
	if g.git == "" {
		return nil, fmt.Errorf("no git outside the directories sandboxed commands can write")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.git, "--no-pager", "config", "--file", "-", "--no-includes", "--list", "-z")
	cmd.Dir = "/"
	cmd.Env = []string{"GIT_DIR=" + os.DevNull + "/none", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "HOME=" + os.DevNull, "LC_ALL=C", "PATH=/usr/bin:/bin"}
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" {
			return nil, fmt.Errorf("%s", line)
		}
		return nil, err
	}
	return gitkey.List(out), nil
}
