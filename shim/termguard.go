package shim

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An interactive shell on a terminal runs cordon's hook (package
// termhook), which every line could switch off before the next one: so
// a terminal refuses, besides what a session refuses (sessionguard.go),
// the lines that would change the hook or go round it. This is the rule
// "terminal-hook" of docs/interactive.md.

// hookTamper returns why a terminal refuses text (parsed as stmts), or
// "". fd is the judge's descriptor in the shell; zsh says the shell is
// zsh (where r re-runs the history).
func hookTamper(text string, stmts []*syntax.Stmt, fd int, zsh bool) string {
	if strings.Contains(text, "__cordon") {
		return "it names cordon's hook (__cordon...), which judges each line of this terminal"
	}
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
			case *syntax.CallExpr:
				for _, a := range x.Assigns {
					if a.Name != nil && a.Name.Value == "PROMPT_COMMAND" {
						why = codeIn("PROMPT_COMMAND", []*syntax.Word{a.Value}, fd, zsh)
					}
				}
				if len(x.Args) > 0 && why == "" {
					why = hookCall(callWords(x.Args), zsh)
				}
				if len(x.Args) > 1 && why == "" {
					switch x.Args[0].Lit() {
					case "eval":
						why = codeIn("eval", x.Args[1:], fd, zsh)
					case "trap":
						why = codeIn("trap", x.Args[1:2], fd, zsh)
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
func codeIn(what string, words []*syntax.Word, fd int, zsh bool) string {
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
	return hookTamper(text, f.Stmts, fd, zsh)
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
	if !walk(w.Parts, false) {
		return "", false
	}
	return b.String(), true
}

// callWords is a command's words as the shell runs them: the literal
// words unquoted ("" for one that is not literal), without the builtin
// and command prefixes, which run the same builtin.
func callWords(args []*syntax.Word) []string {
	var words []string
	for _, a := range args {
		w, ok := literal(a)
		if !ok {
			w = ""
		}
		words = append(words, w)
	}
	for len(words) > 1 && (words[0] == "builtin" || words[0] == "command") {
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
