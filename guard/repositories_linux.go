package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordonsh/cordon/platform"
	"golang.org/x/sys/unix"
)

// A command can make a repository inside the workspace (git init sub,
// and git add sub to commit it as a gitlink, which the host's git status
// then goes into) and plant a hook or core.fsmonitor there; one can also
// make the workspace itself a repository. So the guard applies the
// places it keeps at a repository's root to every repository in the
// workspace: those there when the trusted state is taken are trusted as
// they are, and one that appears while a command holds a ticket is
// trusted as git makes it (no hook but its samples, a configuration with
// no key that runs a program): anything else a command put there is
// moved to the quarantine.

// roots are the repositories in workspace ws whose places are guarded:
// ws itself when it is one, and those nested in it; more is true when
// there were more than are guarded.
func roots(ws string) (out []platform.NestedRepo, more bool) {
	if fi, err := os.Lstat(filepath.Join(ws, ".git")); err == nil && fi.IsDir() {
		out = append(out, platform.NestedRepo{Root: ws, GitDir: filepath.Join(ws, ".git")})
	}
	nested, more := platform.NestedRepos(ws, "")
	out = append(out, nested...)
	bare, moreBare := bareRoots(ws, out)
	return append(out, bare...), more || moreBare
}

// bareRoots returns the directories directly in ws that git takes for
// git directories of their own ([isBare]: git run below one finds it),
// those of have left out, as repositories whose root and git directory
// are both the directory: kept with the repositories directly in ws,
// when a command ends, not only after its round. more is true when
// there were more than the guard keeps.
func bareRoots(ws string, have []platform.NestedRepo) (out []platform.NestedRepo, more bool) {
	f, err := os.Open(ws)
	if err != nil {
		return nil, false
	}
	entries, _ := f.ReadDir(maxBareScan)
	f.Close()
	for _, e := range entries {
		dir := filepath.Join(ws, e.Name())
		if !e.IsDir() || e.Name() == ".git" || slices.ContainsFunc(have, func(n platform.NestedRepo) bool { return n.Root == dir }) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil || !bareGitDirAt(dir) {
			continue
		}
		if len(have)+len(out) >= maxAdopted {
			return out, true
		}
		out = append(out, platform.NestedRepo{Root: dir, GitDir: dir})
	}
	return out, false
}

// maxBareScan bounds the entries of a workspace looked through for bare
// repositories directly in it (as platform.NestedRepos does for others).
const maxBareScan = 4096

// addRoot adds the places of the repository n to the ledger's patterns
// and configuration files.
func (b *book) addRoot(n platform.NestedRepo) {
	b.l.Roots = append(b.l.Roots, n.Root)
	b.addPlaces(n)
}

// addPlaces adds the places of the repository n to the ledger's
// patterns and configuration files.
func (b *book) addPlaces(n platform.NestedRepo) {
	for _, p := range n.Guarded(b.l.RootPatterns) {
		if !slices.Contains(b.l.Patterns, p) {
			b.l.Patterns = append(b.l.Patterns, p)
		}
	}
	for _, c := range n.Places(b.l.RootConfigs) {
		if !slices.Contains(b.l.Configs, c) {
			b.l.Configs = append(b.l.Configs, c)
		}
	}
}

// newRoots adds to the ledger the repositories that appeared in the
// workspace since its trusted state was taken: what is there is trusted
// to be absent (the walker trusts a hooks directory of git's samples),
// and a configuration is judged by its keys. It returns a line when the
// workspace holds more repositories than are guarded.
func (b *book) newRoots() []string {
	if len(b.l.RootPatterns)+len(b.l.RootConfigs) == 0 || b.l.Trusted == nil {
		return nil
	}
	found, more := roots(b.l.Workspace)
	var lines []string
	for _, n := range found {
		if slices.Contains(b.l.Roots, n.Root) {
			continue
		}
		if line, ok := b.unmakeBare(n); ok {
			lines = append(lines, line)
			continue
		}
		b.addRoot(n)
		b.trustPersons(n)
	}
	if more {
		lines = append(lines, "cordon: "+printable(b.l.Workspace)+" holds more repositories than the guard keeps ("+strconv.Itoa(len(found))+"): the hooks and configuration of those past them are not put back; look at them before you run git there")
	}
	return lines
}

// persons returns the places of the repository n that appeared meanwhile
// (entries relative to a repository's root) that are the person's own:
// there, untouched, since before the trusted state was taken, so before
// every command that holds a ticket (a React app's src/hooks/ that a
// command made a bare repository around). Adopting n must never move
// them.
func (b *book) persons(n platform.NestedRepo, entries []string) []string {
	if b.l.TrustedAt.IsZero() {
		return nil
	}
	var out []string
	for _, pat := range n.Places(entries) {
		for path := range snapshotNames(b.l.Workspace, pat) {
			if budget := maxPredates; predates(path, b.l.TrustedAt, &budget) {
				out = append(out, path)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// maxPredates bounds the entries looked at to tell that a place predates
// a command; past it, it is taken for the command's.
const maxPredates = 4096

// predates reports whether path, and everything below it, was there and
// unchanged before t: no inode changed since (made, written, renamed,
// linked: a command cannot set a change time back).
func predates(path string, t time.Time, budget *int) bool {
	if *budget--; *budget < 0 {
		return false
	}
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || changedSince(&st, t) {
		return false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return true
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !predates(filepath.Join(path, e.Name()), t, budget) {
			return false
		}
	}
	return true
}

// unmakeBare undoes a bare repository a command made of a directory
// holding the person's own files where git keeps hooks and its
// configuration (web/hooks/, web/config): instead of moving those, it
// moves to the quarantine what the command made that makes git take the
// directory for a git directory (HEAD, objects/, refs/, commondir). It
// reports the line saying so, and false when n is no such directory.
func (b *book) unmakeBare(n platform.NestedRepo) (string, bool) {
	if n.GitDir != n.Root {
		return "", false
	}
	mine := b.persons(n, slices.Concat(gitPlaces(b.l.RootPatterns), gitPlaces(b.l.RootConfigs)))
	if len(mine) == 0 {
		return "", false
	}
	if !remade(n.GitDir, b.l.TrustedAt) {
		// What makes git take it for a git directory was there, as it
		// is, at the trusted state: the person's repository, changed
		// inside (a push into its objects/), which moving would lose.
		return "", false
	}
	var moved []string
	q := newQuarantine(b.stateDir)
	names, _ := os.ReadDir(n.GitDir)
	for _, e := range names {
		if !slices.ContainsFunc([]string{"HEAD", "objects", "refs", "commondir"}, func(m string) bool { return strings.EqualFold(m, e.Name()) }) {
			continue
		}
		var st unix.Stat_t
		path := filepath.Join(n.GitDir, e.Name())
		if unix.Lstat(path, &st) != nil || !changedSince(&st, b.l.TrustedAt) {
			continue
		}
		if what, ok := moveBelow(q, b.l.Workspace, path); ok {
			moved = append(moved, e.Name()+": "+what)
		}
	}
	if len(moved) == 0 || bareGitDirAt(n.GitDir) {
		// Nothing the command made: the directory came whole (moved in),
		// and is the command's; adopted as any other.
		return "", false
	}
	rel := make([]string, len(mine))
	for i, p := range mine {
		rel[i], _ = filepath.Rel(n.GitDir, p)
	}
	return "cordon: " + printable(n.Root) + ": a sandboxed command made this directory a git repository of its own around your own " + printable(strings.Join(rel, ", ")) + " (git would run hooks and read its configuration there): they are left as they are, and what made it a repository is moved aside, so git no longer takes it for one (" + printable(strings.Join(moved, "; ")) + ")", true
}

// remade reports whether the directory gitDir's names, or its HEAD or
// commondir (what git reads to take it for a git directory, besides
// objects/ and refs/ being there), were made or changed since t. A push
// into a git directory that was one already changes only what is inside
// its objects/ and refs/.
func remade(gitDir string, t time.Time) bool {
	var st unix.Stat_t
	if unix.Lstat(gitDir, &st) != nil || changedSince(&st, t) {
		return true
	}
	names, _ := os.ReadDir(gitDir)
	for _, e := range names {
		if strings.EqualFold(e.Name(), "HEAD") || strings.EqualFold(e.Name(), "commondir") {
			if unix.Lstat(filepath.Join(gitDir, e.Name()), &st) != nil || changedSince(&st, t) {
				return true
			}
		}
	}
	return false
}

// trustPersons trusts the places of the repository n (added meanwhile)
// that are the person's own ([persons]) as they are: those at its root
// (web/.envrc when a command ran git init web), not in a git directory
// the command made.
func (b *book) trustPersons(n platform.NestedRepo) {
	var root []string
	for _, e := range b.l.RootPatterns {
		if !strings.HasPrefix(e, ".git/") && e != ".git" {
			root = append(root, e)
		}
	}
	mine := b.persons(n, root)
	if len(mine) == 0 {
		return
	}
	if b.l.Trusted == nil {
		b.l.Trusted = state{}
	}
	for p, e := range snapshot(b.l.Workspace, mine, nil) {
		b.l.Trusted[p] = e
	}
}

// maxAdopted bounds the repositories made below the root that a ledger
// keeps.
const maxAdopted = 512

// AdoptRoots adds to ws's ledger the repositories repos (made below the
// workspace's root by a command or a process it left: git init
// packages/app, which neither the index nor the repositories directly in
// the workspace name; or a directory made a bare repository, see
// [isBare]) and puts their git directories back to what git makes: a
// hook or a configuration key that runs a program is moved to the
// quarantine. It returns the lines saying what was done, kept too for
// the next command.
func AdoptRoots(stateDir, ws string, repos []platform.NestedRepo) []string {
	lines := adoptRoots(stateDir, ws, repos)
	keepLines(stateDir, ws, lines)
	return lines
}

// adoptRoots is [AdoptRoots] without keeping the lines.
func adoptRoots(stateDir, ws string, repos []platform.NestedRepo) []string {
	if len(repos) == 0 {
		return nil
	}
	b, err := open(stateDir, ws, false)
	if err != nil {
		return nil
	}
	defer b.close()
	var patterns, configs, lines []string
	for _, n := range repos {
		bare := n.GitDir == n.Root
		if b.keeps(n) || !platform.Within(n.Root, ws) || n.Root == ws {
			continue
		}
		if len(b.l.Adopted)+len(b.l.AdoptedBare) >= maxAdopted {
			// More than the ledger keeps: the new repository's git
			// directory goes to the quarantine whole (a bare one's HEAD:
			// its directory is the person's too).
			aside := n.GitDir
			if bare {
				aside = filepath.Join(n.GitDir, "HEAD")
			}
			if what, ok := moveBelow(newQuarantine(stateDir), ws, aside); ok {
				lines = append(lines, "cordon: "+printable(n.Root)+": a repository made by a sandboxed command, past the "+strconv.Itoa(maxAdopted)+" the guard keeps: its git directory could run programs on the host; "+what)
			}
			continue
		}
		if line, ok := b.unmakeBare(n); ok {
			lines = append(lines, line)
			continue
		}
		if bare {
			b.l.AdoptedBare = append(b.l.AdoptedBare, n.GitDir)
			lines = append(lines, "cordon: "+printable(n.Root)+": a sandboxed command made this directory a git repository of its own (HEAD, objects/, refs/: git run in it or below it finds it before the workspace's): its hooks and configuration are kept as git makes them from now on; if you did not want it, remove HEAD, objects/ and refs/ there")
		} else {
			if b.appeared(n) {
				lines = append(lines, "cordon: "+printable(n.Root)+": a git repository below the workspace's root that was not there when the guard took your own ones (it appeared between commands: made by you, the agent's file tools or a process a command left, which nothing tells apart): it is kept as a command's from now on, its hooks and configuration as git makes them (what runs a program is moved aside) and its remotes given none of your git credentials")
			}
			b.l.Roots = append(b.l.Roots, n.Root)
			if !slices.Contains(b.l.Adopted, n.Root) {
				b.l.Adopted = append(b.l.Adopted, n.Root)
			}
		}
		// (Only its git directory is the ledger's: a place at its root
		// stays one below the root until the next trusted state.)
		for _, p := range n.Places(gitPlaces(b.l.RootPatterns)) {
			if !slices.Contains(b.l.Patterns, p) {
				b.l.Patterns = append(b.l.Patterns, p)
				patterns = append(patterns, p)
			}
		}
		for _, c := range n.Places(gitPlaces(b.l.RootConfigs)) {
			if !slices.Contains(b.l.Configs, c) {
				b.l.Configs = append(b.l.Configs, c)
				configs = append(configs, c)
			}
		}
	}
	if b.l.Trusted == nil {
		b.l.Trusted = state{}
	}
	if b.l.TrustedConfigs == nil {
		b.l.TrustedConfigs = state{}
	}
	q := newQuarantine(stateDir)
	lines = append(lines, reconcile(ws, patterns, b.l.Trusted, q)...)
	if len(configs) > 0 {
		g := b.keyGuard(false)
		if g.git == "" {
			g.git, _ = platform.FindProgram("git", "/usr/bin:/bin", []string{ws}, platform.AgentSince)
		}
		lines = append(lines, reconcileConfigs(configs, b.l.TrustedConfigs, g, q)...)
		b.noteRemotes(g)
	}
	b.save()
	return lines
}

// appeared reports whether the repository n, adopted, was not made by a
// command that holds a ticket nor by an earlier one: its git directory
// was born before the trusted state was taken and is none the ledger
// knows a command made ([findBelow]'s repositories between commands).
func (b *book) appeared(n platform.NestedRepo) bool {
	id := dirID(n.GitDir) // ("" where the file system keeps no birth time: not known)
	return id != "" && !b.l.TrustedAt.IsZero() && !bornSince(unix.AT_FDCWD, n.GitDir, b.l.TrustedAt) && !slices.Contains(b.l.MadeDirs, id)
}

// keeps reports whether the ledger keeps n's git directory already. A
// bare one directly in the workspace is a root ([roots]) from the
// trusted state on, the person's as it was then: a push into it, which
// changes its objects/, does not make it a command's.
func (b *book) keeps(n platform.NestedRepo) bool {
	if n.GitDir == n.Root && slices.Contains(b.l.AdoptedBare, n.GitDir) {
		return true
	}
	return slices.Contains(b.l.Roots, n.Root)
}

// gitPlaces are the entries (relative to a repository's root) in its
// git directory.
func gitPlaces(entries []string) []string {
	return slices.DeleteFunc(slices.Clone(entries), func(e string) bool { return !strings.HasPrefix(e, ".git/") })
}

// maxOwn bounds the person's own repositories below the root that a
// ledger keeps ([book.ownRoots]).
const maxOwn = 512

// ownRoots adds to the ledger's roots the person's own repositories
// below the root that neither the index nor the workspace's first level
// names (a clone in vendor/lib), so that their hooks, configuration and
// the rest of their places are trusted as they are now and put back
// after every command, as those directly in the workspace are; it
// returns a line when it could not look everywhere. They are found once
// for a ledger, by the walk that finds the repositories commands make
// ([FindBelow]), when its first trusted state is taken: no command has
// run in the workspace under this ledger yet, so every git directory
// there is the person's, but those the ledger knows commands made
// (Adopted, MadeDirs). Later ones are not the person's: one that
// appears while a command runs is made by it, and one that appears
// between commands is found by the walk after the next one and adopted
// as made (git run there by the agent, or the person's file tools, can
// not be told from the person's own). One whose git directory is no
// longer the one found (rm -rf vendor/lib/.git && git init vendor/lib)
// is kept as adopted from then on.
func (b *book) ownRoots(g guarded) []string {
	if len(b.l.RootPatterns)+len(b.l.RootConfigs) == 0 {
		return nil
	}
	var lines []string
	if !b.l.OwnWalked {
		b.l.OwnWalked = true
		ws := b.l.Workspace
		outer, vouched := outerOwn(b.stateDir, ws)
		w := &belowWatch{ws: ws, skip: g.skip, since: time.Now(), in: -1, madeDirs: known(b.stateDir, ws).madeDirs, found: func(string) {}}
		w.setRoots(slices.Concat(b.l.Roots, b.l.Adopted))
		more := false
		w.oldRepo = func(dirfd int, rel string) {
			if len(b.l.Own) >= maxOwn {
				more = true
				return
			}
			id := repoIDAt(dirfd, ".git")
			if id != "" && (!outer || slices.Contains(vouched, id)) {
				b.l.Own = append(b.l.Own, ownRepo{Root: filepath.Join(ws, rel), ID: id})
			}
		}
		w.add(".", 0, false)
		if w.partial || more {
			lines = append(lines, "cordon: "+printable(ws)+": the guard looked for your own git repositories below the workspace's root through "+strconv.Itoa(maxBelowDirs)+" directories, "+strconv.Itoa(maxBelowDepth)+" deep, and keeps "+strconv.Itoa(maxOwn)+": the hooks and configuration of those past that are not guarded; look at them before you run git there")
		}
	}
	own := b.l.Own[:0]
	for _, o := range b.l.Own {
		gitDir := filepath.Join(o.Root, ".git")
		switch id := repoID(gitDir); {
		case id == "":
			// Gone: so is the person's claim on whatever comes there.
		case id != o.ID:
			if !slices.Contains(b.l.Adopted, o.Root) {
				b.l.Adopted = append(b.l.Adopted, o.Root)
			}
		default:
			own = append(own, o)
			if !slices.Contains(b.l.Roots, o.Root) {
				b.addRoot(platform.NestedRepo{Root: o.Root, GitDir: gitDir})
			}
		}
	}
	b.l.Own = own
	return lines
}

// outerOwn reports whether a workspace holding ws has a ledger (the
// agent worked there before: its commands could have made repositories
// in ws, while running or between commands, and planted in them), and
// the identities of the git directories such a ledger took as the
// person's own. Below ws, only those are the person's: a repository a
// command of the outer workspace made (then `cd` into ws), or one that
// appeared between its commands, is not made the person's by a first
// walk from ws (found by an attacker: a command made plant/vendor/lib
// from the outer workspace, and ws=plant's first trusted state took it,
// and what was planted in it, as the person's). An outer ledger of an
// earlier cordon, which never took its own, vouches for none.
func outerOwn(stateDir, ws string) (bool, []string) {
	if stateDir == "" {
		return false, nil
	}
	outer := false
	var ids []string
	for d := filepath.Dir(filepath.Clean(ws)); ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(ledgerFile(stateDir, d)); err == nil {
			var l struct {
				Workspace string    `json:"workspace"`
				Own       []ownRepo `json:"own"`
			}
			if json.Unmarshal(data, &l) == nil && l.Workspace == d {
				outer = true
				for _, o := range l.Own {
					ids = append(ids, o.ID)
				}
			}
		}
		if filepath.Dir(d) == d {
			return outer, ids
		}
	}
}

// repoID is the identity of the git directory gitDir: [dirID], or its
// device and inode where the file system keeps no birth time; "" when
// it is no directory.
func repoID(gitDir string) string { return repoIDAt(unix.AT_FDCWD, gitDir) }

// repoIDAt is [repoID] of name in directory dirfd.
func repoIDAt(dirfd int, name string) string {
	if id := dirIDAt(dirfd, name); id != "" {
		return id
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return ""
	}
	return strconv.FormatUint(st.Dev, 10) + ":" + strconv.FormatUint(st.Ino, 10)
}
