package gitstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/rules"
)

// Repo is one repository, queried lazily. It implements [rules.Repo].
type Repo struct {
	// Top is the repository's top-level directory.
	Top string
	// Env is the environment of the judged command: where git finds the
	// user's own configuration (HOME, XDG_CONFIG_HOME).
	Env []string
	// Host says which git to run and where to keep cordon's transient
	// files. It is asked once, when git is first needed; nil or an error
	// makes the state unknown.
	Host func() (Host, error)
	// Agent, when set, gives the remotes sandboxed commands added (read
	// once, when a push is judged).
	Agent func() []string

	once   sync.Once
	err    error
	host   Host
	gitDir string // the git directory (.git, or where a .git file points)
	common string // the common directory (gitDir, or a linked worktree's main .git)
	config []entry
	depth  int // how deep in submodules this repository is
}

// Host is what judging needs from outside the repository.
type Host struct {
	// Git is the git binary: one sandboxed commands cannot replace
	// (see [FindGit]).
	Git string
	// Dir is a directory sandboxed commands cannot write, for the
	// configuration cordon gives git.
	Dir string
}

// timeout bounds one git query: a huge repository or a hung file system
// makes the state unknown (which asks) instead of hanging the shim.
const timeout = 3 * time.Second

// prepare finds the repository's layout, the host's git and the
// configuration git would read, once.
func (r *Repo) prepare() error {
	r.once.Do(func() {
		if r.Host == nil {
			r.err = errors.New("no trusted git to read the repository with")
			return
		}
		if r.host, r.err = r.Host(); r.err != nil {
			return
		}
		if r.gitDir, r.common, r.err = layout(r.Top); r.err != nil {
			return
		}
		r.config, r.err = r.readConfig()
	})
	return r.err
}

// layout returns the git directory and the common directory of the
// repository at top, read from the files git itself reads. A common
// directory (.git/commondir) is accepted only where git puts one: in a
// linked worktree's directory COMMON/worktrees/NAME. Anywhere else it
// would send git, and cordon, to another repository's state.
func layout(top string) (gitDir, common string, err error) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err != nil:
		return "", "", err
	case fi.IsDir():
		gitDir = dotgit
	default:
		data, err := readRepoFile(dotgit, maxPointer)
		if err != nil {
			return "", "", err
		}
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return "", "", fmt.Errorf("%s is not a gitdir file", dotgit)
		}
		gitDir = absUnder(top, strings.TrimSpace(dir))
	}
	common = gitDir
	data, err := readRepoFile(filepath.Join(gitDir, "commondir"), maxPointer)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return gitDir, common, nil
	case err != nil:
		return "", "", err
	}
	common = absUnder(gitDir, strings.TrimSpace(string(data)))
	if filepath.Dir(gitDir) != filepath.Join(common, "worktrees") {
		return "", "", fmt.Errorf("%s/commondir points to %s, which is not the repository that holds it: the state is not read", gitDir, common)
	}
	return gitDir, common, nil
}

func absUnder(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// An entry is one configuration variable as git lists it: the name with
// section and variable in lower case, and the value (none for a bare
// boolean).
type entry struct {
	key, value string
	bare       bool
}

// readConfig lists the configuration git would read for the repository
// (system, global, the repository's, included files) with
// `git config --list`, which only reads files.
func (r *Repo) readConfig() ([]entry, error) {
	env := append(r.baseEnv(), "GIT_DIR="+r.gitDir, "GIT_COMMON_DIR="+r.common)
	if v := lookup(r.Env, "HOME"); v != "" {
		env = append(env, "HOME="+v)
	}
	if v := lookup(r.Env, "XDG_CONFIG_HOME"); v != "" {
		env = append(env, "XDG_CONFIG_HOME="+v)
	}
	out, err := r.run(env, "config", "--list", "-z")
	if err != nil {
		return nil, err
	}
	var entries []entry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, ok := strings.Cut(string(rec), "\n")
		entries = append(entries, entry{key: k, value: v, bare: !ok})
	}
	for _, e := range entries {
		if e.key == "extensions.refstorage" && e.value != "files" {
			return nil, fmt.Errorf("the repository stores refs as %q, which cordon does not read", e.value)
		}
	}
	return entries, nil
}

// kept are the variables git is given (from every level of the
// configuration, in order): the ones that change how the work tree is
// compared with the index (case, line endings, modes, ignored files).
// None runs a program. Everything else, and every filter, hook, pager,
// fsmonitor, alias, credential helper, transport and include, git never
// sees while cordon judges.
var kept = map[string]bool{
	"core.repositoryformatversion": true, "extensions.objectformat": true,
	"core.ignorecase": true, "core.precomposeunicode": true, "core.protecthfs": true, "core.protectntfs": true,
	"core.filemode": true, "core.symlinks": true, "core.trustctime": true, "core.checkstat": true,
	"core.autocrlf": true, "core.eol": true, "core.safecrlf": true, "core.checkroundtripencoding": true,
	"core.excludesfile": true, "core.attributesfile": true,
	"core.sparsecheckout": true, "core.sparsecheckoutcone": true, "index.sparse": true,
	"core.longpaths": true, "core.fscache": true, "core.bigfilethreshold": true,
}

// userFiles are the kept variables that name a file, and the file git
// reads when they are not set (under $XDG_CONFIG_HOME, else ~/.config).
// git is given them expanded: it runs with a HOME of cordon's.
var userFiles = map[string]string{"core.excludesfile": "git/ignore", "core.attributesfile": "git/attributes"}

// configText is the configuration file cordon gives git: the kept
// variables of entries, with the user's files spelled out for the home
// directory home and the configuration directory xdg ("" when unset).
func configText(entries []entry, home, xdg string) string {
	var b strings.Builder
	put := func(key, value string, bare bool) {
		section, name, _ := strings.Cut(key, ".")
		if bare {
			fmt.Fprintf(&b, "[%s]\n\t%s\n", section, name)
			return
		}
		v := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(value)
		fmt.Fprintf(&b, "[%s]\n\t%s = \"%s\"\n", section, name, v)
	}
	set := map[string]bool{}
	for _, e := range entries {
		if !kept[e.key] {
			continue
		}
		v := e.value
		if _, ok := userFiles[e.key]; ok && home != "" && strings.HasPrefix(v, "~/") {
			v = filepath.Join(home, v[2:])
		}
		set[e.key] = true
		put(e.key, v, e.bare)
	}
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	for key, file := range userFiles {
		if !set[key] && xdg != "" {
			put(key, filepath.Join(xdg, file), false)
		}
	}
	return b.String()
}

// commonLinks are what git reads from the common directory besides the
// configuration and the objects: the fake common directory links to
// them. Hooks are not among them.
var commonLinks = []string{"refs", "packed-refs", "info", "shallow"}

// git runs a read-only git command in the repository. git gets a common
// directory of cordon's own, made for this one command in the host's
// private directory: the configuration file there holds only the kept
// variables, and the rest links to the repository's refs, excludes and
// attributes. The system's and the user's configuration files are not
// read (HOME is that directory). So a filter, fsmonitor, hook or any
// other program the repository's, or anyone's, configuration names,
// planted before or while cordon judges, is never known to git.
func (r *Repo) git(args ...string) ([]byte, error) { return r.gitWith(nil, "", args...) }

// gitStdin is [Repo.git] with stdin as git's standard input.
func (r *Repo) gitStdin(stdin string, args ...string) ([]byte, error) {
	return r.gitWith(nil, stdin, args...)
}

// gitWith is [Repo.git] with more environment (which wins over git's
// own) and stdin as git's standard input.
func (r *Repo) gitWith(extra []string, stdin string, args ...string) ([]byte, error) {
	if err := r.prepare(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.host.Dir, "git-")
	if err != nil {
		return nil, fmt.Errorf("cannot make cordon's git directory: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "config"), []byte(configText(r.config, lookup(r.Env, "HOME"), lookup(r.Env, "XDG_CONFIG_HOME"))), 0o600); err != nil {
		return nil, err
	}
	for _, name := range commonLinks {
		if err := os.Symlink(filepath.Join(r.common, name), filepath.Join(tmp, name)); err != nil {
			return nil, fmt.Errorf("cannot make cordon's git directory: %v", err)
		}
	}
	env := append(r.baseEnv(),
		"GIT_DIR="+r.gitDir, "GIT_COMMON_DIR="+tmp, "GIT_OBJECT_DIRECTORY="+filepath.Join(r.common, "objects"),
		"GIT_WORK_TREE="+r.Top, "HOME="+tmp, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	env = append(env, extra...)
	return r.runStdin(env, stdin, append([]string{"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"}, args...)...)
}

// baseEnv is the environment every git child starts from: nothing of the
// judged command's (no GIT_*, no LD_PRELOAD), only what git itself needs.
func (r *Repo) baseEnv() []string {
	env := []string{"PATH=" + filepath.Dir(r.host.Git), "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0"}
	if runtime.GOOS == "windows" {
		for _, k := range []string{"SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "TEMP", "TMP"} {
			if v := lookup(r.Env, k); v != "" {
				env = append(env, k+"="+v)
			}
		}
	}
	return env
}

// run runs the host's git with env in the top-level directory.
func (r *Repo) run(env []string, args ...string) ([]byte, error) { return r.runStdin(env, "", args...) }

func (r *Repo) runStdin(env []string, stdin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.host.Git, append([]string{"--no-pager"}, args...)...)
	cmd.Dir, cmd.Env = r.Top, env
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New("git " + strings.Join(args, " ") + ": " + strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func lookup(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && (k == key || runtime.GOOS == "windows" && strings.EqualFold(k, key)) {
			return v
		}
	}
	return ""
}

// maxSubmoduleDepth bounds how deep submodules of submodules are read.
const maxSubmoduleDepth = 3

// Changes implements [rules.Repo]. The changes inside a checked-out
// submodule are read the same way, as a repository of its own (git is
// never let to recurse, which would read the submodule's configuration).
func (r *Repo) Changes() ([]rules.Change, error) {
	out, err := r.git("status", "--porcelain=v1", "-z", "--ignored", "--untracked-files=normal", "--ignore-submodules=dirty")
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
	sub, err := r.submoduleChanges()
	return append(changes, sub...), err
}

// submoduleChanges reads the changes of the checked-out submodules.
func (r *Repo) submoduleChanges() ([]rules.Change, error) {
	if _, err := os.Lstat(filepath.Join(r.Top, ".gitmodules")); err != nil {
		return nil, nil
	}
	out, err := r.git("ls-files", "--stage", "-z")
	if err != nil {
		return nil, err
	}
	var changes []rules.Change
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, p, ok := strings.Cut(string(rec), "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		top := filepath.Join(r.Top, p)
		if _, err := os.Lstat(filepath.Join(top, ".git")); err != nil {
			continue // not checked out: nothing there to lose
		}
		if r.depth >= maxSubmoduleDepth {
			return nil, fmt.Errorf("submodules nested deeper than %d", maxSubmoduleDepth)
		}
		sr := &Repo{Top: top, Env: r.Env, Host: r.Host, depth: r.depth + 1}
		ch, err := sr.Changes()
		if err != nil {
			return nil, err
		}
		changes = append(changes, ch...)
	}
	return changes, nil
}

// Stashes implements [rules.Repo]: the entries of the stash's reflog,
// read from the file (`git stash list` would run `git log`).
func (r *Repo) Stashes() (int, error) {
	if err := r.prepare(); err != nil {
		return 0, err
	}
	data, err := readRepoFile(filepath.Join(r.common, "logs", "refs", "stash"), maxReflog)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n, nil
}

// Unmerged implements [rules.Repo].
func (r *Repo) Unmerged(branch string) (bool, error) {
	ref := "refs/heads/" + branch
	out, err := r.git("for-each-ref", "--format=%(refname)", ref)
	if err != nil {
		return false, err
	}
	if !slices.Contains(strings.Fields(string(out)), ref) {
		return false, nil // no such branch: deleting it loses nothing
	}
	out, err = r.git("for-each-ref", "--contains", ref, "--format=%(refname)", "refs/remotes/", "refs/heads/")
	if err != nil {
		return false, err
	}
	head := r.head()
	for _, got := range strings.Fields(string(out)) {
		if got != ref && (strings.HasPrefix(got, "refs/remotes/") || got == head) {
			return false, nil
		}
	}
	return true, nil
}

// Remotes implements [rules.Repo]: the remotes named in the
// configuration.
func (r *Repo) Remotes() ([]string, error) {
	if err := r.prepare(); err != nil {
		return nil, err
	}
	var remotes []string
	seen := map[string]bool{}
	for _, e := range r.config {
		rest, ok := strings.CutPrefix(e.key, "remote.")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 || seen[rest[:i]] {
			continue
		}
		seen[rest[:i]] = true
		remotes = append(remotes, rest[:i])
	}
	return remotes, nil
}

// AgentRemotes implements [rules.RemoteDetails].
func (r *Repo) AgentRemotes() []string {
	if r.Agent == nil {
		return nil
	}
	return r.Agent()
}

// DefaultBranch implements [rules.RemoteDetails]: the branch
// refs/remotes/REMOTE/HEAD names, read from the file (git clone and git
// remote set-head write it); "" when there is none.
func (r *Repo) DefaultBranch(remote string) (string, error) {
	if remote == "" || strings.ContainsAny(remote, "/\\") || strings.HasPrefix(remote, ".") {
		return "", nil
	}
	_, common, err := layout(r.Top)
	if err != nil {
		return "", err
	}
	data, err := readRepoFile(filepath.Join(common, "refs", "remotes", remote, "HEAD"), maxPointer)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/remotes/"+remote+"/")
	if !ok {
		return "", nil
	}
	return ref, nil
}

// RemoteHas implements [rules.RemoteBranches]: whether
// refs/remotes/REMOTE/BRANCH exists.
func (r *Repo) RemoteHas(remote, branch string) (bool, error) {
	if remote == "" || branch == "" || strings.ContainsAny(remote+branch, "*?[\\") || strings.HasPrefix(remote, ".") {
		return true, nil // cannot be told: it may
	}
	out, err := r.git("for-each-ref", "--format=%(refname)", "refs/remotes/"+remote+"/"+branch)
	if err != nil {
		return true, err
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// head returns the branch HEAD names ("refs/heads/main"), read from the
// file, or "" when HEAD is detached or unreadable.
func (r *Repo) head() string {
	data, err := readRepoFile(filepath.Join(r.gitDir, "HEAD"), maxPointer)
	if err != nil {
		return ""
	}
	ref, _ := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	return ref
}

// Remote implements [rules.Repo]: the remote name stands for (for "",
// the one git pushes to or fetches from by default on the current
// branch) and its address as git would use it, with the configuration's
// insteadOf (and, for push, pushInsteadOf and pushurl) applied. The URL
// is "" when the remote is not configured.
func (r *Repo) Remote(name string, push bool) (string, string, error) {
	if err := r.prepare(); err != nil {
		return "", "", err
	}
	get := r.value // the last one wins, as in git
	if name == "" {
		branch := strings.TrimPrefix(r.head(), "refs/heads/")
		if push {
			name = cmpOr(get("branch."+branch+".pushremote"), get("remote.pushdefault"))
		}
		name = cmpOr(name, get("branch."+branch+".remote"), "origin")
	}
	url := ""
	if push {
		url = get("remote." + name + ".pushurl")
	}
	if url == "" {
		url = get("remote." + name + ".url")
		if url == "" {
			return name, "", nil
		}
		if push {
			if u, ok := r.rewrite(url, ".pushinsteadof"); ok {
				return name, u, nil
			}
		}
	}
	url, _ = r.rewrite(url, ".insteadof")
	return name, url, nil
}

// PushTarget implements [rules.PushSettings]: what a git push of branch
// to remote with no refspec writes, as the configuration says (git's
// push.default and remote.NAME.push).
func (r *Repo) PushTarget(remote, branch string) (string, error) {
	if err := r.prepare(); err != nil {
		return "", err
	}
	if r.value("remote."+remote+".push") != "" {
		return "?", nil // the remote's own refspecs: not read here
	}
	switch strings.ToLower(r.value("push.default")) {
	case "matching":
		return "*", nil
	case "upstream", "tracking":
		merge := r.value("branch." + branch + ".merge")
		if merge == "" {
			return "", nil // git refuses: no upstream
		}
		if d, ok := strings.CutPrefix(merge, "refs/heads/"); ok {
			return d, nil
		}
		return "?", nil
	}
	return "", nil // simple, current, nothing: the branch's own name or none
}

// value returns the last value of key in the configuration (keys ignore
// case, as git's section and variable names do), or "".
func (r *Repo) value(key string) string {
	v := ""
	for _, e := range r.config {
		if strings.EqualFold(e.key, key) {
			v = e.value
		}
	}
	return v
}

// rewrite applies the longest url.<base>.<suffix> prefix of the
// configuration that url starts with.
func (r *Repo) rewrite(url, suffix string) (string, bool) {
	best, base := "", ""
	for _, e := range r.config {
		k := strings.ToLower(e.key)
		if !strings.HasPrefix(k, "url.") || !strings.HasSuffix(k, suffix) {
			continue
		}
		if strings.HasPrefix(url, e.value) && len(e.value) > len(best) {
			best, base = e.value, e.key[len("url."):len(e.key)-len(suffix)]
		}
	}
	if best == "" {
		return url, false
	}
	return base + url[len(best):], true
}

func cmpOr(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// Head implements [rules.Repo]: the branch HEAD names, read from the
// file; "" when HEAD is detached.
// It reads files only: no git runs.
func (r *Repo) Head() (string, error) {
	gitDir, _, err := layout(r.Top)
	if err != nil {
		return "", err
	}
	data, err := readRepoFile(filepath.Join(gitDir, "HEAD"), maxPointer)
	if err != nil {
		return "", err
	}
	ref, _ := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	if !strings.HasPrefix(ref, "refs/heads/") {
		return "", nil // detached
	}
	return strings.TrimPrefix(ref, "refs/heads/"), nil
}

// Unchanged lists the files the index holds that match pathspecs and
// whose file in the work tree git finds unchanged (by its stat data,
// as ls-files -m): paths relative to the top level.
func (r *Repo) Unchanged(pathspecs []string) ([]string, error) {
	if len(pathspecs) == 0 {
		return nil, nil
	}
	all, err := r.lsFiles(nil, pathspecs)
	if err != nil {
		return nil, err
	}
	changed, err := r.lsFiles([]string{"--modified", "--deleted"}, pathspecs)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(f string) bool { return slices.Contains(changed, f) }), nil
}

// Files lists the files the index holds, and those it does not (but
// for what .gitignore leaves out, unless ignored), that match pathspecs
// (git's own, ":(glob)**/.npmrc"): paths relative to the top level. git
// looks through the work tree, not cordon: a directory of a million
// files costs git's walk, and none is left out.
func (r *Repo) Files(pathspecs []string, ignored bool) ([]string, error) {
	if len(pathspecs) == 0 {
		return nil, nil
	}
	var out []string
	for _, extra := range [][]string{nil, {"--others", "--exclude-standard"}, {"--others", "--ignored", "--exclude-standard"}} {
		if extra != nil && len(extra) == 3 && !ignored {
			continue
		}
		files, err := r.lsFiles(extra, pathspecs)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// lsFiles is git ls-files with the options extra, for pathspecs.
func (r *Repo) lsFiles(extra, pathspecs []string) ([]string, error) {
	args := append(append([]string{"ls-files", "-z"}, extra...), "--")
	data, err := r.git(append(args, pathspecs...)...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range bytes.Split(data, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out, nil
}

// Bounds on the repository files read whole: a pointer (HEAD, a .git
// file, commondir) and the stash's reflog (some hundred thousand
// entries).
const (
	maxPointer = 64 << 10
	maxReflog  = 16 << 20
)

// readRepoFile reads a file of the repository, which sandboxed commands
// can write: only a regular file, opened without blocking (a FIFO put in
// its place would hang the judge, outside any sandbox, for good) and
// of at most max bytes (a sparse file of a terabyte would take the
// memory); anything else is an error, which the judge asks about.
func readRepoFile(name string, max int64) ([]byte, error) {
	return smallfile.ReadRegular(name, max)
}
