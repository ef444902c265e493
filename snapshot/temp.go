package snapshot

import (
	"os"
	"path/filepath"
	"time"
)

// tempAge is how old a file in the store's tmp directory must be before
// it counts as left by a saver that was killed mid-copy: no copy takes
// that long.
const tempAge = 6 * time.Hour

// StaleTemp returns the files in the store's tmp directory that a saver
// killed mid-copy left behind (older than tempAge; not the file clock).
func (s *Store) StaleTemp() []string {
	dir := filepath.Join(s.Dir, "tmp")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Name() == "clock" {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > tempAge {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// CleanTemp removes what StaleTemp returns.
func (s *Store) CleanTemp() {
	for _, f := range s.StaleTemp() {
		os.RemoveAll(f)
	}
}
