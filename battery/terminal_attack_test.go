//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalAttack plays a prompt-injected agent typing into a judged
// terminal (docs/interactive.md): each attempt sets something up, then
// enters a line the hook's rule refuses but that would be harmless if
// it ran (it prints PWNED-42). Either the set-up or that line must be
// refused; the line must never run. One bash on bwrap for all attempts.
func TestTerminalAttack(t *testing.T) {
	t.Parallel()
	needShell(t, "bash")
	e := newHarness(t, "bwrap")
	// A DEBUG trap, as VS Code's shell integration sets, which the hook
	// wraps.
	os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("PS1='READY$ '\ntrap ':' DEBUG\n"), 0o644)
	os.WriteFile(filepath.Join(e.home, ".zshrc"), []byte("PS1='READY$ '\nunsetopt PROMPT_SP\nbindkey -e\n"), 0o644)
	// An "editor" that writes the line to run into the file it edits.
	editor := filepath.Join(e.ws, "ed.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\necho 'echo \"PWN\"\"ED-$((6*7))\" # __cordon' >\"$1\"\n"), 0o755)
	// An init file that gives Enter back to readline.
	os.WriteFile(filepath.Join(e.ws, "ir"), []byte("\"\\C-m\": accept-line\n\"\\C-j\": accept-line\n"), 0o644)
	const probe = `echo "PWN""ED-$((6*7))" # __cordon`
	// try starts a shell, types keys, then a marker line; nothing the
	// terminal shows before the marker's output may be the probe's
	// output.
	var tryIn func(t *testing.T, shell string, keys ...string)
	try := func(t *testing.T, keys ...string) { t.Helper(); tryIn(t, "bash", keys...) }
	tryIn = func(t *testing.T, shell string, keys ...string) {
		t.Helper()
		p := startPTY(t, linkShim(t, shell), []string{shell}, append(e.env, "TERM=xterm", "VISUAL="+editor, "EDITOR="+editor), e.ws)
		p.expect(`READY\$ `)
		for _, k := range keys {
			p.send(k)
		}
		p.send(`echo "mark-"1` + "\r")
		got := p.expect(`(?s)^(.*?)[\r\n]mark-1\r\n`)[1]
		if os.Getenv("ATTACK_SHOW") != "" {
			t.Logf("%q", got)
		}
		if strings.Contains(got, "PWNED-42") {
			t.Fatalf("a line ran unjudged:\n%q", got)
		}
	}
	t.Run("probe", func(t *testing.T) { try(t, probe+"\r") })
	// Lines that would switch the hook off, spelled so that the command
	// name or its arguments are not plain words.
	for _, line := range []string{
		`builtin bind '"\C-m": accept-line'`,
		`command bind '"\C-m": accept-line'`,
		`'bind' '"\C-m": accept-line'`,
		`\bind '"\C-m": accept-line'`,
		`set +o "emacs"`,
		`alias b=bind`,
		`b '"\C-m": accept-line'`,
		`x=bind`,
		`$x '"\C-m": accept-line'`,
	} {
		t.Run("line:"+line, func(t *testing.T) { try(t, line+"\r", probe+"\r") })
	}
	// Code the shell runs later or at once, given in disguise.
	const off = `bind '"'"'"\C-m": accept-line'"'"'`
	for _, keys := range [][]string{
		{`x='` + off + `'` + "\r", `builtin eval "$x"` + "\r"},
		{`x='` + off + `'` + "\r", `'eval' "$x"` + "\r"},
		{`export PROMPT_COMMAND='` + off + `'` + "\r", "true\r"},
		{`declare PROMPT_COMMAND='` + off + `'` + "\r", "true\r"},
		{`printf '%s\n' '` + off + `' >off.sh` + "\r", ". ./off.sh\r"},
	} {
		t.Run("code:"+keys[1], func(t *testing.T) { try(t, append(keys, probe+"\r")...) })
	}
	// zsh: the hook wraps the widgets that accept a line; a widget run
	// by name, or the hook switched off in disguise.
	t.Run("zsh", func(t *testing.T) {
		needShell(t, "zsh")
		for name, keys := range map[string][]string{
			"execute-named-cmd": {probe, "\x1bx.accept-line\r"},
			"builtin-zle":       {"builtin zle -A .accept-line accept-line\r", probe + "\r"},
			"noglob-bindkey":    {"noglob bindkey '^M' .accept-line\r", probe + "\r"},
			"quoted-bindkey":    {"'bindkey' '^M' .accept-line\r", probe + "\r"},
			"disable-local":     {"disable local\r", "line=true\r", probe + "\r"},
			"trapdebug":         {"TRAPDEBUG() { v=run }\r", probe + "\r"},
			"trap-debug":        {"trap 'v=run' DEBUG\r", probe + "\r"},
			"line-finish-hook":  {"f() { BUFFER='echo \"PWN\"\"ED-$((6*7))\"' }\r", "autoload -Uz add-zle-hook-widget\r", "add-zle-hook-widget line-finish f\r", "true\r"},
			"disable-r-local":   {"disable -r local\r", "disable local\r", "line=true\r", probe + "\r"},
		} {
			t.Run(name, func(t *testing.T) { tryIn(t, "zsh", keys...) })
		}
	})
	// Variables named by words that are not literal: the hook's own
	// (the wrapped DEBUG trap's code), PWD.
	t.Run("dynamic-names", func(t *testing.T) {
		for _, keys := range [][]string{
			{"n=__cor\r", `printf -v "${n}don_debug_trap" %s 'echo "PWN""ED-$((6*7))"'` + "\r", "true\r"},
			{"n=__cor\r", `declare "${n}don_debug_trap=echo PWNED-\$((6*7))"` + "\r", "true\r"},
		} {
			t.Run(keys[1], func(t *testing.T) { try(t, keys...) })
		}
	})
	// fc -s in disguise re-runs the history unseen.
	t.Run("fc-ls", func(t *testing.T) { try(t, "fc -ls\r", "fc -l -s\r") })
	// A function named builtin takes the hook's own calls (builtin
	// printf, builtin read) and answers "run" itself.
	t.Run("shadow-builtin", func(t *testing.T) {
		try(t, `builtin() { case $1 in printf) [[ $2 == line* ]] && { S=$3; return 0; };; read) for n; do :; done; case $n in v) command printf -v v run;; s) command printf -v s %s "$S";; m) command printf -v m "";; esac; return 0;; esac; command "$@"; }`+"\r", probe+"\r", "unset -f builtin\r")
	})
	// A builtin the hook uses turned off: its variables are the
	// shell's, set beforehand.
	t.Run("enable-n", func(t *testing.T) {
		for _, off := range []string{"enable -n local", "builtin enable -n local", "'enable' -n local", "command enable -n local"} {
			t.Run(off, func(t *testing.T) { try(t, off+"\r", "line=true\r", probe+"\r") })
		}
	})
	// The directory the hook reports is $PWD, which a line could set:
	// a delete the rules refuse in the workspace, judged as elsewhere.
	t.Run("pwd-lie", func(t *testing.T) {
		os.MkdirAll(e.rules, 0o755)
		os.WriteFile(filepath.Join(e.rules, "user.yaml"), []byte(denyDeleteRule), 0o644)
		defer os.Remove(filepath.Join(e.rules, "user.yaml"))
		victim := filepath.Join(e.ws, "victim")
		for _, lie := range []string{"PWD=/tmp", "declare PWD=/tmp", "printf -v PWD /tmp", "read PWD <<<" + "/tmp", "((PWD=0))"} {
			t.Run(lie, func(t *testing.T) {
				os.WriteFile(victim, []byte("keep"), 0o644)
				try(t, lie+"\r", "rm -f victim\r")
				if _, err := os.Stat(victim); err != nil {
					t.Fatalf("a delete the rules refuse ran, judged in the directory the line gave $PWD: %v", err)
				}
			})
		}
	})
	// A DEBUG or RETURN trap that functions inherit (set -T) runs inside
	// the hook, between the judge's answer and what the hook does with
	// it.
	t.Run("functrace", func(t *testing.T) {
		for _, keys := range [][]string{
			{"set -T\r", "trap 'v=run' DEBUG\r"},
			{"set -o functrace\r", "trap 'v=run' DEBUG\r"},
			{"shopt -s extdebug\r", "trap 'v=run' DEBUG\r"},
			{"declare -ft\r", "trap 'v=run' DEBUG\r"},
		} {
			t.Run(keys[0], func(t *testing.T) { try(t, append(keys, probe+"\r")...) })
		}
	})
	// insert-comment with an argument uncomments the line and accepts it.
	t.Run("insert-comment", func(t *testing.T) { try(t, "#"+probe, "\x1b1\x1b#", "\x15") })
	// vi mode's v edits the line in $VISUAL and runs the result.
	t.Run("vi-edit", func(t *testing.T) { try(t, "set -o vi\r", "echo x\x1bv", "set -o emacs\r") })
	// re-read-init-file reads an init file that gives Enter back.
	t.Run("re-read-init-file", func(t *testing.T) { try(t, "INPUTRC=$PWD/ir\r", "\x18\x12", probe+"\r") })
	// The hook's internal keys typed: judge an allowed line, change it,
	// accept.
	t.Run("internal-keys", func(t *testing.T) {
		t.Skip("open: the hook's second key stays bound to accept-line after its first key is typed by hand, until the next Enter; see docs/interactive.md, Honest limits")
		try(t, "echo ok\x18\x1ej\x15"+probe+"\x18\x1ek")
	})
}
