// Package gitkey tells git configuration keys that never make git run a
// program from the others, given the rules' list of safe key globs, and
// compares the entries of two versions of a configuration
// file listed by git itself (git config --list -z).
//
// A key is section[.subsection].name. git ignores the case of the
// section and of the name, not of the subsection; a safe glob names a
// subsection with "*" (branch.*.merge), so the comparison ignores case
// throughout. "*" matches any run of characters, dots included
// (subsections may hold dots and slashes: branch.feature/x.y.merge).
//
// A glob ending in "=@workspace" (core.worktree=@workspace) makes its keys
// safe only when their value is a path inside the workspace, which only
// the caller can tell ([InWorkspace]); [Safe] never matches it.
package gitkey

import (
	"github.com/cordonsh/cordon/internal/starglob"

	"bytes"
	"slices"
	"strings"
)

// Safe reports whether key matches one of the safe globs. A key that
// cannot be a key (no section, no name) is not safe.
func Safe(globs []string, key string) bool {
	key = strings.ToLower(key)
	if !strings.Contains(key, ".") || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") {
		return false
	}
	for _, g := range globs {
		if !strings.Contains(g, "=") && starglob.Match(strings.ToLower(g), key) {
			return true
		}
	}
	return false
}

// InWorkspace reports whether key is safe only when its value is a path
// inside the workspace: it matches a glob ending in "=@workspace".
func InWorkspace(globs []string, key string) bool {
	for _, g := range globs {
		if k, ok := strings.CutSuffix(g, "=@workspace"); ok && Safe([]string{k}, key) {
			return true
		}
	}
	return false
}

// An Entry is one line of a configuration file as git reads it.
type Entry struct {
	Key   string // section and name lower case, the subsection as written
	Value string
	Bare  bool // a key without "=" (a true boolean)
}

// List decodes the output of git config --list -z: entries separated by
// NUL, the key from the value by a newline (none for a bare key).
func List(out []byte) []Entry {
	var es []Entry
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, ok := bytes.Cut(rec, []byte{'\n'})
		es = append(es, Entry{Key: string(k), Value: string(v), Bare: !ok})
	}
	return es
}

// Diff returns the keys whose entries differ between before and after
// (added, removed, changed, or reordered among themselves), sorted.
func Diff(before, after []Entry) []string {
	group := func(es []Entry) map[string][]Entry {
		m := map[string][]Entry{}
		for _, e := range es {
			m[e.Key] = append(m[e.Key], e)
		}
		return m
	}
	b, a := group(before), group(after)
	var keys []string
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// Has reports whether es holds an entry for key.
func Has(es []Entry, key string) bool {
	return slices.ContainsFunc(es, func(e Entry) bool { return e.Key == key })
}
