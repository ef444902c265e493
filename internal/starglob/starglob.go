// Package starglob matches names against patterns whose only wildcard
// is "*": the form of the rules' host, credential-variable and git-key
// lists.
package starglob

import "strings"

// Match reports whether name matches pattern, where "*" stands for any
// run of characters (none included) and every other character for
// itself.
func Match(pattern, name string) bool { return MatchParts(strings.Split(pattern, "*"), name) }

// MatchParts is [Match] for a pattern already split at its "*"s.
func MatchParts(parts []string, name string) bool {
	if len(parts) == 1 {
		return parts[0] == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, parts[len(parts)-1])
}
