package tamper

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An interactive shell on a terminal runs cordon's hook (package
// termhook), which every line could switch off before the next one: so
// a terminal refuses, besides what a piped shell refuses (pipedguard.go),
// the lines that would change the hook or go round it. This is the rule
// "terminal-hook" of docs/interactive.md.

// A HookScope is what HookTamper knows of the shell: the judge's
// descriptor in it, whether it is zsh (where r re-runs the history), and
// its language, and the directory and home a file it sources is found
// from.
type HookScope struct {
	Fd        int
	Zsh       bool
	Lang      syntax.LangVariant
	Dir, Home string
	depth     int // of sourced files
}

// HookTamper returns why a terminal refuses text (parsed as stmts), or
// "".
func HookTamper(text string, stmts []*syntax.Stmt, h HookScope) string {
	if strings.Contains(text, "__cordon") {
		return "it names cordon's hook (__cordon...), which judges each line of this terminal"
	}
	fd, zsh := h.Fd, h.Zsh
	n := strconv.Itoa(fd)
	why := ""
	for _, st := range stmts {
		syntax.Walk(st, func(node syntax.Node) bool {
			switch x := node.(type) {
			case *syntax.Redirect:
				dup := x.Op == syntax.DplOut || x.Op == syntax.DplIn
				switch {
				case x.N != nil && x.N.Value == n, dup && x.Word != nil && x.Word.Lit() == n:
					why = "it redirects descriptor " + n + ", the channel of this terminal's judge"
				case x.N != nil && strings.HasPrefix(x.N.Value, "{") && dup:
					why = "it closes or copies over a descriptor named by a variable ({var}>&), which could be the channel of this terminal's judge"
				}
			case *syntax.Assign:
				// In a command's prefix and in declare, export, local,
				// readonly and typeset.
				v, _ := literal(x.Value)
				switch {
				case x.Name != nil && x.Name.Value == "PWD":
					why = pwdSet
				case zsh && x.Name != nil && (x.Name.Value == "functions" || x.Name.Value == "widgets"):
					why = "it defines a function or widget through zsh's " + x.Name.Value + " table, unseen by this check"
				case x.Name != nil && x.Name.Value == "PROMPT_COMMAND" && (x.Array != nil || x.Append):
					why = "it gives PROMPT_COMMAND code that is not one literal word, and could switch cordon's hook off unseen"
				case x.Name != nil && x.Name.Value == "PROMPT_COMMAND":
					why = codeIn("PROMPT_COMMAND", []*syntax.Word{x.Value}, h)
				case x.Value != nil && hookVar(v) != "":
					why = hookVar(v) // declare -n p=PWD
				case x.Naked && x.Value != nil && v == "":
					why = dynamicName // declare "$n=..."
				}
			case *syntax.FuncDecl:
				for _, name := range append([]*syntax.Lit{x.Name}, x.Names...) {
					if name != nil && strings.EqualFold(name.Value, "TRAPDEBUG") {
						why = "it defines zsh's DEBUG trap (TRAPDEBUG), which runs inside cordon's hook and could change what it does with the judge's answer"
					}
				}
			case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause:
				syntax.Walk(x, func(node syntax.Node) bool {
					if w, ok := node.(*syntax.Word); ok && hookVar(w.Lit()) != "" {
						why = hookVar(w.Lit())
					}
					return why == ""
				})
			case *syntax.CallExpr:
				words := callWords(x.Args)
				if len(words) > 0 && varSetters[words[0]] {
					// read, unset, let; printf only its -v, whose
					// variable must be named by a literal word.
					for i, w := range words[1:] {
						if why == "" && (words[0] != "printf" || i > 0 && words[i] == "-v") {
							why = hookVar(w)
						}
						if why == "" && words[0] == "printf" && i > 0 && words[i] == "-v" && w == "" {
							why = dynamicName
						}
					}
				}
				if len(words) > 0 && why == "" {
					why = hookCall(words, zsh)
				}
				if len(words) > 1 && why == "" {
					args := x.Args[len(x.Args)-len(words)+1:]
					switch words[0] {
					case "eval":
						why = codeIn("eval", args, h)
					case "trap":
						why = trapTamper(words[1:])
						if why == "" {
							why = codeIn("trap", args[:1], h)
						}
					case ".", "source":
						why = sourced(args[0], h)
					}
				}
			}
			return why == ""
		})
		if why != "" {
			return why
		}
	}
	return why
}

// codeIn returns why a terminal refuses the code that the words give
// to the shell to run later or at once (eval's arguments, a trap's
// action, PROMPT_COMMAND): the same as a line's, and code that is not
// literal, which no one can judge before it runs in the shell itself.
func codeIn(what string, words []*syntax.Word, h HookScope) string {
	var code []string
	for _, w := range words {
		if w == nil {
			continue
		}
		lit, ok := literal(w)
		if !ok {
			return "the code it gives " + what + " is not literal, and could switch cordon's hook off unseen"
		}
		code = append(code, lit)
	}
	text := strings.Join(code, " ")
	f, err := syntax.NewParser().Parse(strings.NewReader(text), "")
	if err != nil {
		return "the code it gives " + what + " does not parse"
	}
	return HookTamper(text, f.Stmts, h)
}

// sourced returns why a terminal refuses to source the file word names:
// the file's code runs in the shell, so it is checked like a line (as
// it is when the line is judged; a file changed after that is not seen).
func sourced(word *syntax.Word, h HookScope) string {
	name, ok := literal(word)
	if rest, tilde := strings.CutPrefix(name, "~/"); tilde && h.Home != "" {
		name = filepath.Join(h.Home, rest)
	}
	if !ok || name == "" || strings.HasPrefix(name, "~") || h.depth > 8 {
		return "cordon cannot tell which file it sources, whose code could switch cordon's hook off unseen"
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(h.Dir, name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return "" // the shell will not find it either (or looks in PATH)
	}
	f, err := syntax.NewParser(syntax.Variant(h.Lang)).Parse(bytes.NewReader(data), "")
	if err != nil {
		return "cordon cannot parse the file it sources (" + name + "), whose code could switch cordon's hook off unseen"
	}
	h.Dir, h.depth = filepath.Dir(name), h.depth+1
	if why := HookTamper(string(data), f.Stmts, h); why != "" {
		return "the file it sources (" + name + ") would run code that " + strings.TrimPrefix(why, "it ")
	}
	return ""
}

// literal is the value of a word made of literal and quoted parts only,
// with the backslashes of its unquoted parts dropped.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	var walk func(parts []syntax.WordPart, quoted bool) bool
	walk = func(parts []syntax.WordPart, quoted bool) bool {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.Lit:
				if !quoted {
					b.WriteString(unescape(x.Value))
				} else {
					b.WriteString(x.Value)
				}
			case *syntax.SglQuoted:
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				if !walk(x.Parts, true) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if w == nil || !walk(w.Parts, false) {
		return "", false
	}
	return b.String(), true
}

// pwdSet is why a terminal refuses a line that sets PWD: the hook
// reports $PWD as the directory the next lines are judged in.
const pwdSet = "it sets PWD, the directory cordon's hook reports for judging the next lines; use cd"

// dynamicName is why a terminal refuses a line that sets a variable
// whose name is not literal.
const dynamicName = "it sets a variable whose name cordon cannot read (printf -v \"$n\", declare \"$n=...\"), which could be one cordon's hook relies on (PWD, PROMPT_COMMAND)"

// varSetters are the commands that set a variable named by an argument.
var varSetters = map[string]bool{"printf": true, "read": true, "readarray": true, "mapfile": true,
	"unset": true, "getopts": true, "let": true, "export": true, "declare": true, "typeset": true,
	"local": true, "readonly": true, "vared": true}

// hookVar returns why a terminal refuses a line that sets the variable
// word names (word as it stands in printf -v, read, a nameref, let or
// an arithmetic expression), or "": PWD and PROMPT_COMMAND, which the
// hook relies on.
func hookVar(word string) string {
	name, _, _ := strings.Cut(word, "=")
	name, _, _ = strings.Cut(name, "[")
	name, _, _ = strings.Cut(name, "+")
	switch strings.TrimSpace(name) {
	case "PWD":
		return pwdSet
	case "PROMPT_COMMAND":
		return "it sets PROMPT_COMMAND other than by an assignment, and could switch cordon's hook off unseen"
	}
	return ""
}

// trapTamper returns why a terminal refuses trap with args, or "": a
// DEBUG or RETURN trap runs inside the hook's own functions once they
// inherit it (set -T, shopt -s extdebug), where its code can change
// what the hook does with the judge's answer. (The DEBUG trap the
// user's set-up files left is wrapped by the hook to skip its
// functions.) Removing one (trap - DEBUG) is fine.
func trapTamper(args []string) string {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) < 2 || args[0] == "-" || strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		return ""
	}
	for _, sig := range args[1:] {
		switch strings.TrimPrefix(strings.ToUpper(sig), "SIG") {
		case "DEBUG", "RETURN", "":
			return "it sets a DEBUG or RETURN trap, which could run inside cordon's hook and change what it does with the judge's answer"
		}
	}
	return ""
}

// callWords is a command's words as the shell runs them: the literal
// words unquoted ("" for one that is not literal), without the builtin
// and command prefixes, which run the same builtin, and zsh's noglob and
// nocorrect.
func callWords(args []*syntax.Word) []string {
	var words []string
	for _, a := range args {
		w, ok := literal(a)
		if !ok {
			w = ""
		}
		words = append(words, w)
	}
	for len(words) > 1 && (words[0] == "builtin" || words[0] == "command" || words[0] == "noglob" || words[0] == "nocorrect") {
		words = words[1:]
		for len(words) > 1 && words[0] == "-p" {
			words = words[1:]
		}
	}
	return words
}

// hookCall returns why a terminal refuses the command words (name and
// arguments), or "".
func hookCall(words []string, zsh bool) string {
	name, args := words[0], words[1:]
	only := func(allowed string) bool {
		for _, a := range args {
			if a == "" || !strings.Contains(" "+allowed+" ", " "+a+" ") {
				return false
			}
		}
		return true
	}
	switch name {
	case "bind":
		if !only("-p -P -v -V -s -S -l") {
			return "it changes the line editor's key bindings (bind), which hold cordon's hook; only the listings (bind -p, -P, -v, -V, -s, -S, -l) run here"
		}
	case "bindkey":
		if !only("-l -L -e -v") {
			return "it changes the line editor's key bindings (bindkey); only bindkey, -l, -L, -e and -v run here"
		}
	case "zle":
		if !only("-l -L") {
			return "it changes the line editor's widgets (zle), which hold cordon's hook"
		}
	case "set":
		for i, a := range args {
			if a == "+o" && (i+1 == len(args) || args[i+1] == "" || args[i+1] == "emacs" || args[i+1] == "vi") {
				return "it could turn the line editor off (set +o emacs, set +o vi), and with it cordon's hook"
			}
		}
	case "add-zle-hook-widget":
		return "it adds a zle hook widget (zle -N, unseen), which runs in the line editor after cordon's hook and could change the line it judged"
	case "fc", "r":
		if name == "r" && !zsh || name == "fc" && fcLists(args) {
			return ""
		}
		return "it runs lines from the history (" + name + "), which cordon does not see; recall the line and enter it instead"
	}
	return ""
}

// fcLists says whether fc with args only lists the history: -l given,
// and neither -s nor -e (which run lines) in any option word. A word
// such as -5 is a history number, not an option.
func fcLists(args []string) bool {
	list := false
	for _, a := range args {
		if a == "" {
			return false
		}
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' || a[1] >= '0' && a[1] <= '9' {
			continue
		}
		if strings.ContainsAny(a, "se") {
			return false
		}
		list = list || strings.Contains(a, "l")
	}
	return list
}

// unescape drops the backslashes of an unquoted literal (\b is b).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
