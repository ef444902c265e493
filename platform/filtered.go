package platform

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/internal/starglob"
)

// A credential file that also holds the person's settings (~/.npmrc:
// save-exact, a registry, and a token) is shown in the sandbox with its
// secret lines left out rather than hidden whole: a tool then keeps the
// person's settings, and never sees the secret. The policy names each
// such file with the globs of its secret keys ([Policy.Filtered]); the
// backends lay the filtered copy over the file when the sandbox starts.

// maxFiltered is the largest file shown filtered; a larger one is hidden
// whole (it also bounds what a start reads and hands to bwrap's pipe).
const maxFiltered = 32 << 10

// FilteredPaths are the paths of p's filtered files.
func (p *Policy) FilteredPaths() []string {
	var out []string
	for _, f := range p.Filtered {
		path, _, _ := strings.Cut(f, " ")
		out = append(out, path)
	}
	return out
}

// filterEntries resolves the spec's "FILE KEY..." entries: those whose
// FILE is among the hidden paths (an existing file, not a directory)
// leave them for p.Filtered, as "PATH KEY..." with PATH resolved.
func (p *Policy) filterEntries(r *resolver, entries []string) {
	for _, e := range entries {
		file, keys, ok := strings.Cut(e, " ")
		if !ok {
			continue
		}
		for _, path := range r.existing([]string{file}, nil) {
			if !slices.Contains(p.Hidden, path) || slices.Contains(p.FilteredPaths(), path) || !isFile(path) {
				continue
			}
			p.Hidden = slices.DeleteFunc(p.Hidden, func(h string) bool { return h == path })
			p.Filtered = append(p.Filtered, path+" "+keys)
		}
	}
}

// filteredFile returns the content the sandbox shows for the filtered
// entry f ("PATH KEY..."): the file with every secret line emptied (line
// numbers kept), but those swap, when set, returns for the file's lines
// (without their line ends) rewritten, by index. ok is false when the
// file cannot be read or is larger than maxFiltered: then it is hidden
// whole.
func filteredFile(f string, swap func(lines []string) map[int]string) (path string, data []byte, ok bool) {
	path, rest, _ := strings.Cut(f, " ")
	keys := strings.Fields(rest)
	file, err := os.Open(path)
	if err != nil {
		return path, nil, false
	}
	defer file.Close()
	raw, err := io.ReadAll(io.LimitReader(file, maxFiltered+1))
	if err != nil || len(raw) > maxFiltered {
		return path, nil, false
	}
	lines := bytes.SplitAfter(raw, []byte("\n"))
	var kept map[int]string
	if swap != nil {
		texts := make([]string, len(lines))
		for i, line := range lines {
			texts[i] = strings.TrimRight(string(line), "\r\n")
		}
		kept = swap(texts)
	}
	// A secret's value may go on below its line: a properties line that
	// ends in a backslash goes on with the next; an indented line below
	// a key (a YAML value or block scalar, an INI value on several
	// lines) belongs to it.
	secret, cont, indent := false, false, -1
	for i, line := range lines {
		text := strings.TrimRight(string(line), "\r\n")
		ind := len(text) - len(strings.TrimLeft(text, " \t"))
		switch {
		case cont:
			secret = true
		case indent >= 0 && strings.TrimSpace(text) != "" && ind > indent:
			secret = true
		default:
			secret, indent = secretLine(text, keys), -1
			if secret {
				indent = ind
			}
		}
		cont = secret && strings.HasSuffix(text, "\\")
		if s, ok := kept[i]; ok {
			lines[i] = append([]byte(s), line[len(strings.TrimRight(string(line), "\r\n")):]...)
		} else if secret {
			lines[i] = []byte("\n")
			if !bytes.HasSuffix(line, []byte("\n")) {
				lines[i] = nil
			}
		}
	}
	return path, bytes.Join(lines, nil), true
}

// passwordURL matches a URL that carries a password.
var passwordURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@`)
})

// secretLine reports whether line of a filtered file is a secret: a
// URL with a password in it, or a key that matches one of the patterns
// keys ("*" their only wildcard), case ignored. The key is what comes
// before the line's separator, which depends on the file's syntax: "="
// (npm, INI), ":" (YAML, INI too: "password: a=b"), or blanks (Java
// properties: "ossrhPassword value"); each is tried. A line with no
// separator is a bare value, which may be a token: a secret too. A
// section or a comment is kept, unless it holds such a URL.
func secretLine(line string, keys []string) bool {
	if passwordURL().MatchString(line) {
		return true
	}
	t := strings.TrimSpace(line)
	if t == "" || t[0] == '#' || t[0] == ';' || t[0] == '[' || t[0] == '!' {
		return false
	}
	if t[0] == '<' {
		// XML: the key is a key="..." attribute's value (NuGet's <add
		// key="ClearTextPassword" value="..."/>), else the element's
		// name (<password>...</password>); a comment or a closing tag
		// has none.
		k := xmlKey(t)
		return k != "" && slices.ContainsFunc(keys, func(p string) bool { return starglob.Match(strings.ToLower(p), k) })
	}
	t = strings.TrimPrefix(t, "- ")
	if !strings.ContainsAny(t, "=: \t") {
		return true
	}
	for _, sep := range []string{"=", ":", " ", "\t"} {
		key, _, ok := strings.Cut(t, sep)
		if !ok {
			continue
		}
		key = strings.ToLower(strings.Trim(strings.TrimSpace(key), `"'`))
		if slices.ContainsFunc(keys, func(k string) bool { return starglob.Match(strings.ToLower(k), key) }) {
			return true
		}
	}
	return false
}

// xmlKey is the key of an XML line (see secretLine), lowercase, or "".
func xmlKey(t string) string {
	if strings.HasPrefix(t, "<!") || strings.HasPrefix(t, "</") || strings.HasPrefix(t, "<?") {
		return ""
	}
	if _, rest, ok := strings.Cut(t, ` key="`); ok {
		k, _, _ := strings.Cut(rest, `"`)
		return strings.ToLower(k)
	}
	name := strings.TrimPrefix(t, "<")
	if i := strings.IndexAny(name, " \t/>"); i >= 0 {
		name = name[:i]
	}
	return strings.ToLower(name)
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
