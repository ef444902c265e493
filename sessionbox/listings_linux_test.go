package sessionbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestListingsKept: a directory's listing is kept with its stamp and
// used again only while the stamp is the same: a new entry, a removed
// one, a subdirectory made again under its name, another mount table
// each list it again; a directory changed too recently is never kept; a
// file of kept listings that others can write is not read.
func TestListingsKept(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	os.Chmod(dir, 0o700)
	os.MkdirAll(filepath.Join(home, ".nvm"), 0o755)
	os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o644)
	later := time.Now().Add(time.Minute) // every stamp old enough by then
	open := func(now time.Time) *listingCache {
		c := openListings(dir)
		c.now = now
		return c
	}
	c := open(later)
	first := c.digest(home)
	c.save()
	// Kept: a forged digest in the file is what comes back while the
	// directory is unchanged (so it was not listed again).
	data, err := os.ReadFile(filepath.Join(dir, listingsFile))
	if err != nil || !strings.Contains(string(data), "\n"+first+" ") {
		t.Fatalf("the listing was not kept: %q, %v", data, err)
	}
	forged := strings.Repeat("f", 64)
	os.WriteFile(filepath.Join(dir, listingsFile), []byte(strings.Replace(string(data), first, forged, 1)), 0o600)
	if got := open(later).digest(home); got != forged {
		t.Fatalf("an unchanged directory was listed again (%s), not taken as kept", got)
	}
	// Kept under another mount table (a file system mounted on a
	// subdirectory since): listed again.
	other := strings.Replace(string(data), first, forged, 1)
	other = "mounts " + strings.Repeat("0", 64) + other[strings.IndexByte(other, '\n'):]
	os.WriteFile(filepath.Join(dir, listingsFile), []byte(other), 0o600)
	if got := open(later).digest(home); got != first {
		t.Fatalf("a listing kept under another mount table was used: %s", got)
	}
	os.WriteFile(filepath.Join(dir, listingsFile), []byte(strings.Replace(string(data), first, forged, 1)), 0o600)
	changes := []struct {
		what   string
		change func()
	}{
		{"a new entry", func() { os.WriteFile(filepath.Join(home, ".profile"), nil, 0o644) }},
		{"an entry removed", func() { os.Remove(filepath.Join(home, ".bashrc")) }},
		{"an entry renamed", func() { os.Rename(filepath.Join(home, ".profile"), filepath.Join(home, ".zshrc")) }},
		{"a subdirectory made again", func() {
			os.RemoveAll(filepath.Join(home, ".nvm"))
			os.MkdirAll(filepath.Join(home, ".nvm"), 0o755)
		}},
	}
	for _, ch := range changes {
		c := open(later)
		c.kept[home] = listingEntry{stamp: c.kept[home].stamp, digest: forged}
		time.Sleep(20 * time.Millisecond) // past a tick of the file clock
		ch.change()
		if got := c.digest(home); got == forged {
			t.Errorf("%s: the kept listing was used", ch.what)
		}
		c.save()
	}
	// Changed just now: listed, never kept.
	c = open(time.Now())
	c.kept = map[string]listingEntry{}
	os.WriteFile(filepath.Join(home, ".new"), nil, 0o644)
	c.digest(home)
	if _, ok := c.kept[home]; ok {
		t.Error("a directory changed just now was kept")
	}
	// A file others may write is no file of kept listings.
	c = open(later)
	c.digest(home)
	c.save()
	os.Chmod(filepath.Join(dir, listingsFile), 0o666)
	if c := open(later); len(c.kept) != 0 {
		t.Errorf("a file of kept listings writable by others was read: %v", c.kept)
	}
}
