package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/platform"
)

// MoveAside moves to the quarantine the auto-run places below the
// workspace ws's root that a command made or changed (the continuous
// snapshot round finds them among the paths it looks at, see package
// shim), each reached without following a link, and keeps a line per
// path for the next command to say. It returns the lines.
func MoveAside(stateDir, ws string, paths []string) []string {
	lines := moveAside(stateDir, ws, paths)
	keepLines(stateDir, ws, lines)
	return lines
}

// moveAside is [MoveAside] without keeping the lines.
func moveAside(stateDir, ws string, paths []string) []string {
	q := newQuarantine(stateDir)
	var lines []string
	var gitDirs []string // (read once, when a .git is found)
	for _, p := range paths {
		if filepath.Base(p) == ".git" {
			if gitDirs == nil {
				gitDirs = keptGitDirs(stateDir, ws, true)
			}
			if keptPointer(ws, p, gitDirs) {
				continue
			}
			if what, ok := moveBelow(q, ws, p); ok {
				lines = append(lines, "cordon: "+printable(p)+": "+pointerLine+", made or changed by a sandboxed command; "+what)
			}
			continue
		}
		if what, ok := moveBelow(q, ws, p); ok {
			lines = append(lines, "cordon: "+printable(p)+": a file tools run on their own (an auto-run place below the workspace's root), made or changed by a sandboxed command; "+what+" (cordon undo has its earlier version)")
		}
	}
	return lines
}

// pointerLine says what a .git file or link below the root is.
const pointerLine = "a .git file or link leading git to a git directory the guard does not keep (its hooks and configuration, core.fsmonitor, would run when git looks there)"

// moveBelow moves path, below ws, into q, reaching it from ws without
// following a link; it reports what it did, and false when there was
// nothing there to move.
func moveBelow(q *quarantine, ws, path string) (string, bool) {
	rel, err := filepath.Rel(ws, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	dirfd, err := openBelow(ws, filepath.Dir(rel))
	if err != nil {
		return "", false
	}
	defer unix.Close(dirfd)
	var st unix.Stat_t
	if unix.Fstatat(dirfd, filepath.Base(rel), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return "", false
	}
	return q.move(dirfd, filepath.Base(rel), path), true
}

// openBelow opens the directory rel below ws ("." for ws itself), one
// component at a time, never following a link.
func openBelow(ws, rel string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	dirfd, err := unix.Open(ws, flags, 0)
	if err != nil || rel == "." {
		return dirfd, err
	}
	for _, c := range strings.Split(rel, "/") {
		fd, err := unix.Openat(dirfd, c, flags, 0)
		unix.Close(dirfd)
		if err != nil {
			return -1, err
		}
		dirfd = fd
	}
	return dirfd, nil
}

// CheckBelow moves aside what the command that started at since made or
// changed at the auto-run places below the root of p's workspace (a
// .npmrc in a package, a .git file, a bare repository: [FindBelow]),
// before its status is given: the person's git status, run the moment
// the command returns, must not find them. The repositories made there
// are adopted ([AdoptRoots]). It returns a line per path moved or
// repository adopted (for the caller to say: none is kept); past
// belowTimeout it gives up with a line that says so (the snapshot
// round after the command then does it, as before).
func CheckBelow(stateDir string, p *platform.Policy, since time.Time) []string {
	if p.Workspace == "" || stateDir == "" || !hasBelowEntries(p.RootGuarded) {
		return nil
	}
	done := make(chan []string, 1)
	go func() { done <- checkBelowWalk(stateDir, p, since) }()
	select {
	case lines := <-done:
		return lines
	case <-time.After(belowTimeout):
		return []string{"cordon: " + printable(p.Workspace) + ": the guard did not finish looking for auto-run places a command made below the workspace's root within " + belowTimeout.String() + " (a slow or hung file system?): what it made there may still be in place; do not run npm, git, direnv or an editor's tasks below the root before the next command has run"}
	}
}

// checkBelowWalk is checkBelow (a test's that hangs).
var checkBelowWalk = checkBelow

// belowTimeout bounds [CheckBelow]: less than a session's keeper waits
// for its manager at a command's end (5 s).
var belowTimeout = 3 * time.Second

// checkBelow is [CheckBelow], unbounded. A place in a directory changed
// since (a file moved in with its directory keeps its own change time)
// stays when git has it committed and unchanged: git is asked only
// then.
func checkBelow(stateDir string, p *platform.Policy, since time.Time) []string {
	ws := p.Workspace
	specs := PlaceSpecs(p.RootGuarded, p.Regenerable)
	clean := CommittedPlaces(ws, p.Env, trustedGit(stateDir, p), p.Nested, specs)
	// (Not inside node_modules: their size would be every command's
	// cost; the round after the command looks there.)
	found, made, _ := findBelow(stateDir, ws, p.RootGuarded, p.Regenerable, p.Nested, since, clean, false)
	lines := adoptRoots(stateDir, ws, made)
	// A place of the person's (there, unchanged, since before the
	// command) at the root of a repository the command made around it
	// (git init app, around app/.envrc) stays: adoption trusted it. One
	// the command made there goes.
	found = slices.DeleteFunc(found, func(f string) bool {
		budget := maxPredates
		return atRootOf(made, f, p.RootGuarded) && predates(f, since, &budget)
	})
	return append(lines, moveAside(stateDir, ws, found)...)
}

// adoptAppeared adopts the repositories made below the root of p's
// workspace since since, the last trusted state ([begin]), that the
// ledger does not keep ([AdoptRoots]), and moves nothing else: before
// a command starts, when a new trusted state is taken. Nothing looks
// between commands, and the trusted state's repositories are those the
// index names, those at the workspace's top level and those the ledger
// keeps: one made meanwhile deeper (git init vendor/new, by a person,
// the agent's file tools or a process a command left, which nothing
// tells apart) would otherwise not be guarded during the command (a
// command set core.fsmonitor there, and the person's next git ran it),
// whichever process takes the ticket: the same session's manager, a new
// session's, or a command's guard. The lines say what was adopted.
func adoptAppeared(stateDir string, p *platform.Policy, since time.Time) []string {
	if since.IsZero() || p.Workspace == "" || stateDir == "" || !hasBelowEntries(p.RootGuarded) {
		return nil
	}
	_, made, _ := findBelow(stateDir, p.Workspace, p.RootGuarded, p.Regenerable, p.Nested, since, nil, false)
	return adoptRoots(stateDir, p.Workspace, made)
}

// atRootOf reports whether path is one of the places entries name at
// the root of one of repos (not below it).
func atRootOf(repos []platform.NestedRepo, path string, entries []string) bool {
	for _, r := range repos {
		if rel, err := filepath.Rel(r.Root, path); err == nil && platform.Within(path, r.Root) && !platform.BelowRoot(rel, entries) {
			return true
		}
	}
	return false
}

// trustedGit is the host's git for reading the repositories of p's
// workspace: found outside every directory the sandbox can write, with
// cordon's own directory for the configuration it gives git.
func trustedGit(stateDir string, p *platform.Policy) func() (gitstate.Host, error) {
	return func() (gitstate.Host, error) {
		git, err := platform.FindProgram("git", platform.Getenv(p.Env, "PATH"), p.WritableRoots(), p.SinceAgent)
		if err != nil {
			return gitstate.Host{}, err
		}
		dir := filepath.Join(stateDir, "git")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return gitstate.Host{}, err
		}
		return gitstate.Host{Git: git, Dir: dir}, nil
	}
}
