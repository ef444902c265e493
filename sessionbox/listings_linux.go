package sessionbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/internal/filestamp"
	"github.com/cordonsh/cordon/platform"
)

// The listings a Landlock session's key holds (see Options.listings) are
// of the home directory and the others on the way to hidden paths: a
// few hundred names, read at every command. Each directory's listing is
// kept, as its digest, in the sessions' directory, with the directory's
// stamp (device, inode, size, modification and change times) read
// before it was listed; it is used again only while the directory's
// stamp is the same. Adding, removing or renaming an entry, or making a
// subdirectory again, changes the directory's times, and replacing the
// directory its inode. A stamp changed less than [filestamp.Margin]
// before it is read could change again within the same clock tick
// unseen: such a directory is listed every time, not kept. The file is
// read only when it is the user's own and no one else's to read or
// write; a line that is not well formed is no entry; whatever goes
// wrong, the directory is listed.

// A directory's listing holds the identity of each subdirectory, which
// a file system mounted on it (or mounted again: an sshfs or rclone
// mount after the network came back) changes while the directory's own
// stamp stays: the kept listings are of one mount table, the digest of
// /proc/self/mountinfo on the file's first line; any mount or unmount
// lists every directory again.

// listingsFile is the file of kept listings in the sessions' directory.
const listingsFile = "listings"

// maxListings bounds the directories kept.
const maxListings = 256

// maxListingsFile bounds the file read.
const maxListingsFile = 1 << 20

// A listingEntry is one directory's kept listing.
type listingEntry struct {
	stamp, digest string
}

// listingCache is the kept listings of one key's making.
type listingCache struct {
	file    string
	mounts  string // the digest of the mount table
	now     time.Time
	kept    map[string]listingEntry
	used    map[string]bool // the directories asked for this time
	changed bool
}

// openListings reads the kept listings in the sessions' directory dir.
func openListings(dir string) *listingCache {
	c := &listingCache{file: filepath.Join(dir, listingsFile), now: time.Now(), kept: map[string]listingEntry{}, used: map[string]bool{}}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return c // nothing kept is used, and nothing is kept
	}
	sum := sha256.Sum256(mountinfo)
	c.mounts = hex.EncodeToString(sum[:])
	data, ok := platform.ReadOwnFile(c.file, maxListingsFile)
	if !ok {
		return c
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	if first != "mounts "+c.mounts {
		c.changed = true // (written again with this mount table)
		return c
	}
	for line := range strings.Lines(rest) {
		// "DIGEST DEV INO SIZE MTIME CTIME PATH"
		f := strings.SplitN(strings.TrimSuffix(line, "\n"), " ", 7)
		if len(f) != 7 || len(f[0]) != 64 || !filepath.IsAbs(f[6]) {
			continue
		}
		c.kept[f[6]] = listingEntry{stamp: strings.Join(f[1:6], " "), digest: f[0]}
	}
	return c
}

// digest is the digest of directory d's listing ([writeListing]): the
// kept one while d's stamp is the one it was kept with, else listed now
// (and kept when its stamp is old enough to be trusted).
func (c *listingCache) digest(d string) string {
	c.used[d] = true
	var st unix.Stat_t
	stamp := ""
	if unix.Stat(d, &st) == nil {
		stamp = filestamp.Of(&st, c.now)
	}
	if e, ok := c.kept[d]; ok && stamp != "" && e.stamp == stamp {
		return e.digest
	}
	var b bytes.Buffer
	writeListing(&b, d)
	sum := sha256.Sum256(b.Bytes())
	digest := hex.EncodeToString(sum[:])
	if stamp != "" && c.mounts != "" && !strings.ContainsAny(d, "\n\r") {
		c.kept[d] = listingEntry{stamp: stamp, digest: digest}
		c.changed = true
	} else if _, ok := c.kept[d]; ok {
		delete(c.kept, d)
		c.changed = true
	}
	return digest
}

// save writes the kept listings when they changed; a file that cannot be
// written only costs the next command the listings.
func (c *listingCache) save() {
	if !c.changed {
		return
	}
	if len(c.kept) > maxListings {
		for d := range c.kept {
			if !c.used[d] {
				delete(c.kept, d)
			}
		}
	}
	if c.mounts == "" {
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "mounts %s\n", c.mounts)
	for d, e := range c.kept {
		fmt.Fprintf(&b, "%s %s %s\n", e.digest, e.stamp, d)
	}
	atomicfile.Write(c.file, b.Bytes())
}
