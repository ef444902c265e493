package tamper

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestHistoryBang(t *testing.T) {
	for text, want := range map[string]bool{
		"!!": true, "echo !$": true, "!-2": true, "!rm": true, `echo "a!b"`: true, "(( !x ))": true,
		"if ! make; then :; fi": false, "[[ a != b ]]": false, "echo 'a!b'": false, `echo \!x`: false,
		`echo "hi!"`: false, "echo hi!": false, "x=!": false,
	} {
		if got := HistoryBang(text); got != want {
			t.Errorf("HistoryBang(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestHijack(t *testing.T) {
	for src, refused := range map[string]bool{
		"exit() { :; }": true, "function printf { :; }": true, "command() { :; }": true,
		"function /bin/ls { :; }": true, "alias exit=true": true, "enable -n echo": true,
		"set -H": true, "set -o histexpand": true, "builtin enable -n local": true, "'enable' -n local": true,
		"command enable -n local": true, "builtin set -H": true, `set -o "histexpand"`: true, "builtin alias local=x": true, "if true; then printf() { :; }; fi": true,
		"build() { make; }": false, "alias ll='ls -l'": false, `alias "$x"=y`: true, "set -e": false, "set +H": false,
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		if got := Hijack(f.Stmts) != ""; got != refused {
			t.Errorf("Hijack(%q) = %v, want %v", src, got, refused)
		}
	}
}
