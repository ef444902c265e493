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
// file's directory. @path and @file are the mask joined to the directory
// ("C:\x\*.log"), which the rules judge as what it matches; with /s the
// files lie below it, in directories whose names are not known. The
// other @ names are Unknown.
func (w *walker) forfiles(f *frame, rest, pos string) {
	args := winargs.Split("forfiles " + rest)[1:]
	dir, mask, cmd := f.st.dir, "*", "cmd /c echo @file"
	sub := false
	for i := 0; i < len(args); i++ {
		sw := strings.ToLower(args[i])
		hasValue := i+1 < len(args)
		switch {
		case sw == "/p" && hasValue:
			dir = w.join(f.st.dir, args[i+1])
			i++
		case sw == "/m" && hasValue:
			mask = args[i+1]
			i++
		case sw == "/d" && hasValue:
			i++
		case sw == "/s":
			sub = true
		case sw == "/c" && hasValue:
			cmd = args[i+1]
			i++
		}
	}
	if w.deep(f, pos) {
		return
	}
	names := map[string]string{}
	if dir != "" && !strings.ContainsAny(mask, `\/`+Unknown) {
		p := strings.TrimRight(dir, `\`) + `\` + mask
		names["@path"], names["@file"], names["@relpath"] = `"`+p+`"`, `"`+p+`"`, `"`+p+`"`
	}
	s := f.carry("forfiles /c", pos)
	s.st = f.st.clone()
	s.st.dir = dir
	if sub {
		s.st.dir = ""
	}
	s.forVars = nil
	w.exec(s, atNames(hexEscapes(cmd), names), nil, pos, false, false)
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

// atNames replaces forfiles' @ names by their values in known, or
// Unknown.
func atNames(s string, known map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			if n := atName(s[i:]); n > 0 {
				v, ok := known[strings.ToLower(s[i:i+n])]
				if !ok {
					v = Unknown
				}
				b.WriteString(v)
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
