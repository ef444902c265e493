package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/parse"
)

// TestOperandsShared: a command's operands are a slice of its words when
// they follow each other ([args.operand]); they must be the words at
// their indexes, in order, none but not nil when there are words and no
// operand (git checkout -b x: nil is an effect without a target), and
// an append to them, or to their indexes, must change neither the words
// nor the next command's indexes.
func TestOperandsShared(t *testing.T) {
	long := make([]string, 70)
	for i := range long {
		long[i] = "f" + strings.Repeat("x", i%3)
	}
	for _, line := range []string{
		"", "a", "a b c", "-v ok", "-r a b", "a -r b", "a -- -b c", "-n 3 a b -x c",
		"-v", "-x -y", "--", "a b -x c d -y", "--color=auto a", "-C dir a b", strings.Join(long, " "), "-x " + strings.Join(long, " "),
	} {
		ws := words(line)
		orig := slices.Clone(ws)
		a := splitArgs(ws, []string{"-n", "-C"}, nil, nil)
		if (a.operands == nil) != (len(ws) == 0) || (a.opIdx == nil) != (len(ws) == 0) {
			// Nil operands stand for an effect without targets.
			t.Errorf("%q: operands nil %v, indexes nil %v", line, a.operands == nil, a.opIdx == nil)
		}
		if len(a.operands) != len(a.opIdx) {
			t.Fatalf("%q: %d operands, %d indexes", line, len(a.operands), len(a.opIdx))
		}
		for i, op := range a.operands {
			if j := a.opIdx[i]; j < 0 || j >= len(ws) || ws[j].Text != op.Text || i > 0 && j <= a.opIdx[i-1] {
				t.Errorf("%q: operand %d %q at index %d", line, i, op.Text, j)
			}
		}
		_ = append(a.operands, parse.Word{Text: "appended"})
		_ = append(a.opIdx, 99)
		if !slices.EqualFunc(ws, orig, func(x, y parse.Word) bool { return x.Text == y.Text }) {
			t.Errorf("%q: an append to the operands changed the words: %v", line, ws)
		}
		for i, n := range counting {
			if n != i {
				t.Fatalf("%q: an append to the indexes changed counting[%d] to %d", line, i, n)
			}
		}
	}
}

func words(line string) []parse.Word {
	var ws []parse.Word
	for f := range strings.FieldsSeq(line) {
		ws = append(ws, parse.Word{Text: f})
	}
	return ws
}
