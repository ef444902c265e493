#!/usr/bin/env bash
# scripts/test.sh: the project's test command, the same locally and in CI
# (.ci/run). Needs Go, bash, sh, dash, zsh and git; -race needs a C compiler.
#
#   scripts/test.sh
#
# FUZZTIME (default 10s) is how long each fuzz target runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests that need a real shell fail instead of skipping when it is missing.
export CORDON_REQUIRE_SHELLS=1
fuzztime=${FUZZTIME:-10s}

step() { printf '\n== %s\n' "$*"; }

step gofmt
unformatted=$(gofmt -s -l .)
if [ -n "$unformatted" ]; then
	echo "not gofmt -s formatted (run gofmt -s -w on them):" >&2
	echo "$unformatted" >&2
	exit 1
fi

step go vet
go vet ./...
GOOS=windows go vet ./...
GOOS=darwin go vet ./...

step cross builds
for goos in darwin windows freebsd; do
	echo "GOOS=$goos"
	GOOS=$goos go build ./...
done

step go test
go test -count=1 ./...

step "go test as an ordinary user"
# cordon runs as whoever runs the agent: the suite must also pass without
# root (file permissions, a home that is not /root). As root, run it again
# as nobody on a copy of the tree, with caches of its own.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
	unpriv=$(mktemp -d)
	trap 'rm -rf "$unpriv"' EXIT
	cp -r . "$unpriv/src"
	chown -R nobody "$unpriv"
	(cd "$unpriv/src" && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		env -i PATH="$(dirname "$(command -v go)"):/usr/bin:/bin" HOME="$unpriv" \
		GOMODCACHE="$unpriv/mod" GOCACHE="$unpriv/cache" GOFLAGS="-mod=mod $(go env GOFLAGS)" GOPROXY="$(go env GOPROXY)" GOSUMDB="$(go env GOSUMDB)" GOTOOLCHAIN="$(go env GOTOOLCHAIN)" \
		CORDON_REQUIRE_SHELLS=1 go test -count=1 ./...)
else
	echo "not root (or no nobody user): this run already is unprivileged"
fi

step race
if [ "$(go env CGO_ENABLED)" = 1 ] && command -v "$(go env CC)" >/dev/null 2>&1; then
	go test -race -short -count=1 ./shim ./parse
else
	echo "-race needs cgo and a C compiler (apt-get install gcc)" >&2
	exit 1
fi

step fuzz "($fuzztime each)"
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "$pkg $target"
		go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg"
	done
done

step ok
