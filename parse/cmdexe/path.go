package cmdexe

import "strings"

// join resolves p against dir with Config.Join, or lexically: an
// absolute p stands alone, \x is on dir's drive, C:x is relative to dir
// only when dir is on C:. It returns "" when the result cannot be known.
func (w *walker) join(dir, p string) string {
	if strings.Contains(p, Unknown) || strings.Contains(dir, Unknown) {
		return ""
	}
	if w.cfg.Join != nil {
		return w.cfg.Join(dir, p)
	}
	return lexicalJoin(dir, p)
}

func lexicalJoin(dir, p string) string {
	p = strings.ReplaceAll(p, "/", `\`)
	switch {
	case isAbs(p):
		return clean(p)
	case strings.HasPrefix(p, `\`):
		if d := drive(dir); d != "" {
			return clean(d + p)
		}
		return ""
	case len(p) >= 2 && p[1] == ':':
		if !sameDrive(dir, p) {
			return ""
		}
		p = p[2:]
	}
	if !isAbs(dir) {
		return ""
	}
	return clean(strings.TrimSuffix(dir, `\`) + `\` + p)
}

// isAbs reports whether p is C:\x or \\server\share.
func isAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return true
	}
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// drive returns the C: of a path, or "".
func drive(p string) string {
	if len(p) >= 2 && isLetter(p[0]) && p[1] == ':' {
		return p[:2]
	}
	return ""
}

func sameDrive(a, b string) bool {
	return drive(a) != "" && strings.EqualFold(drive(a), drive(b))
}

// clean removes . and .. and doubled separators from an absolute path;
// .. stops at the root.
func clean(p string) string {
	root := p[:2] // C: or \\
	rest := p[2:]
	var out []string
	for _, part := range strings.Split(rest, `\`) {
		switch part {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, part)
		}
	}
	if root == `\\` {
		return root + strings.Join(out, `\`)
	}
	return root + `\` + strings.Join(out, `\`)
}
