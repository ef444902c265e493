package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/rules"
)

// cacheVersion changes whenever what the cache holds changes shape.
const cacheVersion = "cordon-rules-cache 1"

// A cache is the outcome of loading one workspace's rule files.
type cache struct {
	dir, workspace, key string
}

// cached is what a cache file holds.
type cached struct {
	Key      string     `json:"key"`
	Files    []*applied `json:"files"`
	Warnings []string   `json:"warnings,omitempty"`
}

// cacheKey is the sha256 of everything the outcome depends on: every
// rule file's path, size, modification time and content, the trust
// records, and the cordon executable (its built-in rules).
func cacheKey(files []*found, trust *trustRecords) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", cacheVersion)
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			fmt.Fprintf(h, "exe %s %d %d\n", exe, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	for _, f := range files {
		fmt.Fprintf(h, "%s %q %d %d %s\n", f.Layer, f.Path, f.size, f.mtime.UnixNano(), f.Hash)
	}
	sum := sha256.Sum256(trust.data)
	fmt.Fprintf(h, "trust %x\n", sum)
	return hex.EncodeToString(h.Sum(nil))
}

// path is the cache file of the workspace.
func (c *cache) path() string {
	if c.dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(c.workspace))
	return filepath.Join(c.dir, "rules-cache", hex.EncodeToString(sum[:8])+".json")
}

// load returns the cached outcome when its key matches, else nil.
func (c *cache) load() *Loaded {
	p := c.path()
	if p == "" {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var cd cached
	if json.Unmarshal(data, &cd) != nil || cd.Key != c.key {
		return nil
	}
	set, err := build(cd.Files)
	if err != nil {
		return nil
	}
	r := &result{Loaded: &Loaded{Set: set, Warnings: cd.Warnings}, applied: cd.Files}
	r.sources()
	var files []*found
	for _, a := range cd.Files {
		r.Files = append(r.Files, a.File)
		files = append(files, &found{File: a.File})
	}
	r.Guard = guard(files, c.dir, p)
	return r.Loaded
}

// save writes the outcome r; a cache that cannot be written is no error.
func (c *cache) save(r *result) {
	p := c.path()
	if p == "" {
		return
	}
	// The examples were checked: the cache does not need them.
	files := make([]*applied, len(r.applied))
	for i, a := range r.applied {
		cp := *a
		rf := *a.Rules
		rf.Policies = make([]*rules.Policy, len(a.Rules.Policies))
		for k, p := range a.Rules.Policies {
			q := *p
			q.Match, q.NotMatch = nil, nil
			rf.Policies[k] = &q
		}
		cp.Rules = &rf
		files[i] = &cp
	}
	data, err := json.Marshal(&cached{Key: c.key, Files: files, Warnings: r.Warnings})
	if err != nil || os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	atomicfile.Write(p, data)
}
