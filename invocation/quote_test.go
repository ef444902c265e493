package invocation

import (
	"strings"
	"testing"
)

// TestQuoteArgvAsJoined: QuoteArgv, built in place, is each word
// quoted then joined.
func TestQuoteArgvAsJoined(t *testing.T) {
	for _, argv := range [][]string{
		nil,
		{""},
		{"bash", "-c", "echo hi"},
		{"bash", "-c", "it's 'quoted' ''", "a'", "'"},
		{"x", "", "y z", "plain_@%+=:,./-"},
		{"go test ./p1/... 2>&1 | grep -v ok > o1.log || echo f1\n"},
	} {
		words := make([]string, len(argv))
		for i, a := range argv {
			words[i] = Quote(a)
		}
		if got, want := QuoteArgv(argv), strings.Join(words, " "); got != want {
			t.Errorf("QuoteArgv(%q) = %q, want %q", argv, got, want)
		}
	}
}
