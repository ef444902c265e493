package starglob

import "testing"

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		want          bool
	}{
		{"a", "a", true}, {"a", "ab", false}, {"*", "", true}, {"*", "anything", true},
		{"*.npmjs.org", "registry.npmjs.org", true}, {"*.npmjs.org", "npmjs.org", false},
		{"*.npmjs.org", "evil.org.npmjs.org.x", false}, {"a*b*c", "abc", true}, {"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false}, {"ab*ba", "aba", false}, {"*_TOKEN", "GITHUB_TOKEN", true}, {"x**y", "xy", true},
	} {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
