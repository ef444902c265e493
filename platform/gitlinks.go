package platform

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordonsh/cordon/internal/atomicfile"
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
	defer gitindex.CloseAll(shared)
	key := gitindex.Key(index, f, shared, now)
	file := filepath.Join(keep, gitlinksDir, keptName(index))
	if key != "" {
		if data, ok := ReadOwnFile(file, maxGitlinksFile); ok {
			if first, rest, ok := strings.Cut(string(data), "\n"); ok && first == keptVersion+key {
				if rest == "" {
					return nil
				}
				return strings.Split(rest, "\x00")
			}
		}
	}
	// Kept only when the files' stamps vouch for what was read (see
	// gitindex.From: nothing held them open for writing, whose mapping
	// writes without moving a stamp, and the same stamps after the read).
	links, vouched, err := gitindex.From(index, f, shared, now)
	if err != nil || vouched == "" || vouched != key {
		return links
	}
	data := keptVersion + key + "\n" + strings.Join(links, "\x00")
	if len(data) <= maxGitlinksFile && os.MkdirAll(filepath.Dir(file), 0o700) == nil {
		atomicfile.Write(file, []byte(data)) // (a cache: one cut short is not the key's)
	}
	return links
}

// keptVersion heads a kept answer's first line, before the stamps.
const keptVersion = "gitlinks 3 "

// keptName is the kept file's name for the index file at index.
func keptName(index string) string {
	sum := sha256.Sum256([]byte(index))
	return hex.EncodeToString(sum[:12])
}
