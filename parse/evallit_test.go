package parse

import "testing"

func TestLiteralWord(t *testing.T) {
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{`'deploy --env prod'`, "deploy --env prod", true},
		{`'echo '"'"'a b'"'"''`, "echo 'a b'", true},
		{`'echo '\''x'\'`, "echo 'x'", true},
		{`"rm \"\$x\" \\"`, `rm "$x" \`, true},
		{`plain`, "plain", true},
		{`"$cmd"`, "", false},
		{`'a' 'b'`, "", false},
		{`$'a\nb'`, "", false},
		{`'a'$(b)`, "", false},
		{`'a' # note`, "", false},
		{`'a'; b`, "", false},
		{`'a' > f`, "", false},
		{`'a'` + "\n" + `b`, "", false},
		{` 'a'`, "", false},
		{`'unclosed`, "", false},
		{``, "", false},
	} {
		got, ok := LiteralWord(c.word, Bash)
		if got != c.want || ok != c.ok {
			t.Errorf("LiteralWord(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
}

// BenchmarkLiteralWord is what the shim adds to an ask in an agent's
// wrapper: the quoted command parsed once more.
func BenchmarkLiteralWord(b *testing.B) {
	const word = `'deploy --env prod && echo '"'"'done'"'"''`
	for b.Loop() {
		if _, ok := LiteralWord(word, Bash); !ok {
			b.Fatal("not a literal word")
		}
	}
}
