# cordon's set-up file for an interactive bash on a terminal, written by
# cordon (edits are overwritten; see docs/interactive.md). It says hello
# to cordon's judge, does what bash would have done without cordon, and
# then installs the hook that sends every entered line to the judge
# before it runs.

if [[ -z ${__cordon_fd+set} ]]; then
	builtin readonly __cordon_fd=${CORDON_JUDGE_FD-}
	[[ -n $__cordon_fd ]] && builtin printf 'hello\0bash\0%s\0' 1 2>/dev/null >&"$__cordon_fd"
fi
__cordon_login=${CORDON_BASH_LOGIN-} __cordon_rc=${CORDON_BASH_RCFILE-}
__cordon_norc=${CORDON_BASH_NORC-} __cordon_noprofile=${CORDON_BASH_NOPROFILE-}
builtin unset CORDON_JUDGE_FD CORDON_BASH_LOGIN CORDON_BASH_RCFILE CORDON_BASH_NORC CORDON_BASH_NOPROFILE

if [[ -n $__cordon_login ]]; then
	# As a login shell would (bash --rcfile is never a login shell).
	if [[ -z $__cordon_noprofile ]]; then
		builtin unset __cordon_login __cordon_rc __cordon_norc __cordon_noprofile
		[[ -r /etc/profile ]] && builtin . /etc/profile
		if [[ -r ~/.bash_profile ]]; then
			builtin . ~/.bash_profile
		elif [[ -r ~/.bash_login ]]; then
			builtin . ~/.bash_login
		elif [[ -r ~/.profile ]]; then
			builtin . ~/.profile
		fi
	fi
elif [[ -n $__cordon_rc ]]; then
	# The caller's --rcfile or --init-file (VS Code's shell integration).
	__cordon_rc=$__cordon_rc
	builtin unset __cordon_login __cordon_norc __cordon_noprofile
	[[ -r $__cordon_rc ]] && builtin . "$__cordon_rc"
elif [[ -z $__cordon_norc ]]; then
	builtin unset __cordon_login __cordon_rc __cordon_norc __cordon_noprofile
	[[ -r ~/.bashrc ]] && builtin . ~/.bashrc
fi
builtin unset __cordon_login __cordon_rc __cordon_norc __cordon_noprofile

__cordon_seq=0
__cordon_msg=
__cordon_line=

# __cordon_arm binds the hook's second key, in every keymap, to what the
# next step is: accept-line, or nothing (redraw-current-line).
__cordon_arm() {
	builtin bind -m emacs "\"\\C-x\\C-^k\": $1"
	builtin bind -m vi-insert "\"\\C-x\\C-^k\": $1"
	builtin bind -m vi-command "\"\\C-x\\C-^k\": $1"
}

# __cordon_judge is the first key of Enter: it asks the judge about the
# whole edit buffer and arms the second key to accept it (allowed, or
# replaced by the refusal) or not (incomplete: a newline is added).
__cordon_judge() {
	__cordon_arm redraw-current-line
	local line=$READLINE_LINE v s m ok=
	if [[ $line != *[![:space:]]* ]]; then
		__cordon_arm accept-line
		builtin return
	fi
	__cordon_seq=$((__cordon_seq + 1))
	__cordon_line=$line
	if builtin printf 'line\0%s\0%s\0%s\0' "$__cordon_seq" "$PWD" "$line" 2>/dev/null >&"$__cordon_fd"; then
		while IFS= builtin read -r -d '' -u "$__cordon_fd" v &&
			IFS= builtin read -r -d '' -u "$__cordon_fd" s &&
			IFS= builtin read -r -d '' -u "$__cordon_fd" m; do
			if [[ $s == "$__cordon_seq" ]]; then
				ok=1
				builtin break
			fi
		done 2>/dev/null
	fi
	if [[ -z $ok ]]; then
		v=refuse m=$'cordon: the judge of this terminal is not reachable (its channel is closed or broken); nothing was run. Open a new terminal.\n'
	fi
	case $v in
	run)
		__cordon_arm accept-line
		;;
	more)
		READLINE_LINE=$line$'\n'
		READLINE_POINT=${#READLINE_LINE}
		;;
	*)
		__cordon_msg=${m:-$'cordon: refused; nothing was run\n'}
		READLINE_LINE=__cordon_refused
		READLINE_POINT=16
		__cordon_arm accept-line
		;;
	esac
}

# __cordon_refused runs in place of a refused line: it prints the
# refusal, puts the line as entered in the history, and sets $? to 126.
__cordon_refused() {
	builtin printf '%s' "$__cordon_msg" >&2
	if [[ -o history ]]; then
		[[ $(builtin history 1) == *[0-9]\ \ __cordon_refused ]] && builtin history -d -1 2>/dev/null
		builtin history -s -- "$__cordon_line"
	fi
	builtin return 126
}

# __cordon_off stands for the readline command $1, which accepts a line
# without the hook: edit-and-execute-command (C-x C-e, vi's v) runs the
# edited text without the line editor, and insert-comment (M-#, vi's #)
# with an argument uncomments the line and accepts it.
__cordon_off() {
	builtin printf '\ncordon: %s is off in this terminal: the line would run unjudged\n' "$1" >&2
}

# __cordon_install binds Enter (and every key that accepts a line) to the
# hook, in every keymap.
__cordon_install() {
	local map entry key
	for map in emacs vi-insert vi-command; do
		builtin bind -m "$map" -x '"\C-x\C-^j": __cordon_judge'
		builtin bind -m "$map" -x '"\C-x\C-^r": __cordon_arm redraw-current-line'
		builtin bind -m "$map" '"\C-x\C-^k": redraw-current-line'
		builtin bind -m "$map" '"\C-m": "\C-x\C-^j\C-x\C-^k\C-x\C-^r"'
		builtin bind -m "$map" '"\C-j": "\C-x\C-^j\C-x\C-^k\C-x\C-^r"'
		while IFS= builtin read -r entry; do
			key=${entry%: *}
			case $entry in
			*': accept-line' | *': operate-and-get-next')
				builtin bind -m "$map" "$key: \"\\C-x\\C-^j\\C-x\\C-^k\\C-x\\C-^r\""
				;;
			*': edit-and-execute-command' | *': vi-edit-and-execute-command' | *': insert-comment')
				builtin bind -m "$map" -x "$key: __cordon_off ${entry##*: }"
				;;
			esac
		done < <(builtin bind -m "$map" -p 2>/dev/null)
	done
}

# A DEBUG trap (VS Code's shell integration, starship, bash-preexec) runs
# before every command, the hook's bind -x commands included, and would
# take each Enter for a command's start. The trap the set-up files left is
# wrapped so that it skips the hook's commands (READLINE_POINT is set only
# while a bind -x command runs), with $? and $_ as they were.
__cordon_debug_trap=
__cordon_debug() {
	[[ -n ${READLINE_POINT+set} ]] && builtin return 0
	__cordon_status "$1" "$2"
	builtin eval "$__cordon_debug_trap"
}
__cordon_status() { builtin return "$1"; }

__cordon_install
# At the top level: a function does not see the DEBUG trap. Not "builtin
# trap": bash prints the shell's traps in $(...) only for a plain trap.
__cordon_t=$(trap -p DEBUG)
if [[ -n $__cordon_t ]]; then
	builtin eval "__cordon_t=( $__cordon_t )"
	__cordon_debug_trap=${__cordon_t[2]}
	builtin trap '__cordon_debug "$?" "$_"' DEBUG
fi
builtin unset __cordon_t
# Readonly: __cordon_debug runs it outside the hook's own commands, where
# a line that set it (by a name the judge cannot read) would run unseen.
builtin readonly __cordon_debug_trap
builtin readonly -f __cordon_debug __cordon_status __cordon_arm __cordon_judge __cordon_refused __cordon_off __cordon_install
