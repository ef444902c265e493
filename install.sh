#!/bin/sh
# install.sh: install cordon with a shims directory, for the current user
# (no root), and print the next step.
#
#   curl -fsSL https://raw.githubusercontent.com/cordonsh/cordon/main/install.sh | sh
#   ./install.sh [--no-demo]        (from a checkout of the source)
#
# Installs PREFIX/bin/cordon and PREFIX/share/cordon/shims/{bash,sh,zsh,dash},
# symlinks to cordon. PREFIX defaults to ~/.local.
#
# Run from a checkout with Go 1.26 or later, it builds cordon from that
# source and then runs a short demo (--no-demo skips it). Otherwise it
# downloads the release archive for this system and checksums.txt, checks
# the archive's SHA-256, and installs only when it matches:
#   CORDON_VERSION=1.2.3       that release instead of the latest
#   CORDON_DOWNLOAD_URL=URL    where the release's files are (a mirror;
#                              overrides CORDON_VERSION)
#
# Everything is in functions called on the last line, so that a download
# cut short runs nothing.
set -eu

usage() {
	echo "usage: ./install.sh [--no-demo]   (PREFIX=DIR overrides ~/.local)"
}

fail() {
	echo "install.sh: $*" >&2
	exit 1
}

# checkout prints the directory of the cordon checkout this script was run
# from, and nothing when it was piped to sh.
checkout() {
	case $0 in
	install.sh | */install.sh) ;;
	*) return 0 ;;
	esac
	dir=$(cd "$(dirname "$0")" && pwd) || return 0
	if [ -f "$dir/go.mod" ] && grep -q '^module github.com/cordonsh/cordon$' "$dir/go.mod"; then
		echo "$dir"
	fi
}

# resolved prints the absolute path $1 names, symbolic links resolved in
# the part of it that exists.
resolved() {
	p=$1 rest=
	case $p in /*) ;; *) p=$(pwd)/$p ;; esac
	while [ ! -d "$p" ]; do
		rest=/${p##*/}$rest
		p=${p%/*}
		[ -n "$p" ] || p=/
	done
	printf '%s%s\n' "$(cd "$p" && pwd -P)" "$rest"
}

# early_place refuses, before anything is built or downloaded, a PREFIX
# in the system's temporary directories: every command cordon runs may
# write there, so cordon would refuse to run from it (cordon doctor
# --prefix, run before anything is installed, checks every other place
# its rules let commands write).
early_place() {
	where=$(resolved "$PREFIX")
	for t in /tmp /var/tmp /dev/shm "${TMPDIR:-/tmp}"; do
		[ -d "$t" ] || continue
		t=$(cd "$t" && pwd -P)
		case $where/ in
		"$t"/*) fail "PREFIX=$PREFIX is in $t, which every command cordon runs may write: an agent could replace cordon there, and cordon refuses to run from such a place. Install it elsewhere: leave PREFIX unset (~/.local), or PREFIX=/usr/local; nothing installed" ;;
		esac
	done
}

# place_check asks the cordon in $1, before it is put in place, whether
# PREFIX is a place sandboxed commands may write; it says why when it is.
place_check() {
	if ! said=$("$1" doctor --prefix "$PREFIX"); then
		printf '%s\n' "$said" >&2
		fail "nothing installed"
	fi
}

# build builds cordon from the checkout $1 in a temporary directory, then
# moves it into place: a cordon in use as an agent's shell must not be
# overwritten in place.
build() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cordon-install.XXXXXX")
	(cd "$1" && CGO_ENABLED=0 go build -trimpath -o "$tmp/cordon" .) || fail "go build failed: nothing installed"
	place_check "$tmp/cordon"
	mkdir -p "$bin"
	cp "$tmp/cordon" "$bin/cordon.new"
	mv -f "$bin/cordon.new" "$bin/cordon"
	rm -rf "$tmp"
	tmp=
}

# fetch downloads the URL $1 to the file $2.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL -o "$2" "$1" || fail "could not download $1: nothing installed"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1" || fail "could not download $1: nothing installed"
	else
		fail "neither curl nor wget is installed: install one and run this again"
	fi
}

# sha256 prints the SHA-256 of the file $1 in hex.
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		fail "neither sha256sum nor shasum is installed: cannot check the download, nothing installed"
	fi
}

# platform prints the release's name for this system, as in the archives'
# names: linux_amd64, darwin_arm64...
platform() {
	case $(uname -s) in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	MINGW* | MSYS* | CYGWIN* | Windows_NT) fail "on Windows, run install.ps1 in PowerShell: irm https://github.com/cordonsh/cordon/releases/latest/download/install.ps1 | iex" ;;
	*) fail "no cordon release for $(uname -s): build it from source (https://github.com/cordonsh/cordon)" ;;
	esac
	case $(uname -m) in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) fail "no cordon release for the processor $(uname -m): build it from source (https://github.com/cordonsh/cordon)" ;;
	esac
	echo "${os}_$arch"
}

# download fetches the release archive and checksums.txt into a temporary
# directory, checks the archive against it, unpacks cordon, checks that it
# runs here, and only then moves it into place.
download() {
	base=${CORDON_DOWNLOAD_URL:-}
	if [ -z "$base" ]; then
		if [ -n "${CORDON_VERSION:-}" ]; then
			base=https://github.com/cordonsh/cordon/releases/download/v${CORDON_VERSION#v}
		else
			base=https://github.com/cordonsh/cordon/releases/latest/download
		fi
	fi
	base=${base%/}
	archive=cordon_$(platform).tar.gz
	sha256 /dev/null >/dev/null # refuse before downloading when nothing can check

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cordon-install.XXXXXX")
	echo "downloading $base/$archive"
	fetch "$base/checksums.txt" "$tmp/checksums.txt"
	fetch "$base/$archive" "$tmp/$archive"

	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
	case $want in
	"") fail "checksums.txt at $base has no line for $archive: nothing installed" ;;
	*[!0-9a-f]* | *"
"*) fail "checksums.txt at $base has a malformed line for $archive: nothing installed" ;;
	esac
	got=$(sha256 "$tmp/$archive")
	if [ "$got" != "$want" ]; then
		fail "$archive does not match checksums.txt (sha256 $got, checksums.txt says $want): nothing installed"
	fi

	mkdir "$tmp/x"
	tar -xzf "$tmp/$archive" -C "$tmp/x" cordon 2>/dev/null || fail "$archive holds no cordon: nothing installed"
	[ -f "$tmp/x/cordon" ] && [ ! -L "$tmp/x/cordon" ] || fail "$archive holds no cordon program: nothing installed"
	chmod 755 "$tmp/x/cordon"
	version=$("$tmp/x/cordon" version) || fail "the downloaded cordon does not run on this system: nothing installed"
	place_check "$tmp/x/cordon"

	mkdir -p "$bin"
	cp "$tmp/x/cordon" "$bin/cordon.new"
	mv -f "$bin/cordon.new" "$bin/cordon"
	rm -rf "$tmp"
	tmp=
	echo "installed $version"
}

shims() {
	mkdir -p "$shims"
	for name in bash sh zsh dash; do
		ln -sfn "$bin/cordon" "$shims/$name"
	done
}

instructions() {
	cat <<EOF
cordon is installed:
  $bin/cordon
  $shims/{bash,sh,zsh,dash} -> $bin/cordon
EOF
	case :$PATH: in
	*:"$bin":*) ;;
	*) printf '\n%s is not on your PATH: add it (in ~/.profile or your shell'"'"'s rc file):\n  export PATH="%s:$PATH"\n' "$bin" "$bin" ;;
	esac
	cat <<EOF

Next, see which agents are here and what cordon would change in their
settings, point them at cordon, then check the set-up:
  cordon install          (lists the agents found and what would change; changes nothing)
  cordon install --all    (points every agent found at cordon; --dry-run shows each change)
  cordon doctor

Or by hand, in an agent's environment:
  SHELL=$shims/bash PATH="$shims:\$PATH"
Every shell command it runs is then judged; allowed commands run in the
real shell unchanged, refused ones exit 126 with the reason on stderr.
  cordon check -- bash -c 'rm -rf build'      judge a command without running it
  cordon explain -- bash -lc 'git reset --hard'
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

cleanup() {
	[ -z "${tmp:-}" ] || rm -rf "$tmp"
	[ -z "${root:-}" ] || rm -rf "$root"
}

main() {
	demo=1
	for arg in "$@"; do
		case $arg in
		--no-demo) demo=0 ;;
		-h | --help) usage; exit 0 ;;
		*) echo "install.sh: unknown argument \"$arg\"" >&2; usage >&2; exit 2 ;;
		esac
	done
	[ -n "${HOME:-}" ] || fail "HOME is not set: run this as the user who runs the agents"
	PREFIX=${PREFIX:-$HOME/.local}
	bin=$PREFIX/bin
	shims=$PREFIX/share/cordon/shims
	tmp= root=
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	early_place

	src=$(checkout)
	if [ -n "$src" ] && command -v go >/dev/null 2>&1; then
		build "$src"
	else
		if [ -n "$src" ]; then
			echo "go not found: installing the release instead of building this checkout (for that, install Go 1.26 or later: https://go.dev/dl/)"
		fi
		download
	fi
	shims
	instructions
	# The demo is for a checkout's ./install.sh; curl | sh stops here.
	if [ -n "$src" ] && [ "$demo" = 1 ]; then
		demo
	fi
}

main "$@"
