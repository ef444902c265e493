package platform

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/internal/filestamp"
	"github.com/cordonsh/cordon/internal/gitindex"
)

// The gitlinks of a workspace's index ([NestedRepos]) are asked for at
// every command, and an index holds an entry per file of the repository
// (100,000 entries take 5 to 7 ms to read on a 2-core VM), though it
// rarely gets a new gitlink. A process that may keep the answer (the
// shim resolving the policy, with the policy cache's directory, which no
// command can write) keeps it there by the stamps of the index and of
// the shared indexes it is split from (device, inode, size, modification
// and change times, which no unprivileged process can set back; git
// replaces the index whole when it writes it); a later process uses it
// while every stamp is the same. It is kept only when nothing held those
// files open for writing as they were read: a writable mapping made
// before changes their content without moving their stamps
// ([filestamp.Unwritten]). An index changed less than
// [filestamp.Margin] before could change again within a clock tick
// unseen: it is read every time, not kept. The kept file is read only
// when it is the user's own and no one else's to read or write; one
// whose first line is not the stamps read now is not used.

// gitlinksDir is the directory of kept gitlinks in the policy cache's.
const gitlinksDir = "gitlinks"

// maxGitlinksFile bounds a kept answer (one larger is not kept).
const maxGitlinksFile = 16 << 20

// gitlinks returns the gitlinks of the index file at index
// ([gitindex.Gitlinks]), kept in directory keep ("" keeps nothing).
func gitlinks(index, keep string) []string { return gitlinksAt(index, keep, time.Now()) }

// gitlinksAt is gitlinks with the stamps taken at now.
func gitlinksAt(index, keep string, now time.Time) []string {
	if keep == "" || !canStamp {
		links, _ := gitindex.Gitlinks(index)
		return links
	}
	// Each file opened once: what is read is what is stamped, whatever
	// a command does to the names meanwhile (an index that is a link,
	// pointed elsewhere while it is read and back).
	f, err := gitindex.Open(index)
	if err != nil {
		return nil
	}
	defer f.Close()
	shared := gitindex.OpenShared(filepath.Dir(index))
	defer func() {
		for _, s := range shared {
			s.Close()
		}
	}()
	stamps := indexStamps(index, f, shared, now)
	file := filepath.Join(keep, gitlinksDir, keptName(index))
	if stamps != "" {
		if data, ok := ReadOwnFile(file, maxGitlinksFile); ok {
			if first, rest, ok := strings.Cut(string(data), "\n"); ok && first == stamps {
				if rest == "" {
					return nil
				}
				return strings.Split(rest, "\x00")
			}
		}
	}
	// Kept only when nothing holds the files open for writing (a mapping
	// made earlier writes without moving their stamps, see
	// filestamp.Unwritten), and the index read is the one stamped: the
	// same stamps after the read as before it.
	vouched := stamps != "" && filestamp.Unwritten(f) &&
		!slices.ContainsFunc(shared, func(s *os.File) bool { return !filestamp.Unwritten(s) })
	links, err := gitindex.From(index, f, shared)
	if err != nil || !vouched || indexStamps(index, f, shared, now) != stamps {
		return links
	}
	data := stamps + "\n" + strings.Join(links, "\x00")
	if len(data) <= maxGitlinksFile && os.MkdirAll(filepath.Dir(file), 0o700) == nil {
		atomicfile.WriteMode(file, []byte(data), 0o600)
	}
	return links
}

// indexStamps is one line naming the index file at index (open as f)
// and the shared indexes beside it (open), each by its stamp at now; ""
// when one of them has none (changed too recently).
func indexStamps(index string, f *os.File, shared []*os.File, now time.Time) string {
	var b strings.Builder
	b.WriteString("gitlinks 2 " + strconv.Quote(index))
	for _, g := range append([]*os.File{f}, shared...) {
		s := filestamp.OfFile(g, now)
		if s == "" {
			return ""
		}
		b.WriteString(" " + strconv.Quote(filepath.Base(g.Name())) + " " + s)
	}
	return b.String()
}

// keptName is the kept file's name for the index file at index.
func keptName(index string) string {
	sum := sha256.Sum256([]byte(index))
	return hex.EncodeToString(sum[:12])
}
