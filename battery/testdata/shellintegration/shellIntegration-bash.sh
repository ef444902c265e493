# A stand-in for an editor's bash integration (see README.md): it marks
# the prompt and each command with OSC 633 sequences, from a DEBUG trap
# and PROMPT_COMMAND, as the editors' scripts do.
if [ -n "${__si_loaded-}" ]; then return; fi
__si_loaded=1

# --init-file takes the place of ~/.bashrc.
if [ -r ~/.bashrc ]; then . ~/.bashrc; fi

__si_armed=0
__si_running=0

# __si_escape prints $1 with \, ; and newlines escaped as the protocol
# asks.
__si_escape() {
	local s=${1//\\/\\\\}
	s=${s//;/\\x3b}
	s=${s//$'\n'/\\x0a}
	builtin printf '%s' "$s"
}

# __si_preexec runs before every simple command; it marks the first one
# after a prompt (armed by the last line of PROMPT_COMMAND).
__si_preexec() {
	if [ "$BASH_COMMAND" = __si_precmd ]; then
		__si_armed=0
		return
	fi
	if [ "$__si_armed" != 1 ] || [ -n "${COMP_LINE-}" ]; then
		return
	fi
	__si_armed=0
	__si_running=1
	local line
	line=$(HISTTIMEFORMAT='' builtin history 1)
	if [[ $line =~ ^[[:space:]]*[0-9]+[*[:space:]]+(.*)$ ]]; then
		line=${BASH_REMATCH[1]}
	else
		line=$BASH_COMMAND
	fi
	builtin printf '\e]633;E;%s;%s\a\e]633;C\a' "$(__si_escape "$line")" "${VSCODE_NONCE-}"
}

__si_precmd() {
	local status=$?
	if [ "$__si_running" = 1 ]; then
		builtin printf '\e]633;D;%s\a' "$status"
	fi
	__si_running=0
	return $status
}

PS1='\[\e]633;A\a\]'"$PS1"'\[\e]633;B\a\]'
PROMPT_COMMAND=$'__si_precmd\n'"${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}"'__si_armed=1'
trap '__si_preexec' DEBUG
