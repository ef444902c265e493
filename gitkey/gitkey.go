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
// A glob ending in "=@" and a condition makes its keys safe only under
// that condition, which only the caller can tell ([Condition]); [Safe]
// never matches it:
//
//   - "=@workspace" (core.worktree): every value is a path inside the
//     workspace;
//   - "=@new" (remote.*.url): the key's section and subsection had no
//     entry before (a remote the command added, not origin's address);
//   - "=@remote" (branch.*.pushRemote): every value is "." or a remote
//     that was configured before.
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

// Conditions a safe glob may carry (see the package comment).
const (
	InWorkspace = "workspace"
	New         = "new"
	KnownRemote = "remote"
)

// Condition returns the condition under which key is safe, from the first
// glob with a condition that matches it, or "" when none does.
func Condition(globs []string, key string) string {
	for _, g := range globs {
		if k, cond, ok := strings.Cut(g, "=@"); ok && Safe([]string{k}, key) {
			return cond
		}
	}
	return ""
}

// Subsection returns the section and subsection of key, lower case and
// as written ("remote.Origin" of remote.Origin.url), or "" for a key with
// no subsection.
func Subsection(key string) string {
	i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if i < 0 || i == j {
		return ""
	}
	return key[:j]
}

// Existed reports whether es holds an entry of key's subsection.
func Existed(es []Entry, key string) bool {
	sub := Subsection(key)
	return sub != "" && slices.ContainsFunc(es, func(e Entry) bool { return Subsection(e.Key) == sub })
}

// Remote reports whether es configures remote name (any remote.NAME.*
// entry).
func Remote(es []Entry, name string) bool {
	return slices.ContainsFunc(es, func(e Entry) bool { return Subsection(e.Key) == "remote."+name })
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
