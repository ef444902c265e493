package printable

import (
	"fmt"
	"strings"
)

// String escapes control characters, so that a file name cannot move
// the cursor or retitle the terminal of the person reading a message.
func String(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if isControl(c) {
			fmt.Fprintf(&b, "\\x%02x", c)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isControl(c rune) bool { return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) }
