# cordon's hook for an interactive zsh (see .zshenv): the widgets that
# accept a line first send the whole edit buffer to cordon's judge.

typeset -g __cordon_seq=0 __cordon_msg= __cordon_line=
zmodload zsh/zleparameter 2>/dev/null

# __cordon_accept stands for every widget that accepts a line: it asks
# the judge, and then calls the widget it replaced (allowed, or the line
# replaced by the refusal), or adds a newline (incomplete).
__cordon_accept() {
	builtin emulate -L zsh
	local line=$BUFFER v s m ok=
	if [[ $line == *[^[:space:]]* ]]; then
		__cordon_seq=$((__cordon_seq + 1))
		__cordon_line=$line
		if builtin printf 'line\0%s\0%s\0%s\0' $__cordon_seq $PWD $line 2>/dev/null >&$__cordon_fd; then
			while IFS= builtin read -r -d '' -u $__cordon_fd v &&
				IFS= builtin read -r -d '' -u $__cordon_fd s &&
				IFS= builtin read -r -d '' -u $__cordon_fd m; do
				if [[ $s == $__cordon_seq ]]; then
					ok=1
					break
				fi
			done 2>/dev/null
		fi
		if [[ -z $ok ]]; then
			v=refuse m=$'cordon: the judge of this terminal is not reachable (its channel is closed or broken); nothing was run. Open a new terminal.\n'
		fi
		case $v in
		run) ;;
		more)
			BUFFER=$line$'\n'
			CURSOR=$#BUFFER
			return 0
			;;
		*)
			__cordon_msg=${m:-$'cordon: refused; nothing was run\n'}
			BUFFER=__cordon_refused
			CURSOR=$#BUFFER
			;;
		esac
	fi
	zle __cordon_orig_$WIDGET "$@"
}

# __cordon_refused runs in place of a refused line: it prints the
# refusal, adds the line as entered to the history (after the refusal's
# own entry, so that the up arrow recalls it first; a zshaddhistory hook
# that dropped the refusal's entry would leave preexec without the
# command line, which VS Code's integration reports), and sets $? to 126.
__cordon_refused() {
	builtin print -rn -- $__cordon_msg >&2
	builtin print -sr -- $__cordon_line
	return 126
}

# __cordon_off stands for execute-named-cmd and execute-last-named-cmd,
# which run a widget by name: .accept-line, the original of a wrapped
# one, accepting a line unjudged. (They cannot be redefined: the keys
# bound to them, in every keymap, are bound to this instead.)
__cordon_off() {
	builtin zle -M "cordon: $WIDGET is off in this terminal: it could accept a line unjudged"
}

# __cordon_install puts __cordon_accept in place of the widgets that
# accept a line, keeping each one it replaces (a plugin's wrapper) to
# call; again, it changes nothing.
__cordon_install() {
	local w
	for w in accept-line accept-and-hold accept-line-and-down-history accept-and-infer-next-history; do
		[[ ${widgets[$w]-} == user:__cordon_accept ]] && continue
		if [[ -n ${widgets[$w]-} ]]; then
			builtin zle -A $w __cordon_orig_$w
		else
			builtin zle -A .$w __cordon_orig_$w
		fi
		builtin zle -N $w __cordon_accept
	done
	builtin zle -N __cordon_off
	local km b
	for km in emacs viins vicmd; do
		for b in ${(f)"$(builtin bindkey -M $km -L)"}; do
			[[ $b == *' execute-named-cmd' || $b == *' execute-last-named-cmd' ]] && builtin eval "${b% *} __cordon_off"
		done
	done
}

# __cordon_precmd installs the hook again at the first prompt (a plugin
# may have replaced a widget after .zshrc), then removes itself.
__cordon_precmd() {
	__cordon_install
	precmd_functions=(${precmd_functions:#__cordon_precmd})
}

__cordon_install
precmd_functions+=(__cordon_precmd)
