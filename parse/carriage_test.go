package parse

import "testing"

// TestCarriageReturn: a carriage return inside single quotes is read as
// it is by bash and by the parser alike (bash-completion's git prompt,
// IFS='CR LF', is in every shell snapshot that holds its functions); one
// anywhere else is asked about, the script judged anyway.
func TestCarriageReturn(t *testing.T) {
	for _, c := range []struct {
		script string
		asked  bool
	}{
		{"__git_eread () \n{ \n    test -r \"$1\" && IFS='\r\n' read \"$2\" < \"$1\"\n}\necho hi\n", false},
		{"echo 'a\rb' $'c\rd'\n", false},
		{"echo hi\r\nrm -rf x\r\n", true},
		{"echo a \\\r\nrm -rf /x\n", true},                  // bash: "echo a CR", then rm
		{"echo \"a\rb\"\n", true},                           // double quotes: not taken
		{"echo 'a' \r 'b'\n", true},                         // between two quoted words
		{"f() { echo 'x\ry'; }\ng() { echo x\r; }\n", true}, // an uncalled function's too
		{"# a comment\r\necho hi\n", true},
	} {
		res := Parse(c.script, &Config{})
		asked := false
		for _, p := range res.Problems {
			if p.Kind == ProblemSyntax {
				asked = true
			}
		}
		if asked != c.asked {
			t.Errorf("%q: asked %v, want %v (%v)", c.script, asked, c.asked, res.Problems)
		}
	}
}
