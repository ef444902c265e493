// Package sqlkind names what each statement of a piece of SQL does, so
// that rules can judge a database client's code by what it would do
// (delete every row of a table) rather than by a pattern in its text.
//
// It is not a parser: it splits statements at semicolons outside quotes
// and comments, and reads the few keywords that decide a statement's
// kind. Where it cannot tell, it errs towards the more destructive kind
// (a quote it cannot close hides nothing after it: the rest is read as
// code).
package sqlkind

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds returns the kind of each statement in code, in order:
//
//   - "drop-" and the object's type in lower case: "drop-table",
//     "drop-database", "drop-schema", "drop-view", "drop-keyspace"...;
//   - "truncate";
//   - "delete-all" and "update-all" for DELETE and UPDATE without a
//     WHERE clause (or with one that is always true, WHERE 1=1), else
//     "delete" and "update";
//   - "alter-drop-column" and "alter-drop-partition" for an ALTER that
//     drops a column or a partition (other ALTER ... DROP: "alter-drop-"
//     and what it drops, "alter-drop-constraint");
//   - "grant-all" for a GRANT of ALL privileges, TO PUBLIC or WITH GRANT
//     (or ADMIN) OPTION, and a role or user created or altered to be
//     SUPERUSER;
//   - "meta" for a client's own command (psql's \dt, sqlite's .tables);
//   - "unknown" when the statement's first word is not known before the
//     command runs;
//   - else the first keyword in lower case: "select", "insert", "create".
//
// A statement under WITH is the statement after its common table
// expressions; EXPLAIN ANALYZE, which runs its statement, is that
// statement. unknown is the rune that marks text not known before the
// command runs (it reads as part of a word).
func Kinds(code string) []string {
	var kinds []string
	for _, st := range statements(code) {
		if k := kind(st); k != "" {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// A token is a word (keyword or identifier, upper-cased), a quoted
// string or identifier (Quoted), or one punctuation character.
type token struct {
	text   string
	quoted bool
	depth  int // parentheses open around it
}

// statements splits code into statements of tokens. A client's meta
// command (a line starting with \ or .) is a statement of its own.
func statements(code string) [][]token {
	var all [][]token
	var cur []token
	depth := 0
	end := func() {
		if len(cur) > 0 {
			all = append(all, cur)
		}
		cur, depth = nil, 0
	}
	lineStart := true
	for i := 0; i < len(code); {
		r, size := utf8.DecodeRuneInString(code[i:])
		switch {
		case r == '\n':
			lineStart = true
			i++
			continue
		case unicode.IsSpace(r):
			i += size
			continue
		case lineStart && len(cur) == 0 && (r == '\\' || r == '.'):
			j := lineEnd(code, i)
			all = append(all, []token{{text: "\\META"}})
			i = j
			continue
		}
		lineStart = false
		switch {
		case strings.HasPrefix(code[i:], "--"):
			i = lineEnd(code, i)
		case strings.HasPrefix(code[i:], "/*"):
			if j := strings.Index(code[i+2:], "*/"); j >= 0 {
				i += 2 + j + 2
			} else {
				i = len(code)
			}
		case r == '\'' || r == '"' || r == '`':
			j := closeQuote(code, i, byte(r))
			cur = append(cur, token{text: code[i:j], quoted: true, depth: depth})
			i = j
		case r == '$' && dollarTag(code[i:]) != "":
			tag := dollarTag(code[i:])
			j := strings.Index(code[i+len(tag):], tag)
			if j < 0 {
				j = len(code)
			} else {
				j = i + len(tag) + j + len(tag)
			}
			cur = append(cur, token{text: code[i:j], quoted: true, depth: depth})
			i = j
		case r == ';':
			end()
			i++
		case isWord(r):
			j := i
			for j < len(code) {
				r2, s2 := utf8.DecodeRuneInString(code[j:])
				if !isWord(r2) {
					break
				}
				j += s2
			}
			cur = append(cur, token{text: strings.ToUpper(code[i:j]), depth: depth})
			i = j
		default:
			if r == ')' && depth > 0 {
				depth--
			}
			cur = append(cur, token{text: string(r), depth: depth})
			if r == '(' {
				depth++
			}
			i += size
		}
	}
	end()
	return all
}

func lineEnd(code string, i int) int {
	if j := strings.IndexByte(code[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(code)
}

// closeQuote returns the index after the quote that closes the one at
// i; a doubled quote is part of the text. An unclosed quote closes at
// the end of its line, so that what follows is still read as code.
func closeQuote(code string, i int, q byte) int {
	for j := i + 1; j < len(code); j++ {
		switch {
		case code[j] == q && j+1 < len(code) && code[j+1] == q:
			j++
		case code[j] == q:
			return j + 1
		}
	}
	return lineEnd(code, i+1)
}

// dollarTag returns PostgreSQL's dollar-quote tag ($$, $body$) at the
// start of s, or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '$':
			return s[:j+1]
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || j > 1 && '0' <= c && c <= '9':
		default:
			return ""
		}
	}
	return ""
}

func isWord(r rune) bool {
	return r == '_' || r == '.' || r == '$' || r == '\uFDD0' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// kind names one statement.
func kind(st []token) string {
	if len(st) == 0 {
		return ""
	}
	first := st[0]
	switch {
	case first.text == "\\META":
		return "meta"
	case strings.ContainsRune(first.text, '\uFDD0'):
		return "unknown"
	case first.quoted || first.text == "(":
		return kind(st[1:])
	}
	switch first.text {
	case "WITH":
		// The statement after the common table expressions: the first
		// data keyword outside parentheses.
		for i, t := range st[1:] {
			if t.depth == 0 && !t.quoted && isMain(t.text) {
				return kind(st[1+i:])
			}
		}
		return "select"
	case "EXPLAIN":
		for i, t := range st[1:] {
			if t.text == "ANALYZE" || t.text == "ANALYSE" {
				for j, u := range st[1+i+1:] {
					if u.depth == 0 && !u.quoted && isMain(u.text) {
						return kind(st[1+i+1+j:])
					}
				}
			}
		}
		return "explain"
	case "DROP":
		return "drop-" + object(st[1:])
	case "GRANT":
		if grantsAll(st[1:]) {
			return "grant-all"
		}
	case "CREATE":
		if superuser(st) {
			return "grant-all"
		}
	case "TRUNCATE":
		return "truncate"
	case "DELETE", "UPDATE":
		k := strings.ToLower(first.text)
		if !filtered(st[1:]) {
			k += "-all"
		}
		return k
	case "ALTER":
		if superuser(st) {
			return "grant-all"
		}
		for i, t := range st {
			if t.depth == 0 && t.text == "DROP" {
				what := "column"
				if i+1 < len(st) && !st[i+1].quoted {
					switch w := st[i+1].text; w {
					case "COLUMN", "IF":
					case "PARTITION", "CONSTRAINT", "INDEX", "KEY", "PRIMARY", "FOREIGN", "CHECK", "DEFAULT", "NOT":
						what = strings.ToLower(w)
					}
				}
				return "alter-drop-" + what
			}
		}
	}
	if isKeyword(first.text) {
		return strings.ToLower(first.text)
	}
	return "other"
}

// grantsAll reports whether a GRANT gives every privilege (GRANT ALL),
// gives to everyone (TO PUBLIC), or lets its grantee grant again (WITH
// GRANT OPTION, WITH ADMIN OPTION).
func grantsAll(rest []token) bool {
	if len(rest) > 0 && rest[0].text == "ALL" && !rest[0].quoted {
		return true
	}
	for i, t := range rest {
		if t.quoted || t.depth != 0 {
			continue
		}
		switch {
		case t.text == "PUBLIC" && i > 0 && rest[i-1].text == "TO":
			return true
		case t.text == "OPTION" && i > 1 && rest[i-2].text == "WITH":
			return true
		}
	}
	return false
}

// superuser reports whether a CREATE or ALTER of a role or user makes
// it a superuser.
func superuser(st []token) bool {
	if len(st) < 2 || st[1].text != "ROLE" && st[1].text != "USER" {
		return false
	}
	for _, t := range st[2:] {
		if !t.quoted && t.text == "SUPERUSER" {
			return true
		}
	}
	return false
}

// object is the type of object a DROP names, in lower case, past
// modifiers (DROP TEMPORARY TABLE is drop-temporary: nothing lasting).
func object(rest []token) string {
	for _, t := range rest {
		if t.quoted || !isKeyword(t.text) {
			break
		}
		switch t.text {
		case "MATERIALIZED", "FOREIGN", "EXTERNAL", "IF", "GLOBAL", "LOCAL":
			continue
		}
		return strings.ToLower(t.text)
	}
	return "other"
}

// isMain reports whether word starts a statement that can follow WITH
// or EXPLAIN ANALYZE.
func isMain(word string) bool {
	switch word {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "VALUES", "TABLE":
		return true
	}
	return false
}

// filtered reports whether a DELETE or UPDATE has a WHERE clause outside
// parentheses that is not always true.
func filtered(rest []token) bool {
	for i, t := range rest {
		if t.depth != 0 || t.quoted || t.text != "WHERE" {
			continue
		}
		var cond strings.Builder
		for _, u := range rest[i+1:] {
			if u.depth == 0 && !u.quoted && (u.text == "RETURNING" || u.text == "ORDER" || u.text == "LIMIT") {
				break
			}
			cond.WriteString(u.text)
		}
		switch cond.String() {
		case "", "1=1", "0=0", "TRUE", "1", "'1'='1'", "'A'='A'", "1<>0", "NOTFALSE", "1>0":
			return false
		}
		return true
	}
	return false
}

// isKeyword reports whether a word token is an SQL keyword: letters and
// underscores only.
func isKeyword(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !('A' <= r && r <= 'Z' || r == '_') {
			return false
		}
	}
	return true
}
