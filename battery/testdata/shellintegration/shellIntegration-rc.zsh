# A stand-in for an editor's zsh integration (see README.md): installed
# as .zshrc in a ZDOTDIR of the editor's, it sources the user's own and
# marks the prompt and each command with OSC 633 sequences from precmd
# and preexec hooks, as the editors' scripts do.
if [[ -n $USER_ZDOTDIR && -r $USER_ZDOTDIR/.zshrc ]]; then
	__si_zdotdir=$ZDOTDIR
	ZDOTDIR=$USER_ZDOTDIR
	. "$USER_ZDOTDIR/.zshrc"
	ZDOTDIR=$__si_zdotdir
fi

typeset -g __si_running=0

__si_escape() {
	local s=${1//\\/\\\\}
	s=${s//;/\\x3b}
	s=${s//$'\n'/\\x0a}
	builtin print -rn -- "$s"
}

__si_precmd() {
	local st=$?
	if (( __si_running )); then
		builtin printf '\e]633;D;%s\a' "$st"
	fi
	__si_running=0
	if [[ $PS1 != *'633;A'* ]]; then
		PS1=$'%{\e]633;A\a%}'"$PS1"$'%{\e]633;B\a%}'
	fi
}

__si_preexec() {
	__si_running=1
	builtin printf '\e]633;E;%s;%s\a\e]633;C\a' "$(__si_escape "$1")" "${VSCODE_NONCE-}"
}

autoload -Uz add-zsh-hook
add-zsh-hook precmd __si_precmd
add-zsh-hook preexec __si_preexec
