#!/bin/sh
# install.sh: build cordon from this checkout, install it with a shims
# directory, print how to point an agent at it, and show what it does.
#
#   ./install.sh [--no-demo]
#
# Installs PREFIX/bin/cordon and PREFIX/share/cordon/shims/{bash,sh,zsh,dash},
# symlinks to cordon. PREFIX defaults to ~/.local. Needs Go; the demo needs git.
set -eu

usage() {
	echo "usage: ./install.sh [--no-demo]   (PREFIX=DIR overrides ~/.local)"
}

demo=1
for arg in "$@"; do
	case $arg in
	--no-demo) demo=0 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "install.sh: unknown argument \"$arg\"" >&2; usage >&2; exit 2 ;;
	esac
done

PREFIX=${PREFIX:-$HOME/.local}
bin=$PREFIX/bin
shims=$PREFIX/share/cordon/shims

build() {
	if ! command -v go >/dev/null 2>&1; then
		echo "install.sh: go not found: install Go 1.26 or later (https://go.dev/dl/) and run ./install.sh again" >&2
		exit 1
	fi
	mkdir -p "$bin" "$shims"
	# Build next to the target and rename: a cordon in use as an agent's
	# shell must not be overwritten in place.
	(cd "$(dirname "$0")" && CGO_ENABLED=0 go build -trimpath -o "$bin/cordon.new" .)
	mv -f "$bin/cordon.new" "$bin/cordon"
	for name in bash sh zsh dash; do
		ln -sfn "$bin/cordon" "$shims/$name"
	done
}

instructions() {
	cat <<EOF
cordon is installed:
  $bin/cordon
  $shims/{bash,sh,zsh,dash} -> $bin/cordon

Point an agent at the shims. Every shell command it runs is then judged;
allowed commands run in the real shell unchanged, refused ones exit 126
with the reason on stderr.
  any agent:    export SHELL=$shims/bash PATH="$shims:\$PATH"
  Claude Code:  CLAUDE_CODE_SHELL=$shims/bash claude
                (its hooks run /bin/sh by absolute path: not covered yet)
  Codex CLI:    PATH="$shims:\$PATH" codex
                (Codex starts the login shell from /etc/passwd, not \$SHELL:
                 PATH covers the shells it runs by name; the top-level one
                 only if the shim is your login shell, chsh -s $shims/bash)
  Gemini CLI:   PATH="$shims:\$PATH" gemini        (it runs bash from PATH)
  Cursor:       a terminal profile whose path is $shims/bash
                (terminal.integrated.profiles.linux / .osx, made the default)
  Aider:        SHELL=$shims/bash aider
                (without a terminal, Aider runs /bin/sh by absolute path)

Judge a command without running it: cordon check -- bash -c 'rm -rf build'
Explain a judgement:                 cordon explain -- bash -lc 'git reset --hard'
EOF
}

# show runs a command line of the demo and its exit status; a refusal is
# the point of the demo, not a failure of the install.
show() {
	printf '\n$ %s\n' "$1"
	status=0
	eval "$1" || status=$?
	printf '(exit status %s)\n' "$status"
}

# dangerous runs bash -c SCRIPT through the shim only when cordon check
# refuses it, so that an unfinished judge can never make the demo destroy
# anything. HOME is a fake one inside the demo directory as well.
dangerous() {
	if cordon check --json -- bash -c "$1" | grep -q '"verdict":"allow"'; then
		printf "\n\$ bash -c '%s'\n(not run: this build of cordon would allow it; its judge is not finished)\n" "$1"
		return
	fi
	show "bash -c '$1'"
}

demo() {
	if ! command -v git >/dev/null 2>&1; then
		echo; echo "(no demo: git is not installed)"
		return
	fi
	root=$(mktemp -d "$HOME/.cordon-demo.XXXXXX")
	trap 'rm -rf "$root"' EXIT
	repo=$root/home/src/app
	mkdir -p "$repo/build" && cd "$repo"
	git init -q && echo "# app" >README.md && git add README.md
	git -c user.name=demo -c user.email=demo@example.invalid commit -q -m init
	echo "work in progress" >>README.md && : >build/out.o
	HOME=$root/home PATH="$shims:$bin:$PATH"
	export HOME PATH

	printf '\n== demo: commands an agent might run, in a scratch repository\n'
	printf '   (%s, HOME=%s)\n' "$repo" "$HOME"
	show "bash -c 'echo hello; ls'"
	show "cordon check -- bash -c 'rm -rf build'"
	dangerous 'rm -rf ~'
	dangerous 'echo cm0gLXJmIH4= | base64 -d | sh'
	show "cordon explain -- bash -lc 'git reset --hard'"
	printf '\n== the sandbox: what the judge lets through still runs confined\n'
	: >"$HOME/.bashrc"
	show "cordon sandbox | sed -n '1,3p'"
	show "cordon run -- /bin/sh -c 'echo pwned >> ~/.bashrc'"
	show "cordon run -- /bin/sh -c 'echo fine > notes.txt && cat notes.txt'"
	printf '\nExit status 126 is how cordon tells an agent no; the agent reads the reason on stderr.\n'
}

build
instructions
if [ "$demo" = 1 ]; then
	demo
fi
