package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/platform"
	"golang.org/x/sys/unix"
)

// A file git's configuration includes (include.path, includeIf.*.path)
// is git configuration as much as the file that names it: a project that
// shares its settings with include.path = ../.gitconfig has them in a
// workspace file. When the trusted configuration (the workspace's
// configuration files, the person's global and system ones) includes,
// at any depth and under any condition, a file where sandboxed commands
// write, that file is guarded by its keys as .git/config is, present or
// not. The includes are read when the trusted state is taken.

// maxIncludeDepth is git's own limit on nested includes.
const maxIncludeDepth = gitkey.MaxIncludeDepth

// maxIncluded bounds the files followed for one trusted state.
const maxIncluded = 64

// addIncluded adds to the ledger's configuration files those that the
// trusted ones and the person's own (g.own) include and that lie in
// g.writable, with their trusted state.
func (b *book) addIncluded(g guarded) {
	b.l.Included = nil
	// The files read outside the trusted state (the person's own, and
	// every file included), for [book.includesSame].
	var read []string
	defer func() {
		slices.Sort(read)
		b.l.IncludesRead = slices.Compact(read)
		b.l.IncludesSum = includesSum(b.l.IncludesRead)
	}()
	if b.l.Git == "" {
		return
	}
	k := &keyGuard{git: b.l.Git}
	type file struct {
		path  string
		data  []byte
		depth int
	}
	var queue []file
	for path, e := range b.l.TrustedConfigs {
		if e != nil && e.Kind == 'f' && e.Data != nil {
			queue = append(queue, file{path, e.Data, 0})
		}
	}
	for _, path := range g.own {
		read = append(read, path)
		if data := readConfig(path); data != nil {
			queue = append(queue, file{path, data, 0})
		}
	}
	slices.SortFunc(queue, func(a, b file) int { return strings.Compare(a.path, b.path) })
	seen := map[string]bool{}
	for len(queue) > 0 && len(seen) < maxIncluded {
		f := queue[0]
		queue = queue[1:]
		if f.depth >= maxIncludeDepth || !bytes.Contains(bytes.ToLower(f.data), []byte("include")) {
			continue
		}
		es, err := k.list(f.data)
		if err != nil {
			continue
		}
		for _, named := range gitkey.Included(es, f.path, g.home, b.l.Git) {
			for _, p := range includedPaths(named) {
				if seen[p] {
					continue
				}
				seen[p] = true
				read = append(read, p)
				queue = append(queue, file{p, readConfig(p), f.depth + 1})
				if slices.ContainsFunc(g.writable, func(w string) bool { return platform.Within(p, w) }) && !slices.Contains(b.l.Included, p) {
					b.l.Included = append(b.l.Included, p)
				}
			}
		}
	}
	var patterns []string
	for _, p := range b.l.Included {
		if pat := literal(p); !slices.Contains(b.l.Configs, pat) {
			patterns = append(patterns, pat)
		}
	}
	b.l.Configs = append(b.l.Configs, patterns...)
	for p, e := range snapshotConfigs(patterns) {
		b.l.TrustedConfigs[p] = e
	}
}

// includesSum is a digest of what the files at paths hold (or that
// they hold no configuration): the files [book.addIncluded] read besides
// the trusted state.
func includesSum(paths []string) string {
	h := sha256.New()
	for _, p := range paths {
		data := readConfig(p)
		fmt.Fprintf(h, "%q %v %d\n", p, data != nil, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// includesSame reports whether the files the includes were read from
// when the trusted state was taken, outside it (the person's global
// configuration, the files it includes: no watch of the workspace sees
// them change), hold what they held: then the files included are the
// ones found then.
func (b *book) includesSame() bool {
	return b.l.IncludesSum != "" && includesSum(b.l.IncludesRead) == b.l.IncludesSum
}

// includedPaths are the files git reads for an include of path: path
// with its directories' links resolved (the guard's walk follows none),
// and, when path itself is a link, where it leads.
func includedPaths(path string) []string {
	named := filepath.Join(realPrefix(filepath.Dir(path)), filepath.Base(path))
	out := []string{named}
	if real := realPrefix(path); real != named {
		out = append(out, real)
	}
	return out
}

// literal is a pattern of the guard's walk that matches path alone: the
// glob characters of its names escaped.
func literal(path string) string {
	names := strings.Split(path, "/")
	for i, n := range names {
		if strings.ContainsAny(n, `*?[\`) {
			var b strings.Builder
			for _, r := range n {
				if strings.ContainsRune(`*?[\`, r) {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			names[i] = b.String()
		}
	}
	return strings.Join(names, "/")
}

// readConfig reads the configuration file at path, links followed, or
// returns nil when it is not a regular file or is larger than git's
// configuration files are.
func readConfig(path string) []byte {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil || len(data) > maxFile {
		return nil
	}
	return data
}

// ownConfigs are the person's global and system git configuration files,
// as a git run with environment env (the command's) and the account's
// home reads them ([platform.GitConfigFiles]).
func ownConfigs(env []string) []string {
	return platform.GitConfigFiles(func(k string) string { return platform.Getenv(env, k) })
}

// watched are the configuration files a command's watch looks at
// ([watchConfigs]): patterns, the files the trusted configuration of
// workspace ws includes, and those of the person's own repositories
// below the root ([book.ownRoots]), as its ledger keeps them (read, not
// locked).
func watched(stateDir, ws string, patterns []string) []string {
	data, err := os.ReadFile(ledgerFile(stateDir, ws))
	if err != nil {
		return patterns
	}
	var l ledger
	if json.Unmarshal(data, &l) != nil || l.Workspace != ws {
		return patterns
	}
	return l.watched(patterns)
}

// watched is [watched] of ledger l.
func (l *ledger) watched(patterns []string) []string {
	out := slices.Concat(patterns, l.Included)
	for _, o := range l.Own {
		out = append(out, platform.NestedRepo{Root: o.Root, GitDir: filepath.Join(o.Root, ".git")}.Places(gitPlaces(l.RootConfigs))...)
	}
	return out
}

// ownPlaces are the places and configuration files of the
// person's own repositories below workspace ws's root that its ledger
// keeps ([book.ownRoots]), read, not locked: watched between commands
// as the workspace's own are ([watchTop]).
func ownPlaces(stateDir, ws string) []string {
	data, err := os.ReadFile(ledgerFile(stateDir, ws))
	if err != nil {
		return nil
	}
	var l struct {
		Workspace    string    `json:"workspace"`
		RootPatterns []string  `json:"root_patterns"`
		RootConfigs  []string  `json:"root_configs"`
		Own          []ownRepo `json:"own"`
	}
	if json.Unmarshal(data, &l) != nil || l.Workspace != ws {
		return nil
	}
	var out []string
	for _, o := range l.Own {
		n := platform.NestedRepo{Root: o.Root, GitDir: filepath.Join(o.Root, ".git")}
		out = append(append(out, n.Guarded(l.RootPatterns)...), n.Places(gitPlaces(l.RootConfigs))...)
	}
	return out
}
