#!/usr/bin/env bash
# scripts/test.sh: the project's test command, the same locally and in CI
# (.ci/run). Needs Go, bash, sh, dash, zsh and git; -race needs a C compiler;
# the Windows binary's process tests need wine64 and mingw-w64.
#
#   scripts/test.sh
#
# FUZZTIME (default 5s) is how long each fuzz target runs (the whole run
# must stay under 15 minutes on 2 cores; the battery runs every backend
# twice, per command and in a session).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests that need a real shell, or a sandbox backend, fail instead of
# skipping when it is missing.
export CORDON_REQUIRE_SHELLS=1 CORDON_REQUIRE_SANDBOX=1
# The Windows binary runs as cmd.exe under wine (internal/winetest) where
# wine and mingw-w64 are installed, as in CI.
export CORDON_REQUIRE_WINE=0
if [ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null 2>&1; then
	CORDON_REQUIRE_WINE=1
fi
fuzztime=${FUZZTIME:-5s}

step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

# The release artifacts (.goreleaser.yaml: GoReleaser installed, six
# binaries cross-built, archived and packaged) take minutes of CPU: they
# are built in the background from the start, at a lower priority, while
# the test battery (which mostly waits) runs, and tested at the end.
release=$(mktemp -d)
chmod 755 "$release"
step "release snapshot: started in the background (log: $release/log)"
setsid nice -n 10 scripts/release-snapshot.sh "$release/dist" >"$release/log" 2>&1 &
release_pid=$!
trap 'kill -- -"$release_pid" 2>/dev/null || true; rm -rf "$release"' EXIT

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

step actionlint
# The platforms workflow (.github/workflows) runs only where the repository
# is published (macOS and Windows natively); here its syntax, expressions
# and runner labels are checked. .ci/run installs actionlint.
if command -v actionlint >/dev/null 2>&1; then
	actionlint
elif [ "${CORDON_REQUIRE_ACTIONLINT:-0}" = 1 ]; then
	echo "actionlint is not installed (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)" >&2
	exit 1
else
	echo "actionlint is not installed: the workflows are only loaded (docs/workflows_test.go)"
fi

step cross builds
# (darwin: every package is compiled by the darwin test binaries below.)
for goos in windows freebsd; do
	echo "GOOS=$goos"
	GOOS=$goos go build ./...
done

step "darwin test binaries"
# The macOS battery and the Seatbelt backend cannot run here: their test
# binaries must at least build (linked without symbols: ~20 s warm).
bins=$(mktemp -d)
GOOS=darwin go test -c -ldflags='-s -w' -o "$bins/" ./... >/dev/null
rm -rf "$bins"

step "windows battery binary"
# Likewise the Windows battery (battery/sandbox_windows_test.go, the token
# backend); go vet above type-checks the other packages' Windows tests.
GOOS=windows go test -c -ldflags='-s -w' -o /dev/null ./battery >/dev/null

# cpu_checks: the race detector and the fuzz targets, CPU-bound where the
# battery mostly waits: as root, they run beside the ordinary user's run,
# at a lower priority and one worker each, and their output is shown
# after it.
cpu_checks() {
	step race
	if [ "$(go env CGO_ENABLED)" = 1 ] && command -v "$(go env CC)" >/dev/null 2>&1; then
		go test -race -short -count=1 -p 1 ./shim ./decide ./invocation ./parse ./rules
	else
		echo "-race needs cgo and a C compiler (apt-get install gcc)" >&2
		return 1
	fi

	step fuzz "($fuzztime each)"
	# The fuzz targets, found in the test files (listing them with go test
	# -list would build every package's tests once more).
	local dir target out
	for dir in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
		for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$dir"/*_test.go); do
			echo "$dir $target"
			# Go 1.26's fuzzing coordinator can end a run with a bare
			# "context deadline exceeded" at the -fuzztime boundary when a
			# worker is slow to stop on a loaded machine (golang/go#75804,
			# fixed in Go 1.27): no input failed, none was written. A real
			# finding prints "Failing input written to ..." and fails at once.
			# (An iteration count, -fuzztime Nx, has no deadline to race, but
			# the targets' speeds differ 500-fold: one count fits none.)
			if ! out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -parallel 1 "$dir" 2>&1); then
				if grep -qE 'Failing input|--- FAIL: [^ ]*/|panic:' <<<"$out" || ! grep -q 'context deadline exceeded' <<<"$out"; then
					echo "$out"
					return 1
				fi
				echo "(ended by the fuzzing coordinator's deadline race, golang/go#75804, with no failing input: $(grep -o 'execs: [0-9]*' <<<"$out" | tail -1))"
			else
				echo "$out" | tail -1
			fi
		done
	done
}

step go test
# (The battery takes 5 to 9 minutes on 2 cores, near go test's default
# limit of 10 on a loaded machine: the limit is the whole run's budget.)
# Without cgo, as cordon is built for release and by install.sh: the
# battery runs the test binary as cordon, and some paths differ with cgo
# (a session's keeper is the caches' layers' process only where every
# thread can drop its capabilities at once, which cgo's runtime refuses).
CGO_ENABLED=0 go test -count=1 -timeout 25m ./...

step "go test as an ordinary user"
# cordon runs as whoever runs the agent: the suite, the sandbox battery
# included, must also pass without root (file permissions, a home that is
# not /root, no capabilities to drop). As root, make an ordinary user and
# run it again as that user on a copy of the tree in its home (outside
# /tmp, which the sandbox shares), with caches of its own. The wine tests
# (plumbing, not confinement) ran above: building the Windows binary into
# that user's empty cache would cost minutes. (Run side by side with the
# root run it takes half the time, but the ordinary-work replay then
# failed once: not yet understood, so the two run one after the other.)
home=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	user=cordontest
	id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
	home=$(getent passwd "$user" | cut -d: -f6)
	rm -rf "$home/src" "$home/.cache/go-build"
	cp -r . "$home/src"
	chown -R "$user:" "$home"
	# as_user [NAME=VALUE...] CMD...: run CMD as that user in its copy.
	as_user() {
		(cd "$home/src" && setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups \
			env -i PATH="$(dirname "$(command -v go)"):/usr/bin:/bin" HOME="$home" USER="$user" \
			GOMODCACHE="$home/go/pkg/mod" GOCACHE="$home/.cache/go-build" GOFLAGS="-mod=mod $(go env GOFLAGS)" GOPROXY="$(go env GOPROXY)" GOSUMDB="$(go env GOSUMDB)" GOTOOLCHAIN="$(go env GOTOOLCHAIN)" \
			CORDON_REQUIRE_SHELLS=1 CORDON_REQUIRE_SANDBOX=1 CORDON_REQUIRE_WINE=skip "$@")
	}
	cpu=$(mktemp)
	(set -e; cpu_checks) </dev/null >"$cpu" 2>&1 &
	cpu_pid=$!
	renice -n 10 -p "$cpu_pid" >/dev/null
	as_user CGO_ENABLED=0 go test -count=1 -timeout 25m ./...
	cpu_status=0
	wait "$cpu_pid" || cpu_status=$?
	cat "$cpu"
	rm -f "$cpu"
	if [ "$cpu_status" != 0 ]; then
		echo "the race or fuzz checks failed (above)" >&2
		exit 1
	fi
else
	echo "not root: this run already is unprivileged"
	cpu_checks
fi

step "release artifacts"
# The snapshot built in the background since the start: its archives,
# checksums and packages, and install.sh piped to sh from a local server
# holding them, as root and as the ordinary user (release/).
waited=$SECONDS
if ! wait "$release_pid"; then
	cat "$release/log" >&2
	echo "scripts/release-snapshot.sh failed (its log is above)" >&2
	exit 1
fi
tail -1 "$release/log"
echo "waited $((SECONDS - waited)) s for it here"
CORDON_RELEASE_DIST="$release/dist" go test -count=1 ./release
if [ -n "${home:-}" ]; then
	as_user CORDON_RELEASE_DIST="$release/dist" go test -count=1 ./release
	rm -rf "$home/src"
fi

# The real agent CLIs through cordon (scripts/e2e, docs/testing.md):
# opt-in, since the first run installs them from the npm registry.
if [ "${CORDON_E2E_AGENTS:-0}" = 1 ]; then
	step "real agents (scripts/e2e/matrix.sh)"
	scripts/e2e/matrix.sh
fi

step ok
