package installer

import (
	"bytes"
	"fmt"
	"strings"
)

// Diff returns a unified diff from a to b (3 lines of context), labelled
// with name; "" when they are equal. A nil side is a file that does not
// exist (/dev/null).
func Diff(name string, a, b []byte) string {
	if bytes.Equal(a, b) && (a == nil) == (b == nil) {
		return ""
	}
	from, to := name, name
	if a == nil {
		from = "/dev/null"
	}
	if b == nil {
		to = "/dev/null"
	}
	x, y := lines(a), lines(b)
	ops := editScript(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].op == ' ' {
			i++
			continue
		}
		// a hunk: from ctx lines before this change to ctx after the last
		// change that is within 2*ctx of the one before it
		start := max(i-ctx, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].op != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(end+ctx+1, len(ops))
		ax, ay := ops[start].ai, ops[start].bi
		na, nb := 0, 0
		for _, o := range ops[start:stop] {
			if o.op != '+' {
				na++
			}
			if o.op != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", span(ax, na), span(ay, nb))
		for _, o := range ops[start:stop] {
			text := o.text
			out.WriteByte(o.op)
			out.WriteString(strings.TrimSuffix(text, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(text, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return out.String()
}

func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lines splits b after each newline, keeping it.
func lines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n') + 1
		if i == 0 {
			i = len(b)
		}
		out = append(out, string(b[:i]))
		b = b[i:]
	}
	return out
}

type diffOp struct {
	op     byte // ' ', '-', '+'
	text   string
	ai, bi int // line index in a and b where the op stands
}

// editScript is the longest-common-subsequence alignment of x and y
// (settings files are small: the table is len(x)·len(y)).
func editScript(x, y []string) []diffOp {
	// common prefix and suffix first: an install changes a few lines
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		p++
	}
	s := 0
	for s < len(x)-p && s < len(y)-p && x[len(x)-1-s] == y[len(y)-1-s] {
		s++
	}
	mx, my := x[p:len(x)-s], y[p:len(y)-s]
	var ops []diffOp
	for i := 0; i < p; i++ {
		ops = append(ops, diffOp{' ', x[i], i, i})
	}
	n, m := len(mx), len(my)
	if n*m > 4_000_000 { // too big to align: all out, all in
		for i, t := range mx {
			ops = append(ops, diffOp{'-', t, p + i, p})
		}
		for j, t := range my {
			ops = append(ops, diffOp{'+', t, p + n, p + j})
		}
	} else {
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && mx[i] == my[j]:
				ops = append(ops, diffOp{' ', mx[i], p + i, p + j})
				i, j = i+1, j+1
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', mx[i], p + i, p + j})
				i++
			default:
				ops = append(ops, diffOp{'+', my[j], p + i, p + j})
				j++
			}
		}
	}
	for k := 0; k < s; k++ {
		ops = append(ops, diffOp{' ', x[len(x)-s+k], len(x) - s + k, len(y) - s + k})
	}
	return ops
}
