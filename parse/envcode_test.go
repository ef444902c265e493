package parse

import (
	"slices"
	"testing"
)

// TestConfigParameters: GIT_CONFIG_PARAMETERS is read as git reads it
// (sq_dequote): both of its forms, quotes and "!" escaped, and anything
// else refused (then judged as unknown configuration).
func TestConfigParameters(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`'remote.origin.mirror'`, []string{"remote.origin.mirror"}, true},
		{`'remote.origin.push'='+a:b'`, []string{"remote.origin.push=+a:b"}, true},
		{`'remote.origin.push=+a:b'`, []string{"remote.origin.push=+a:b"}, true},
		{` 'a.b'='1'  'c.d'`, []string{"a.b=1", "c.d"}, true},
		{`'alias.x'='!echo '\''hi'\'' '\!''`, []string{"alias.x=!echo 'hi' !"}, true},
		{`'a.b'` + "\n" + `'c.d'='e'`, []string{"a.b", "c.d=e"}, true},
		{`junk`, nil, false},
		{`'a.b`, nil, false},
		{`'a.b'x`, nil, false},
		{`'a.b'=x`, nil, false},
	}
	for _, tt := range tests {
		got, ok := configParameters(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("%q: got %q %v, want %q %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
