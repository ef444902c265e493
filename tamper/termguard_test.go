package tamper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestHookTamper: a terminal refuses the lines that would switch its
// hook off or go round it, and only those.
func TestHookTamper(t *testing.T) {
	refused := []string{
		"TRAPDEBUG() { v=run; }", "function TRAPDEBUG { :; }", "add-zle-hook-widget line-finish f",
		`printf -v "$n" %s x`, `declare "${n}WD=/tmp"`, `export "$n=1"`, `export "$n"`,
		"trap 'v=run' DEBUG", "trap -- 'v=run' RETURN", "builtin trap 'v=run' debug", `trap 'v=run' "$s"`, "trap 'x=1' INT SIGRETURN",
		"PWD=/tmp", "declare PWD=/tmp", "export PWD=/tmp", "printf -v PWD /tmp", "read PWD", "unset PWD",
		"((PWD=0))", "let PWD=1", "declare -n p=PWD", "f() { PWD=/; }",
		"noglob bindkey '^M' .accept-line",
		"nocorrect zle -A .accept-line accept-line",
		`builtin eval "$x"`,
		`'eval' "$x"`,
		`command trap "$x" DEBUG`,
		`export PROMPT_COMMAND='bind -x "\C-m": f'`,
		`declare PROMPT_COMMAND="$x"`,
		`PROMPT_COMMAND+=("$x")`,
		`printf -v PROMPT_COMMAND %s "$x"`,
		`read -r PROMPT_COMMAND`,
		`declare -n p=PROMPT_COMMAND`,
		`. "$f"`,
		`source ./off.sh`,
		`builtin bind '"\C-m": accept-line'`,
		`command bind -x '"\C-m": f'`,
		`command -p bind '"\C-m": accept-line'`,
		`'bind' '"\C-m": accept-line'`,
		`\bind '"\C-m": accept-line'`,
		`b\ind '"\C-m": accept-line'`,
		`bind "$x"`,
		`set +o "emacs"`,
		`set +o 'vi'`,
		`set +o $m`,
		"fc -ls",
		"fc -l -s",
		"fc -le vi",
		"fc -l -e - 3",
		"builtin fc -s",
		`unset -f __cordon_judge`,
		`__cordon_msg=x`,
		`bind '"\C-m": accept-line'`,
		`bind -r '\C-m'`,
		`bind -f ~/.inputrc`,
		`bindkey '^M' .accept-line`,
		`zle -N accept-line my-widget`,
		`zle -A .accept-line accept-line`,
		`set +o emacs`,
		`set +o vi`,
		`exec 12>&-`,
		`exec 12<>/tmp/fifo`,
		`exec 3>&12`,
		`exec {fd}>&-`,
		`fc -s`,
		`fc`,
		`eval "$x"`,
		`eval 'bind "\"\\C-m\": accept-line"'`,
		`trap 'bind -r "\C-m"' DEBUG`,
		`trap "$x" DEBUG`,
		`PROMPT_COMMAND='bind -r "\C-m"'`,
		`PROMPT_COMMAND=$x`,
		`precmd() { bindkey '^M' .accept-line; }`,
		`f() { bind -r '\C-m'; }`,
	}
	allowed := []string{
		`printf -v out %s "$x"`, `declare x="$y"`, "export FOO",
		"trap - DEBUG", "trap 'rm -f tmp' EXIT", "trap -p DEBUG", "trap",
		`printf 'PWD=%s\n' "$PWD"`, `echo "$PWD"`, "cd /tmp", "OLDPWD=x",
		`export PROMPT_COMMAND='history -a'`,
		`echo "$PROMPT_COMMAND"`,
		`. ./on.sh`,
		`. ./missing.sh`,
		"fc -l -5 -1",
		"fc -lnr",
		"builtin bind -p",
		`set +o "history"`,
		`echo hi`,
		`bind -p`,
		`bind -P`,
		`bindkey`,
		`bindkey -v`,
		`set -o vi`,
		`set +o history`,
		`exec 3>out.log`,
		`exec {fd}>out.log`,
		`echo x >&2`,
		`fc -l`,
		`eval 'echo hi'`,
		`eval echo hi`,
		`trap 'rm -f /tmp/x' EXIT`,
		`PROMPT_COMMAND='history -a'`,
		`cat <<EOF
bind -r x
EOF`,
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "off.sh"), []byte("f() { :; }\n. ./deeper.sh\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "deeper.sh"), []byte("bind '\"\\C-m\": accept-line'\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "on.sh"), []byte("PS1='$ '\nalias ll='ls -l'\n"), 0o644)
	judge := func(line string) string {
		f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return HookTamper(line, f.Stmts, HookScope{Fd: 12, Dir: dir})
	}
	if HookTamper("r", nil, HookScope{Fd: 12, Zsh: true}) != "" || HookTamper("r", parseLine(t, "r"), HookScope{Fd: 12, Zsh: true}) == "" || HookTamper("r", parseLine(t, "r"), HookScope{Fd: 12}) != "" {
		t.Error("r re-runs the history in zsh only")
	}
	for _, line := range refused {
		if judge(line) == "" {
			t.Errorf("allowed: %s", line)
		}
	}
	for _, line := range allowed {
		if why := judge(line); why != "" {
			t.Errorf("refused: %s: %s", line, why)
		}
	}
}

func parseLine(t *testing.T, line string) []*syntax.Stmt {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatal(err)
	}
	return f.Stmts
}
