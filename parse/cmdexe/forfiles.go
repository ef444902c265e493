package cmdexe

import (
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/winargs"
)

// forfilesVars are the names forfiles replaces in its /c command, per
// file.
var forfilesVars = []string{"@file", "@fname", "@ext", "@path", "@relpath", "@isdir", "@fsize", "@fdate", "@ftime"}

// forfiles follows forfiles [/p dir] [/m mask] [/s] [/c command]: the
// command (by default cmd /c echo @file) runs once per file, in the
// file's directory, with the @ names Unknown.
func (w *walker) forfiles(f *frame, rest, pos string) {
	args := winargs.Split("forfiles " + rest)[1:]
	dir, cmd := f.st.dir, "cmd /c echo @file"
	for i := 0; i < len(args); i++ {
		sw := strings.ToLower(args[i])
		hasValue := i+1 < len(args)
		switch {
		case sw == "/p" && hasValue:
			dir = w.join(f.st.dir, args[i+1])
			i++
		case (sw == "/m" || sw == "/d") && hasValue:
			i++
		case sw == "/s":
			dir = ""
		case sw == "/c" && hasValue:
			cmd = args[i+1]
			i++
		}
	}
	if w.deep(f, pos) {
		return
	}
	sub := f.carry("forfiles /c", pos)
	sub.st = f.st.clone()
	sub.st.dir = dir
	sub.forVars = nil
	w.exec(sub, atNames(hexEscapes(cmd)), nil, pos, false, false)
}

// hexEscapes replaces forfiles' 0xHH escapes by their characters.
func hexEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+3 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// atNames replaces forfiles' @ names by Unknown.
func atNames(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			if n := atName(s[i:]); n > 0 {
				b.WriteString(Unknown)
				i += n - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func atName(s string) int {
	for _, v := range forfilesVars {
		if len(s) >= len(v) && strings.EqualFold(s[:len(v)], v) {
			return len(v)
		}
	}
	return 0
}
