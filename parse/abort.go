package parse

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Aborts: under set -u, or at ${X:?}, the shell stops where X is unset,
// and the walk stops with it: nothing after runs, nothing after is
// judged. So the walk stops only where X is unset for certain. Taken for
// unset while the shell had set it (by a construct whose effect the
// judge does not follow), X left the rest of the script unjudged, and
// allowed: `set -u; printf -vX 1; echo $X; rm -rf ~`. An abort is
// certain when
//
//   - the expansion is of X itself (not ${!X}, ${!X*}, ${X[i]}: indirect
//     names and arrays, which the judge follows less well);
//   - the shell is bash or sh, started neither interactive nor as a
//     login shell (zsh, ksh and mksh set many variables of their own, and
//     an interactive or login shell more, and reads start-up files);
//   - no command gave a variable-assigning builtin a name the judge could
//     not read (declare "$name=1");
//   - X appears nowhere in the code walked but in expansions ($X, ${X...}):
//     a script that names X otherwise (printf -v X, X=1 export X, a
//     [[ X=1 ... ]], a {X}> redirection, declare -n R; R=X) may set it.
//
// Anything else is an unknown value, judged as such, and the walk goes
// on.

// certainAbort reports whether err, an expansion's error in st, stops
// the shell for certain.
func (w *walker) certainAbort(st *state, err error) bool {
	var unset expand.UnsetParameterError
	if !errors.As(err, &unset) || st.ownVars || w.anySet {
		return false
	}
	pe := unset.Node
	if pe == nil || pe.Param == nil || pe.Excl || pe.Names != 0 || pe.Index != nil || pe.NestedParam != nil || pe.Flags != nil {
		return false
	}
	return !w.namedBare(pe.Param.Value)
}

// namedBare reports whether name appears in the code walked so far
// other than in an expansion ([namedBare]); what was looked through is
// kept by name.
func (w *walker) namedBare(name string) bool {
	k := w.bare[name]
	if k.found {
		return true
	}
	for ; k.texts < len(w.texts); k.texts++ {
		if namedBare(w.texts[k.texts], name) {
			k.found = true
			break
		}
	}
	if w.bare == nil {
		w.bare = map[string]bareLook{}
	}
	w.bare[name] = k
	return k.found
}

// bareLook is how far the code walked was looked through for a name.
type bareLook struct {
	texts int
	found bool
}

// namedBare reports whether name appears in text as a word of its own
// other than in an expansion (after "$", "${", "${!" or "${#"), or in
// one that assigns it (${X=v}, ${X:=v}).
func namedBare(text, name string) bool {
	if !syntax.ValidName(name) {
		return false // $1, $@: positional and special parameters
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		i = j + len(name)
		if j > 0 && isIdentByte(text[j-1]) || i < len(text) && isIdentByte(text[i]) {
			continue // part of a longer name
		}
		before, after := text[max(0, j-3):j], text[i:]
		if strings.HasSuffix(before, "${") && (strings.HasPrefix(after, "=") || strings.HasPrefix(after, ":=")) {
			return true // ${X=v}, ${X:=v}: assigns X
		}
		if strings.HasSuffix(before, "$") || strings.HasSuffix(before, "${") ||
			strings.HasSuffix(before, "${!") || strings.HasSuffix(before, "${#") {
			continue
		}
		return true
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
