#!/usr/bin/env bash
# scripts/release-snapshot.sh DIST: build the release artifacts the way a
# release does (.goreleaser.yaml), into DIST, without publishing anything
# and without the network once GoReleaser is installed. scripts/test.sh runs
# it in the background and then tests DIST (release/).
#
# Installs GoReleaser (GORELEASER_VERSION) with go install when the one in
# GOBIN is not that version.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# = 1 ] || { echo "usage: scripts/release-snapshot.sh DIST | --install" >&2; exit 2; }
dist=$1
version=${GORELEASER_VERSION:-v2.15.1}
start=$SECONDS

gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin=$(go env GOPATH)/bin
goreleaser=$gobin/goreleaser
# One install at a time: .ci/run starts one (--install) before it installs
# the system's packages, and a snapshot started meanwhile waits for it.
exec 9>"${TMPDIR:-/tmp}/cordon-goreleaser-$(id -u).lock"
flock 9
if ! "$goreleaser" --version 2>/dev/null | grep -q "GitVersion: *$version\$"; then
	echo "installing goreleaser $version into $gobin"
	GOBIN=$gobin go install "github.com/goreleaser/goreleaser/v2@$version"
fi
flock -u 9
installed=$SECONDS
if [ "$dist" = --install ]; then
	echo "goreleaser $version installed in $((installed - start)) s"
	exit 0
fi

# The same configuration with dist/ elsewhere: the tests run in this tree
# meanwhile, and the ordinary user's run copies it.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
	cat .goreleaser.yaml
	echo "dist: $dist"
} >"$work/goreleaser.yaml"

# A snapshot needs a remote URL to read the commit (a checkout with no
# remote, such as a fresh git init or a worktree, has none): given for
# this run only.
if ! git remote get-url origin >/dev/null 2>&1; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/cordonsh/cordon.git
fi
# check fails on a deprecated key too, which release only warns about.
"$goreleaser" check --config "$work/goreleaser.yaml"
"$goreleaser" release --snapshot --clean --skip=publish --config "$work/goreleaser.yaml"
echo "release snapshot: goreleaser installed in $((installed - start)) s, artifacts built in $((SECONDS - installed)) s"
