package cmdexe

import (
	"strings"

	"github.com/cordonsh/cordon/winpath"
)

// join resolves p against dir with Config.Join, or lexically as
// [winpath.Abs] does. It returns "" when the result cannot be known.
func (w *walker) join(dir, p string) string {
	if strings.Contains(p, Unknown) || strings.Contains(dir, Unknown) {
		return ""
	}
	if w.cfg.Join != nil {
		return w.cfg.Join(dir, p)
	}
	return winpath.Abs(p, dir)
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
