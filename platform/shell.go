package platform

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cordonsh/cordon/winpath"
)

// fallbackDirs are searched for a real shell after PATH, in this order.
var fallbackDirs = []string{"/bin", "/usr/bin"}

// A NotFoundError reports that [FindShell] found no real shell.
type NotFoundError struct {
	// Name is the shell looked for ("bash").
	Name string
	// Dirs are the directories searched, in order.
	Dirs []string
	// Skipped are the candidates passed over because they are cordon
	// itself.
	Skipped []string
	// Writable are the directories passed over because sandboxed
	// commands can write them.
	Writable []string
	// Recent are the candidates passed over because they are this
	// user's and changed since the agent started (its file tools may
	// have written them).
	Recent []string
}

// Error says which shell was not found and where cordon looked.
func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("%s: real shell not found in %s", e.Name, strings.Join(e.Dirs, ", "))
	if len(e.Skipped) > 0 {
		msg += fmt.Sprintf(" (skipped %s: cordon itself)", strings.Join(e.Skipped, ", "))
	}
	if len(e.Recent) > 0 {
		msg += fmt.Sprintf(" (skipped %s: changed since the agent started)", strings.Join(e.Recent, ", "))
	}
	if e.Name == "pwsh" && runtime.GOOS == "windows" {
		msg += "; PowerShell 7 from the Microsoft Store is not used (its app execution alias cannot be started with cordon's restricted token): install it with winget install Microsoft.PowerShell"
	}
	return msg
}

// FindShell returns the path of the real shell called name: the first
// executable regular file name in an absolute directory of pathEnv (a PATH
// value), then in /bin and /usr/bin, that is not the cordon binary at self;
// when those are all cordon, in the directory where cordon agent keeps the
// real shells.
// On Windows the directories are [windowsShellDirs]': cmd.exe and Windows
// PowerShell only in the system directory, never from PATH.
// A candidate is cordon when it is the same file as self (through
// symlinks and hard links) or a byte-identical copy of it. Relative PATH
// entries are ignored, and so are directories inside writable (the
// sandbox's writable roots): a shell an agent put there is not the real
// one. So is a candidate of this user's that changed since since() (the
// agent's start: its file tools write as this user, outside cordon, and
// would replace the real shell with one that runs what it likes, unjudged).
// On Windows, name gets ".exe" when it has no extension.
//
// When nothing is found, the error is a [*NotFoundError]; when self cannot
// be read, it says so, since the search must not risk finding cordon.
func FindShell(name, pathEnv, self string, since func() time.Time, writable ...string) (string, error) {
	me, err := os.Stat(self)
	if err != nil {
		return "", fmt.Errorf("cannot tell cordon apart from the real shell: %w", err)
	}
	f := &finder{file: exeName(name), self: self, me: me, since: since}
	dirs := searchDirs(pathEnv)
	if runtime.GOOS == "windows" {
		f.file, dirs = windowsShellDirs(name, systemDir(), programFiles(), filepath.SplitList(pathEnv))
	}
	inWritable := func(dir string) bool {
		if len(writable) == 0 {
			return false
		}
		real, err := filepath.EvalSymlinks(dir)
		return err == nil && slices.ContainsFunc(writable, func(w string) bool { return Within(real, w) })
	}
	// Whether a directory is writable matters only where the shell is
	// (resolving a directory's links costs a call per component); the
	// error lists the others that are, found below.
	for _, dir := range dirs {
		p, fi, ok := f.candidate(dir)
		if !ok || inWritable(dir) {
			continue
		}
		if f.try(p, fi) {
			return p, nil
		}
	}
	var passed []string
	for _, dir := range dirs {
		if inWritable(dir) {
			passed = append(passed, dir)
		}
	}
	// Only cordon where the shells are: inside cordon agent's namespace,
	// the real ones are in its read-only tmpfs (docs/agent.md).
	if dir := agentShellsDir(); len(f.skipped) > 0 && dir != "" && !slices.ContainsFunc(writable, func(w string) bool { return Within(dir, w) }) {
		if p, fi, ok := f.candidate(dir); ok && f.try(p, fi) {
			return p, nil
		}
		dirs = append(dirs, dir)
	}
	return "", &NotFoundError{Name: name, Dirs: dirs, Skipped: f.skipped, Writable: passed, Recent: f.recent}
}

// FindProgram returns the path of the program called name that cordon
// itself runs outside the sandbox (git, to read a repository's state):
// the first executable regular file name in one of [HostDirs], through
// symbolic links not inside untrusted either, and not this user's and
// changed since since() (the agent's start: a git its file tools wrote
// into ~/.local/bin, which no sandboxed command can write, would run on
// the host, unjudged and unconfined).
func FindProgram(name, pathEnv string, untrusted []string, since func() time.Time) (string, error) {
	dirs := HostDirs(pathEnv, untrusted, since)
	for _, dir := range dirs {
		p := filepath.Join(dir, exeName(name))
		fi, err := os.Stat(p)
		if err != nil || !isExecutable(fi) {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || within(filepath.Clean(p), untrusted) || within(real, untrusted) || writtenSince(real, fi, since) {
			continue
		}
		return real, nil
	}
	return "", fmt.Errorf("no %s outside the directories sandboxed commands can write, and not changed since the agent started (looked in %s)", name, strings.Join(searchDirs(pathEnv), ", "))
}

// HostDirs returns the absolute directories of pathEnv, then /bin and
// /usr/bin, in which a program cordon runs outside the sandbox is looked
// for (by cordon, or by git for its credential helpers): none inside
// untrusted (the directories sandboxed commands can write: a git planted
// in node_modules/.bin or a venv), through symbolic links either, and
// none of this user's whose entries changed since since() (the agent's
// start: its file tools write as this user, outside cordon, and a new
// program there may be theirs).
func HostDirs(pathEnv string, untrusted []string, since func() time.Time) []string {
	var dirs []string
	for _, d := range searchDirs(pathEnv) {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || within(filepath.Clean(d), untrusted) || within(real, untrusted) {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() || writtenSince(real, fi, since) {
			continue
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// searchDirs is the absolute entries of pathEnv, then fallbackDirs,
// without repeats.
func searchDirs(pathEnv string) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, d := range append(filepath.SplitList(pathEnv), fallbackDirs...) {
		if !filepath.IsAbs(d) || seen[filepath.Clean(d)] {
			continue
		}
		seen[filepath.Clean(d)] = true
		dirs = append(dirs, d)
	}
	return dirs
}

// windowsShellDirs returns the file name of the Windows shell called name
// and the directories to look for it in, in order: the system directory
// (system) for cmd.exe, its WindowsPowerShell\v1.0 for Windows
// PowerShell, the absolute entries of path and then the install folder
// under programFiles for pwsh and Git Bash's shells. cmd.exe and Windows
// PowerShell are part of Windows, so PATH, where cordon's own shims and
// folders anyone can write come first, is not searched for them.
func windowsShellDirs(name, system, programFiles string, path []string) (string, []string) {
	var dirs []string
	seen := map[string]bool{}
	add := func(ds ...string) {
		for _, d := range ds {
			c := winpath.Canon(d)
			if d == "" || !winpath.IsAbs(d) || seen[c] {
				continue
			}
			seen[c] = true
			dirs = append(dirs, d)
		}
	}
	sub := func(dir, rel string) string {
		if dir == "" {
			return ""
		}
		return strings.TrimRight(dir, `\/`) + `\` + rel
	}
	switch name {
	case "cmd":
		add(system)
	case "powershell":
		add(sub(system, `WindowsPowerShell\v1.0`))
	case "pwsh":
		add(withoutStoreAliases(path)...)
		add(sub(programFiles, `PowerShell\7`))
	case "pwsh-preview":
		// The preview's program is pwsh.exe too, in a folder of its own.
		add(sub(programFiles, `PowerShell\7-preview`))
		return "pwsh.exe", dirs
	default:
		add(withoutStoreAliases(path)...)
		add(sub(programFiles, `Git\bin`), sub(programFiles, `Git\usr\bin`))
	}
	return name + ".exe", dirs
}

// withoutStoreAliases returns the folders of path but the ones that hold
// the Store's app execution aliases (%LOCALAPPDATA%\Microsoft\WindowsApps):
// a pwsh.exe there only forwards to the Store's package, which a
// restricted token cannot start (CreateProcessAsUser fails with error
// 1312 or 1920), and a bash.exe there is WSL's, not Git Bash.
func withoutStoreAliases(path []string) []string {
	return slices.DeleteFunc(slices.Clone(path), func(d string) bool {
		c := winpath.Canon(d)
		return c != "" && strings.EqualFold(c[strings.LastIndexByte(c, '/')+1:], "WindowsApps")
	})
}

func exeName(name string) string {
	if runtime.GOOS == "windows" && filepath.Ext(name) == "" {
		return name + ".exe"
	}
	return name
}

type finder struct {
	file    string
	self    string
	me      os.FileInfo
	since   func() time.Time
	skipped []string
	recent  []string
}

// candidate returns the file dir would hold the shell in, when it is an
// executable regular file.
func (f *finder) candidate(dir string) (string, os.FileInfo, bool) {
	p := filepath.Join(dir, f.file)
	fi, err := os.Stat(p)
	if err != nil || !isExecutable(fi) {
		return "", nil, false
	}
	return p, fi, true
}

// try reports whether p, a candidate described by fi, is a real shell,
// recording cordon when it finds it instead.
func (f *finder) try(p string, fi os.FileInfo) bool {
	if os.SameFile(fi, f.me) || f.isCopy(p, fi) {
		f.skipped = append(f.skipped, p)
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	if writtenSince(real, fi, f.since) {
		f.recent = append(f.recent, p)
		return false
	}
	return true
}

func isExecutable(fi os.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// isCopy reports whether the file at p, described by fi, has the same
// bytes as cordon. Only files of exactly cordon's size are read.
func (f *finder) isCopy(p string, fi os.FileInfo) bool {
	if fi.Size() != f.me.Size() {
		return false
	}
	same, err := sameContent(p, f.self)
	// A file that cannot be read cannot be told apart: treat it as
	// cordon, so that cordon never runs itself.
	return same || err != nil
}

func sameContent(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	return sameReaders(fa, fb)
}

func sameReaders(a, b io.Reader) (bool, error) {
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(a, bufA)
		nb, errB := io.ReadFull(b, bufB)
		if !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		if errA == io.EOF || errA == io.ErrUnexpectedEOF {
			return errB == io.EOF || errB == io.ErrUnexpectedEOF, nil
		}
		if errA != nil {
			return false, errA
		}
		if errB != nil {
			return false, errB
		}
	}
}
