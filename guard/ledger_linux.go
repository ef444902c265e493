package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordonsh/cordon/internal/smallfile"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/filelock"
	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/internal/filestamp"
	"github.com/cordonsh/cordon/platform"
)

// A ledger is what cordon knows of one workspace's guarded places, kept
// in the state directory under a lock: their trusted state, the
// patterns it was taken for, and the commands running there.
type ledger struct {
	Workspace string   `json:"workspace"`
	Patterns  []string `json:"patterns"`
	Trusted   state    `json:"trusted"`
	Active    []ticket `json:"active,omitempty"`
	// Configs are the patterns of git's configuration files, guarded by
	// their keys (see gitconfig_linux.go): their trusted state, the safe
	// keys and the host's git to read them with, taken with Trusted.
	Configs        []string `json:"configs,omitempty"`
	TrustedConfigs state    `json:"trusted_configs,omitempty"`
	Safe           []string `json:"safe,omitempty"`
	Git            string   `json:"git,omitempty"`
	// AgentRemotes are the remotes sandboxed commands added (a new
	// remote is a safe change): a branch's remote or push remote may not
	// name one of them, whatever the trusted state holds since.
	AgentRemotes []string `json:"agent_remotes,omitempty"`
	// Roots are the repositories in the workspace whose places Patterns
	// and Configs hold (see repositories.go); RootPatterns and
	// RootConfigs are those places relative to a repository's root.
	Roots        []string `json:"roots,omitempty"`
	RootPatterns []string `json:"root_patterns,omitempty"`
	// Adopted are the repositories a command made deeper below the
	// workspace's root than the index or a walk of its first level finds
	// them ([AdoptRoots]): kept from one trusted state to the next.
	Adopted []string `json:"adopted,omitempty"`
	// AdoptedBare are the directories a command made git directories
	// of their own below the root (bare repositories, [isBare]),
	// kept as Adopted; their places are those of a repository whose
	// root and git directory are both the directory.
	AdoptedBare []string `json:"adopted_bare,omitempty"`
	RootConfigs []string `json:"root_configs,omitempty"`
	// Made are the configuration files (.git/config, a submodule's
	// .git/modules/NAME/config) that appeared while a command ran (git
	// init o, git clone URL o, git submodule add URL sub): the remotes
	// there are the command's, never the person's, even once a shell is
	// in the repository and it is a workspace of its own (see
	// [AgentRemotes]); kept for as long as the file is there. MadeMore is
	// true when more were made than the ledger keeps: then every
	// repository below the root is taken for one.
	Made     []string `json:"made,omitempty"`
	MadeMore bool     `json:"made_more,omitempty"`
	// MadeDirs are the identities (device and inode, [dirID]) of the
	// git directories of Made, the newest maxMade: a rename (mv deep/sub
	// deep/sub2) keeps them, and the path in Made then names nothing
	// (found by an attacker). Kept after their path is gone.
	MadeDirs []string `json:"made_dirs,omitempty"`
	// Reach are the places outside the workspace its commands can write
	// (scratch space, writable directories): see held_linux.go.
	Reach []string `json:"reach,omitempty"`
	// TrustedAt is when Trusted was taken: what has not changed since
	// predates every command that holds a ticket ([persons]).
	TrustedAt time.Time `json:"trusted_at"`
	// TrustedSteps are the files of stopped operations in the git
	// directories (see steps_linux.go), taken with Trusted.
	TrustedSteps state `json:"trusted_steps,omitempty"`
	// Included are the files in Configs that the trusted configuration
	// includes (see includes_linux.go), taken with it.
	Included []string `json:"included,omitempty"`
	// Own are the person's own repositories below the root that no
	// index names and that are not directly in the workspace (a clone in
	// vendor/lib), found by the walk of the first trusted state
	// ([book.ownRoots]; OwnWalked once it ran): kept in Roots from one
	// trusted state to the next, like those directly in the workspace,
	// while their git directory is the one found.
	Own       []ownRepo `json:"own,omitempty"`
	OwnWalked bool      `json:"own_walked,omitempty"`
	// GuardedSum is [guarded.sum] of the places the trusted state was
	// taken for.
	GuardedSum string `json:"guarded_sum,omitempty"`
	// IncludesRead are the files [book.addIncluded] read besides the
	// trusted state (the person's own configuration, the files included),
	// and IncludesSum what they held ([includesSum]).
	IncludesRead []string `json:"includes_read,omitempty"`
	IncludesSum  string   `json:"includes_sum,omitempty"`
}

// An ownRepo is one of the person's repositories below the root: its
// root and its git directory's identity ([repoID]).
type ownRepo struct {
	Root string `json:"root"`
	ID   string `json:"id"`
}

// maxAgentRemotes bounds the remotes the ledger remembers; a change that
// adds one more is undone.
const maxAgentRemotes = 1024

// keyGuard is what judging git's configuration files in b's workspace
// needs; live for a check while the command runs.
func (b *book) keyGuard(live bool) *keyGuard {
	return &keyGuard{git: b.l.Git, safe: b.l.Safe, ws: b.l.Workspace, live: live, agentRemotes: b.l.AgentRemotes, included: b.l.Included}
}

// noteRemotes records the remotes g saw a command add, and the
// configuration files it saw a command make.
func (b *book) noteRemotes(g *keyGuard) {
	for _, r := range g.added {
		if !slices.Contains(b.l.AgentRemotes, r) {
			b.l.AgentRemotes = append(b.l.AgentRemotes, r)
		}
	}
	for _, f := range g.born {
		b.made(f)
	}
	for dir, names := range g.elsewhere {
		noteElsewhere(b.stateDir, dir, names)
	}
}

// maxMade bounds the configuration files made by commands that a
// ledger names.
const maxMade = 1024

// made records file, a repository's configuration that appeared while a
// command ran, as made by a command; not the workspace's own (a new
// project's first command makes it a repository, and its remotes are
// the person's), nor a worktree's config.worktree (git reads it with
// its repository's config, which decides).
func (b *book) made(file string) {
	if file == filepath.Join(b.l.Workspace, ".git", "config") || filepath.Base(file) != "config" {
		return
	}
	switch {
	case slices.Contains(b.l.Made, file):
	case len(b.l.Made) >= maxMade:
		b.l.MadeMore = true
	default:
		b.l.Made = append(b.l.Made, file)
	}
	if id := dirID(filepath.Dir(file)); id != "" && !slices.Contains(b.l.MadeDirs, id) {
		if len(b.l.MadeDirs) >= maxMade {
			b.l.MadeDirs = b.l.MadeDirs[1:]
		}
		b.l.MadeDirs = append(b.l.MadeDirs, id)
	}
}

// kept is what a walk below workspace ws's root needs of the ledgers
// (read, not locked): the identities of the git directories commands
// made there, those of the ledgers of the directories holding ws too;
// the repositories ws's own ledger keeps (Roots); and whether it took
// the person's own below the root ([book.ownRoots]).
type kept struct {
	madeDirs  []string
	roots     []string
	ownWalked bool
}

// known returns what the ledgers of ws keep ([kept]).
func known(stateDir, ws string) kept {
	var k kept
	if stateDir == "" {
		return k
	}
	for _, l := range ledgers(stateDir, ws) {
		k.madeDirs = append(k.madeDirs, l.MadeDirs...)
		if l.Workspace == filepath.Clean(ws) {
			k.roots, k.ownWalked = l.Roots, l.OwnWalked
		}
	}
	return k
}

// dirID is the identity of directory dir, "DEV:INO:BIRTH" (a rename
// keeps all three; a directory made again where one was removed may
// get the inode back, never the birth time), or "" when the file
// system keeps no birth time.
func dirID(dir string) string { return dirIDAt(unix.AT_FDCWD, dir) }

// dirIDAt is [dirID] of name in directory dirfd.
func dirIDAt(dirfd int, name string) string {
	var stx unix.Statx_t
	if unix.Statx(dirfd, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME|unix.STATX_TYPE, &stx) != nil ||
		stx.Mask&unix.STATX_BTIME == 0 || stx.Mode&unix.S_IFMT != unix.S_IFDIR {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d.%d", stx.Dev_major, stx.Dev_minor, stx.Ino, stx.Btime.Sec, stx.Btime.Nsec)
}

// A guarded is what a command's guard protects in its workspace.
type guarded struct {
	patterns []string // files kept as they are (platform.Policy.Guarded)
	configs  []string // git's configuration files, by their keys
	safe     []string // the keys that never run a program
	git      string   // the host's git
	// rootPatterns and rootConfigs are patterns and configs relative to
	// a repository's root, for those made in the workspace meanwhile.
	rootPatterns, rootConfigs []string
	// skip are the names of the directories a walk below the root leaves
	// out (node_modules: platform.Policy.Regenerable).
	skip []string
	// own are the person's global and system configuration files, home
	// their "~/", writable where sandboxed commands write: what decides
	// which included files are guarded ([book.addIncluded]).
	own      []string
	home     string
	writable []string
	// reach are the places outside the workspace commands can write.
	reach []string
}

// sum is a digest of g: two tickets with the same sum guard the same
// places the same way.
func (g guarded) sum() string {
	h := sha256.Sum256(fmt.Appendf(nil, "%q", []any{g.patterns, g.configs, g.safe, g.git, g.rootPatterns, g.rootConfigs, g.skip, g.own, g.home, g.writable, g.reach}))
	return hex.EncodeToString(h[:])
}

// A ticket names a guard process running a command in the workspace.
type ticket struct {
	Pid   int    `json:"pid"`
	Start string `json:"start"` // its start time (/proc), so a reused pid is not it
}

// alive reports whether the ticket's process still runs.
func (t ticket) alive() bool { return t.Start != "" && platform.ProcessStart(t.Pid) == t.Start }

// self is this process's ticket. Its pid and start time stay the same
// for as long as it runs, so it is read once (a session's manager takes
// and gives back a ticket at every command); a failed read is not kept.
func self() ticket {
	if t := selfTicket.Load(); t != nil {
		return *t
	}
	t := ticket{Pid: os.Getpid(), Start: processStart(os.Getpid())}
	if t.Start != "" {
		selfTicket.Store(&t)
	}
	return t
}

// selfTicket is [self] once read.
var selfTicket atomic.Pointer[ticket]

// processStart is [platform.ProcessStart] (tests make it fail).
var processStart = platform.ProcessStart

// A book is a workspace's ledger file, locked while open.
type book struct {
	lock     *os.File
	file     string
	stateDir string
	l        ledger
	read     []byte // the ledger's file as read: save writes only a change
	readData []byte // its contents file as read (see contents_linux.go)
	// readKept are the contents the ledger as read names, by sum: kept
	// in the contents file one save longer (see contents_linux.go).
	readKept map[[32]byte][]byte
	// alarm says, once, that the ledger could not be read and what that
	// means (see [open]); the first reconcile's lines carry it.
	alarm string
}

// ledgerFile is the file of workspace ws's ledger: named by its path and
// its identity ([platform.Identity]), so that a workspace removed and made
// again (rm -rf app && git init app) starts a ledger of its own, as it
// gets a session sandbox of its own, instead of taking the person's new
// hooks for planted ones.
func ledgerFile(stateDir, ws string) string {
	sum := sha256.Sum256([]byte(ws + "\x00" + platform.Identity(ws)))
	return filepath.Join(stateDir, "guard", hex.EncodeToString(sum[:12])+".json")
}

// open locks and reads workspace ws's ledger, making it when create is
// true (else a missing one is fs.ErrNotExist). A workspace whose path is
// not UTF-8 has none: JSON keeps such a name only with its bytes
// replaced, so the ledger read back would never be ws's, and each read
// would find it damaged and trust the disk as it is (a command's change
// to a guarded place kept); its commands are refused instead.
func open(stateDir, ws string, create bool) (*book, error) {
	if !utf8.ValidString(ws) {
		return nil, fmt.Errorf("the workspace %s has a name that is not UTF-8, which the guard's record cannot hold: rename the directory (or run the command from one whose path is UTF-8)", strconv.QuoteToASCII(ws))
	}
	file := ledgerFile(stateDir, ws)
	if create {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return nil, err
		}
	}
	lock, err := lockLedger(stateDir, file, create)
	if err != nil {
		return nil, err
	}
	b := &book{lock: lock, file: file, stateDir: stateDir, l: ledger{Workspace: ws}}
	data, err := smallfile.ReadFile(file)
	if err == nil {
		b.read = data
		contents, cerr := smallfile.ReadFile(contentsFile(file))
		if cerr != nil {
			contents = nil
		}
		l, kept, ok := remembered(file, ws, data, contents)
		if !ok {
			l, kept, ok = decodeLedger(ws, data, contents)
		}
		if ok {
			b.l, b.readData, b.readKept = l, contents, kept
		} else {
			forget(file)
			// A damaged ledger (a crash mid-write, a full disk): what
			// was trusted is not known, so the disk is trusted as it is
			// now, and the person is told, once; the damaged file is
			// kept beside it for a look (cordon doctor lists it).
			b.l = ledger{Workspace: ws}
			aside := fmt.Sprintf("%s.damaged-%d", file, time.Now().Unix())
			os.Rename(file, aside)
			b.alarm = fmt.Sprintf("cordon: the guard's record of %s could not be read (kept as %s): the places it guards (.git/hooks, .envrc, .vscode/tasks.json, ...) are trusted as they are now; look at them before you run anything there", printable(ws), printable(aside))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		b.close()
		return nil, err
	}
	return b, nil
}

// save writes the ledger, atomically, when it differs from what was
// read: its contents first, then the ledger that names them (a reader
// between the two finds the contents of the old one missing, never
// wrong ones: they are named by their sums).
func (b *book) save() error {
	contents := encodeContents(&b.l, b.readKept)
	data, err := json.Marshal(&b.l)
	if err != nil {
		return err
	}
	if err := writeContents(b.file, contents, b.readData); err != nil {
		return err
	}
	b.readData = contents
	if b.read != nil && bytes.Equal(data, b.read) {
		return nil
	}
	if err := atomicfile.WriteOrdered(b.file, data); err != nil {
		forget(b.file)
		return err
	}
	b.read = data
	remember(b.file, b.l.Workspace, data, contents)
	return nil
}

func (b *book) close() { b.lock.Close() }

// openLock opens a ledger's lock file with flags (os.O_RDWR, and
// os.O_CREATE to make it), mode 0600, through a bare descriptor: os.OpenFile
// would register it with the poller, a lock file is only locked.
// lockLedger takes the lock of the ledger file of stateDir, a file of
// its own in the locks directory ([filelock.Dir]: the ledger is readable
// in a sandbox, and a lock a sandboxed command could open is one it
// could hold, stalling every put-back while it runs). Without create, a
// ledger that does not exist once locked is an fs.ErrNotExist error.
func lockLedger(stateDir, file string, create bool) (*os.File, error) {
	name, err := filelock.InDir(stateDir, ledgerLockName(file))
	if err != nil {
		return nil, err
	}
	lock, err := openLock(name, os.O_RDWR|os.O_CREATE)
	if errors.Is(err, unix.EACCES) && unix.Access(filepath.Dir(file), unix.W_OK) == unix.EROFS {
		// Inside cordon's own bwrap sandbox, where the locks directory
		// is hidden and the ledgers' read-only: what a guard there is
		// told when it cannot write the ledger (see Main).
		return nil, &fs.PathError{Op: "open", Path: name, Err: unix.EROFS}
	}
	if err != nil {
		return nil, err
	}
	if err := filelock.Lock(lock); err != nil {
		lock.Close()
		return nil, err
	}
	if !create {
		if _, err := os.Lstat(file); err != nil {
			lock.Close()
			return nil, err
		}
	}
	return lock, nil
}

// ledgerLockName is the name of the ledger file's lock in the locks
// directory.
func ledgerLockName(file string) string { return "guard-" + filepath.Base(file) + ".lock" }

// LedgerLock is the lock file of the ledger file of stateDir: who
// changes the ledger from outside the guard (a test as another guard)
// takes it first.
func LedgerLock(stateDir, ledger string) string {
	return filepath.Join(filelock.Dir(stateDir), ledgerLockName(ledger))
}

func openLock(name string, flags int) (*os.File, error) {
	fd, err := unix.Open(name, flags|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// sweep reconciles when a ticket's process has died without doing it
// (killed with the sandbox still running, say) and drops such tickets.
// It reports whether it dropped any.
func (b *book) sweep() ([]string, bool) {
	var alarm []string
	if b.alarm != "" {
		alarm, b.alarm = []string{b.alarm}, ""
	}
	live := slices.DeleteFunc(slices.Clone(b.l.Active), func(t ticket) bool { return !t.alive() })
	if len(live) == len(b.l.Active) {
		return alarm, false
	}
	b.l.Active = live
	lines := b.reconcile()
	b.closeHeld()
	return append(alarm, lines...), true
}

// closeHeld ends the workspace's interval of held tickets (see
// held_linux.go) once none is held.
func (b *book) closeHeld() {
	if len(b.l.Active) == 0 {
		noteHeld(b.stateDir, b.l.Workspace, b.l.Reach, b.l.TrustedAt, time.Now())
	}
}

// reconcile puts the trusted state back, and keeps the changes to git's
// configuration files that leave the keys running programs as they were.
func (b *book) reconcile() []string {
	reconciles.Add(1)
	lines := b.newRoots()
	q := newQuarantine(b.stateDir)
	if b.l.Trusted != nil {
		lines = append(lines, reconcile(b.l.Workspace, b.l.Patterns, b.l.Trusted, q)...)
	}
	if len(b.l.Configs) > 0 {
		if b.l.TrustedConfigs == nil {
			b.l.TrustedConfigs = state{}
		}
		g := b.keyGuard(false)
		lines = append(lines, reconcileConfigs(b.l.Configs, b.l.TrustedConfigs, g, q)...)
		b.noteRemotes(g)
		lines = append(lines, b.checkSteps(q)...)
	}
	return lines
}

// reconciles and snapshots count the walks of [book.reconcile] and of
// a trusted state taken ([beginWatching]): the tests of what a session's
// tickets leave out read them.
var reconciles, snapshots atomic.Int64

// stillTrusted reports whether what the reconcile looks at lies in the
// workspace, where a session's watch sees every change made by a name
// there, and every file the ledger trusts is still the file recorded:
// the same stamp (identity, size, times), permissions and owner, and no
// other name. That rules out what the watch cannot see: a write through
// a hard link whose other name is outside the workspace (no command
// makes one: a link across mounts fails), and one through a shared
// mapping, which moves the file's times on without an event. A file
// trusted without a stamp (changed shortly before it was recorded) is
// never still.
func (b *book) stillTrusted() bool {
	ws := b.l.Workspace
	if ws == "" {
		return false
	}
	for _, list := range [][]string{b.l.Patterns, b.l.Configs, b.l.Included, b.l.Roots, b.l.Adopted, b.l.AdoptedBare} {
		for _, p := range list {
			if !platform.Within(p, ws) {
				return false
			}
		}
	}
	for _, s := range []state{b.l.Trusted, b.l.TrustedConfigs, b.l.TrustedSteps} {
		for path, e := range s {
			if !platform.Within(path, ws) {
				return false
			}
			if e.Kind != 'f' {
				continue
			}
			var st unix.Stat_t
			if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 ||
				st.Mode&0o7777 != e.Mode || int(st.Uid) != e.UID || int(st.Gid) != e.GID || !filestamp.Matches(&st, e.Stamp) {
				return false
			}
		}
	}
	return true
}

// begin records that this process runs a command in ws guarded by
// g: a dead guard's leftovers are reconciled first; when no other
// command runs there, the disk as it is now (a person's own edits
// included) becomes the trusted state. Then prev is when the last one
// was taken, or the one this ticket joins (zero when this is the first,
// or the person's own repositories below the root are taken now): the
// repositories that appeared below the root since are the caller's to
// adopt before the command starts ([adoptAppeared]). Joining too: one
// that appeared while another command held the ticket is found by that
// command's end, after this one has started (found by an attacker: a
// second session's first command planted core.fsmonitor in a repository
// made while the first session's command ran, and its own end, which
// its watch told nothing changed, did not look).
func begin(stateDir, ws string, g guarded) (lines []string, prev time.Time, err error) {
	lines, _, prev, err = beginWatching(stateDir, ws, g, nil, nil)
	return lines, prev, err
}

// beginWatching is [begin] that also returns, when configs (git's
// configuration files of the policy) are given, the files
// [watchConfigs] watches for them, as [watched] would read them from
// the ledger just saved: taken from it, not read and decoded again.
//
// With c, a session's watch of ws, the trusted state is not taken again
// when the disk is known to hold it still: the guarded places are the
// ones it was taken for ([guarded.sum]), c saw nothing change in ws
// since the last end made the disk the trusted state ([Changes.Still];
// a person's edit between commands is a change), and every file it
// trusts is the file recorded ([book.stillTrusted]). Otherwise c's mark
// is taken again before the disk is read.
func beginWatching(stateDir, ws string, g guarded, configs []string, c *Changes) (lines, watch []string, prev time.Time, err error) {
	b, err := open(stateDir, ws, true)
	if err != nil {
		return nil, nil, time.Time{}, fmt.Errorf("cannot open the guard's ledger in %s: %w", stateDir, err)
	}
	defer b.close()
	lines, _ = b.sweep()
	if b.l.OwnWalked {
		prev = b.l.TrustedAt
	}
	sum := g.sum()
	switch {
	case len(b.l.Active) > 0:
	case b.l.GuardedSum == sum && b.l.OwnWalked && c.Still() && b.stillTrusted() && b.includesSame():
		b.l.TrustedAt = time.Now()
		noteHeld(stateDir, ws, b.l.Reach, b.l.TrustedAt, time.Time{})
	default:
		snapshots.Add(1)
		c.Mark()
		b.l.GuardedSum = sum
		// Each once: rules name some places twice (.git/hooks read-only
		// and guarded), and each is walked at every reconcile.
		b.l.Patterns = nil
		for _, p := range g.patterns {
			if !slices.Contains(b.l.Patterns, p) {
				b.l.Patterns = append(b.l.Patterns, p)
			}
		}
		b.l.Configs, b.l.Safe, b.l.Git = slices.Clone(g.configs), slices.Clone(g.safe), g.git
		b.l.RootPatterns, b.l.RootConfigs = slices.Clone(g.rootPatterns), slices.Clone(g.rootConfigs)
		// The repositories there now (a session's policy may predate
		// some): what they hold is trusted as it is.
		b.l.Roots = nil
		found, _ := roots(ws)
		for _, n := range found {
			b.addRoot(n)
		}
		b.l.Adopted = slices.DeleteFunc(b.l.Adopted, func(r string) bool {
			fi, err := os.Lstat(filepath.Join(r, ".git"))
			return err != nil || !fi.IsDir()
		})
		lines = append(lines, b.ownRoots(g)...)
		for _, r := range b.l.Adopted {
			if !slices.Contains(b.l.Roots, r) {
				b.addRoot(platform.NestedRepo{Root: r, GitDir: filepath.Join(r, ".git")})
			}
		}
		b.l.AdoptedBare = slices.DeleteFunc(b.l.AdoptedBare, func(d string) bool { return !bareGitDirAt(d) })
		b.l.Made = slices.DeleteFunc(b.l.Made, func(f string) bool {
			_, err := os.Lstat(f)
			return err != nil
		})
		for _, d := range b.l.AdoptedBare {
			b.addPlaces(platform.NestedRepo{Root: d, GitDir: d})
		}
		b.l.TrustedAt = time.Now()
		b.l.Reach = slices.Clone(g.reach)
		noteHeld(stateDir, ws, b.l.Reach, b.l.TrustedAt, time.Time{})
		b.l.Trusted = snapshot(ws, b.l.Patterns, b.l.Trusted)
		b.l.TrustedConfigs = snapshotConfigsFrom(b.l.Configs, b.l.TrustedConfigs)
		b.addIncluded(g)
		b.l.TrustedSteps = snapshotConfigsFrom(b.stepPatterns(), b.l.TrustedSteps)
	}
	b.l.Active = append(b.l.Active, self())
	if err := b.save(); err != nil {
		return lines, nil, time.Time{}, fmt.Errorf("cannot write the guard's ledger in %s: %w", stateDir, err)
	}
	if len(configs) > 0 {
		watch = b.l.watched(configs)
	}
	return lines, watch, prev, nil
}

// end reconciles after a command and drops this process's ticket;
// idle says that the ledger, saved, holds no ticket (no command of any
// guard or session runs in ws).
func end(stateDir, ws string) (lines []string, idle bool, err error) {
	lines, idle, save, err := ending(stateDir, ws, nil)
	if err != nil {
		return lines, false, err
	}
	if err := save(); err != nil {
		return lines, false, err
	}
	return lines, idle, nil
}

// ending is [end] but for the ledger's save, which it returns for the
// caller to do (it must): until then the ledger stays locked, so no
// other guard reads or writes it, while everything end puts back is
// already back. A session's manager answers its command in between.
// What readers take from the ledger without its lock ([ledger.unlocked])
// is saved before it returns, when the end changed it: a command that
// starts once this one's end is answered may read it so (a remote the
// command added, read as the person's, would get the person's
// credential). With c, the reconcile is left out when nothing it would
// look at can have changed ([ReleaseIdleSaveLater]).
func ending(stateDir, ws string, c *Changes) (lines []string, idle bool, save func() error, err error) {
	b, err := open(stateDir, ws, true)
	if err != nil {
		return nil, false, nil, err
	}
	before := b.l.unlocked()
	me := self()
	// (Alone: another ticket's command, or a dead one's leftovers, are
	// the reconcile's to put back whatever the watch saw.)
	alone := len(b.l.Active) == 1 && b.l.Active[0] == me
	b.l.Active = slices.DeleteFunc(b.l.Active, func(t ticket) bool { return t == me || !t.alive() })
	if !alone || !c.Still() || !b.stillTrusted() {
		// The disk holds the trusted state once the reconcile is done:
		// what changes from here on (what it puts back too) is the next
		// ticket's to see ([beginWatching]).
		c.Mark()
		lines = b.reconcile()
	}
	b.closeHeld()
	if !bytes.Equal(before, b.l.unlocked()) {
		defer b.close()
		if err := b.save(); err != nil {
			return lines, false, nil, err
		}
		return lines, len(b.l.Active) == 0, func() error { return nil }, nil
	}
	return lines, len(b.l.Active) == 0, sync.OnceValue(func() error {
		defer b.close()
		return b.save()
	}), nil
}

// unlocked is what the guard's readers that take no lock read of l
// ([ledgers], [keptGitDirs], [watched], [ownPlaces], [outerOwn]),
// encoded. The trusted state is not in it: [TrustedContent], read by
// cordon undo, finds at worst the one before a command's end.
func (l *ledger) unlocked() []byte {
	data, _ := json.Marshal(struct {
		AgentRemotes, Made, MadeDirs, Roots, Adopted, AdoptedBare []string
		Included, RootPatterns, RootConfigs                       []string
		Own                                                       []ownRepo
		MadeMore, OwnWalked                                       bool
	}{l.AgentRemotes, l.Made, l.MadeDirs, l.Roots, l.Adopted, l.AdoptedBare,
		l.Included, l.RootPatterns, l.RootConfigs, l.Own, l.MadeMore, l.OwnWalked})
	return data
}

// Sweep reconciles workspace ws when a guard died before it could (see
// [begin]); it is cheap when there is no ledger, or no dead ticket. It
// returns one line per path put back.
func Sweep(stateDir, ws string) []string {
	if stateDir == "" || ws == "" {
		return nil
	}
	if _, err := os.Stat(ledgerFile(stateDir, ws)); err != nil {
		return nil
	}
	b, err := open(stateDir, ws, false)
	if err != nil {
		return nil
	}
	defer b.close()
	lines, dropped := b.sweep()
	if dropped {
		b.save()
	}
	return lines
}

// AgentRemotes returns the remotes sandboxed commands added to workspace
// ws's repository, as its ledger keeps them, as the ledgers of the
// workspaces that hold ws do (a command run there may have added one to
// a repository below it, which is a workspace of its own once a shell is
// in it), and as the log of remotes added outside a workspace does (see
// elsewhere_linux.go); and madeBy, how the guard knows that the repository whose
// configuration file is config was made by a sandboxed command (a
// ledger holds it as made, see ledger.Made; or its git directory was
// born where and while commands could write, see held_linux.go), or "":
// then every remote of ws is the command's, whatever the ledger of ws
// itself says. Read, not locked.
func AgentRemotes(stateDir, ws, config string) (remotes []string, madeBy string) {
	var id string
	if config != "" {
		id = dirID(filepath.Dir(config))
	}
	for _, l := range ledgers(stateDir, ws) {
		for _, r := range l.AgentRemotes {
			if !slices.Contains(remotes, r) {
				remotes = append(remotes, r)
			}
		}
		if madeBy == "" && (slices.Contains(l.Made, config) || l.MadeMore && l.Workspace != ws || id != "" && slices.Contains(l.MadeDirs, id)) {
			madeBy = "saw it appear in " + l.Workspace
		}
	}
	if names, ok := remotesElsewhere(stateDir, id); !ok {
		madeBy = "cannot read its record of the remotes commands added outside their workspace"
	} else {
		for _, r := range names {
			if !slices.Contains(remotes, r) {
				remotes = append(remotes, r)
			}
		}
	}
	if madeBy == "" && config != "" {
		if w, ok := madeWhileHeld(stateDir, filepath.Dir(config)); ok {
			madeBy = "it was made while commands run in " + w + " could write there"
		}
	}
	return remotes, madeBy
}

// remotesView is what AgentRemotes reads of a ledger: only these
// fields, not the trusted state (every guarded file's content), are
// decoded on every command.
type remotesView struct {
	Workspace    string   `json:"workspace"`
	AgentRemotes []string `json:"agent_remotes"`
	Made         []string `json:"made"`
	MadeMore     bool     `json:"made_more"`
	MadeDirs     []string `json:"made_dirs"`
	Roots        []string `json:"roots"`
	OwnWalked    bool     `json:"own_walked"`
}

// ledgers returns what AgentRemotes needs of the ledgers of ws and of
// the directories holding it, those that have one, innermost first.
func ledgers(stateDir, ws string) []remotesView {
	if stateDir == "" || !filepath.IsAbs(ws) {
		return nil
	}
	var out []remotesView
	for d := filepath.Clean(ws); ; d = filepath.Dir(d) {
		if data, err := smallfile.ReadFile(ledgerFile(stateDir, d)); err == nil {
			var l remotesView
			if json.Unmarshal(data, &l) == nil && l.Workspace == d {
				out = append(out, l)
			}
		}
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// TrustedConfig reports how the guard trusts the git configuration file
// config of workspace ws: the SHA-256 of its content as the person last
// had it, "" for a file trusted to be absent (or that is no file); kept
// is false when the ledger of ws does not keep that file, and ledger
// whether ws has a ledger at all (no command ran in ws under the guard
// yet when it has none). Only these fields of the ledger are decoded.
// Read, not locked.
func TrustedConfig(stateDir, ws, config string) (sum string, kept, ledger bool) {
	if stateDir == "" || !filepath.IsAbs(ws) {
		return "", false, false
	}
	data, err := smallfile.ReadFile(ledgerFile(stateDir, ws))
	if err != nil {
		return "", false, false
	}
	var l struct {
		Workspace      string   `json:"workspace"`
		Configs        []string `json:"configs"`
		TrustedConfigs map[string]*struct {
			Kind byte   `json:"k"`
			Sum  string `json:"s"`
		} `json:"trusted_configs"`
	}
	if json.Unmarshal(data, &l) != nil || l.Workspace != ws {
		return "", false, false
	}
	e, ok := l.TrustedConfigs[config]
	if !ok && !slices.Contains(l.Configs, config) {
		return "", false, true
	}
	if e == nil || e.Kind != 'f' {
		return "", true, true
	}
	return e.Sum, true, true
}

// TrustedContent returns the content the guard trusts for path, one of
// workspace ws's guarded files or git configuration files, when its
// ledger keeps it: what the person had there when a command last
// started alone. The ledger is read, not locked or changed (it is
// replaced whole when written).
func TrustedContent(stateDir, ws, path string) ([]byte, bool) {
	data, err := os.ReadFile(ledgerFile(stateDir, ws))
	if err != nil {
		return nil, false
	}
	var l ledger
	if json.Unmarshal(data, &l) != nil || l.Workspace != ws {
		return nil, false
	}
	readContents(ledgerFile(stateDir, ws), &l)
	for _, st := range []state{l.TrustedConfigs, l.Trusted} {
		if e, ok := st[path]; ok && e != nil && e.Kind == 'f' && (e.Data != nil || e.Size == 0) {
			return e.Data, true
		}
	}
	return nil, false
}
