#!/usr/bin/env bash
# scripts/bench.sh: whole-process timings of cordon against the real shell,
# with hyperfine. Builds cordon into a temporary directory first.
#
#   scripts/bench.sh [OUT.md]
#   BENCH_ONLY=network scripts/bench.sh   # the network allowlist's part alone
#
# Writes a markdown table to OUT.md, or to stdout, then the ratios of the
# main cases side by side: each against plain bash and against the bare
# bwrap. Run from anywhere; the git command is timed in this repository.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

if ! command -v hyperfine >/dev/null 2>&1; then
	echo "bench.sh: hyperfine not found: apt-get install hyperfine (or cargo install hyperfine)" >&2
	exit 1
fi
real=$(command -v -p bash)
[ -x /bin/bash ] && real=/bin/bash

# cordon, its shims, settings and state go where sandboxed commands cannot
# write (the self-check refuses a cordon they could replace): not /tmp.
tmp=$(mktemp -d "$HOME/.cordon-bench-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# Built aside and copied into place, as install.sh installs it: the file
# the linker writes (through a mapping) starts 0.2 to 0.3 ms slower per
# process than a copy of it, with as many page faults, for as long as its
# pages stay cached (docs/performance.md); a person runs the copy.
mkdir "$tmp/build"
CGO_ENABLED=0 go build -trimpath -o "$tmp/build/cordon" .
cp "$tmp/build/cordon" "$tmp/cordon"
rm -rf "$tmp/build"
mkdir "$tmp/shims"
for name in bash sh; do
	ln -s "$tmp/cordon" "$tmp/shims/$name"
done
shim=$tmp/shims/bash

# Nested shells in the timed commands go through the shims too, as under
# an agent.
host_path=$PATH
export PATH="$tmp/shims:$PATH"
# State of its own (sessions, caches, the policy cache): the sandbox --stop
# below ends every session of the state directory, which must not be the
# person's (or, on a shared machine, another run's).
export XDG_STATE_HOME="$tmp/state"
out=${1:-$tmp/bench.md}

# The commands run in a workspace: a clone of this repository (a .git
# directory of its own, as a person's project has: the continuous guard's
# rounds run git there, which a linked worktree would spare them), so that
# git has something to report.
ws=$(mktemp -d)/ws
git clone -q --no-hardlinks "$PWD" "$ws"
trap 'rm -rf "$tmp" "$(dirname "$ws")"' EXIT
cd "$ws"

# A bare bwrap with the same namespaces and mounts as cordon's (without
# the seccomp filter, which needs a descriptor that hyperfine cannot
# pass, with the binds cordon makes by descriptor made by name, and
# without the caches' private layers, which cordon lays from inside),
# running bash directly.
bare=$({ "$tmp/cordon" sandbox --backend bwrap --network on || true; } | sed -n '/^command line/{n;p}' |
	sed -E 's/(--perms [0-7]+ )?--ro-bind-data [0-9]+ [^ ]+ //g; s/--seccomp [0-9]+ //; s/-- [^ ]*ld[^ ]* --argv0 bash /-- /;
		s/--(ro-)?bind-fd [0-9]+ ([^ ]+) /--\1bind \2 \2 /g;
		s/--cap-add [A-Z_]+ //g; s/-- [^ ]*cordon-layers [0-9]+ ([^ ]+) [^ ]+ /-- \1 /')
if [ -z "$bare" ]; then
	echo "bench.sh: bwrap does not work here (cordon sandbox --backend bwrap says why)" >&2
	exit 1
fi

# A user rule file of 20 policies, for the cost of layered rules (read,
# hashed, then taken from the cache in $XDG_STATE_HOME).
mkdir -p "$tmp/config/cordon/rules" "$tmp/state"
{
	echo "version: 1"
	echo "policies:"
	for i in $(seq 1 20); do
		printf '  - {id: bench-%d, effect: [delete], target: [cache], verdict: ask, message: "bench %d"}\n' "$i" "$i"
	done
} >"$tmp/config/cordon/rules/bench.yaml"
rules_env="env XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state"

# The long script: 2,000 lines, each a test run filtered to a log,
# judged in the workspace (a git repository) from its file. Not in $tmp:
# a script under the home directory, which sandboxed commands cannot
# write, is taken for an installed program and not read, and the row
# timed nothing (the 37 ms quoted until 2026-12-05); so the commands
# judged are counted first.
long="$ws/long.sh"
for i in $(seq 1 2000); do echo "go test ./p$i/... 2>&1 | grep -v ok > o$i.log || echo f$i"; done >"$long"
judged=$("$tmp/cordon" explain -- bash "$long" | grep -cE '^ +[0-9]+\. go test ' || true)
if [ "$judged" -lt 2000 ]; then
	echo "bench.sh: cordon explain found $judged of the long script's 2000 test runs: the script is not judged, and its row would time nothing" >&2
	exit 1
fi

# The policy cache ($XDG_STATE_HOME/cordon/policy) is made by a first
# run and trusted only for directories unchanged for a few seconds.
"$shim" -c true
sleep 4

# Session sandboxes (docs/session.md): the first command of a session makes
# the sandbox (each run starts after --stop), later ones run in it; and the
# same command with sessions off, a sandbox per command. The sessions end
# with the script.
mkdir -p "$tmp/nosession/cordon"
printf 'sandbox:\n  session: off\n' >"$tmp/nosession/cordon/config.yaml"
trap '"$tmp/cordon" sandbox --stop >/dev/null; rm -rf "$tmp" "$(dirname "$ws")"' EXIT

# The network allowlist (docs/network.md): a 100 MB download from a local
# server with the network on (direct) and through the allowlist's proxy
# (curl --noproxy '': NO_PROXY names the sandbox's own loopback), and a
# command's start with each, with a session and without.
network() {
	if ! command -v python3 >/dev/null || ! command -v curl >/dev/null; then
		echo "bench.sh: the network part needs python3 and curl" >&2
		return
	fi
	mkdir -p "$tmp/www" "$tmp/neton/cordon" "$tmp/netnosession/cordon" "$tmp/netonnosession/cordon"
	head -c $((100 << 20)) /dev/zero >"$tmp/www/big"
	printf 'sandbox:\n  network: on\n' >"$tmp/neton/cordon/config.yaml"
	printf 'sandbox:\n  network: on\n  session: off\n' >"$tmp/netonnosession/cordon/config.yaml"
	printf 'sandbox:\n  session: off\n' >"$tmp/netnosession/cordon/config.yaml"
	local port=$((20000 + RANDOM % 20000))
	# The server runs on the host (its python3 is not run through the
	# shims, which would confine it in a network of its own).
	env PATH="$host_path" python3 -m http.server "$port" --bind 127.0.0.1 --directory "$tmp/www" >/dev/null 2>&1 &
	local server=$!
	local url=http://127.0.0.1:$port/big
	for _ in $(seq 100); do
		env PATH="$host_path" curl -s -o /dev/null -r 0-0 "$url" && break
		sleep 0.1
	done
	hyperfine --warmup 2 --min-runs 10 --shell=none --export-markdown "$tmp/net.md" \
		--command-name 'curl 100 MB (real)' "curl -s -o /dev/null $url" \
		--command-name 'curl 100 MB (shim, network on)' "env XDG_CONFIG_HOME=$tmp/neton $shim -c 'curl -s -o /dev/null $url'" \
		--command-name 'curl 100 MB (shim, allowlist: through the proxy)' "$shim -c 'curl -s --noproxy \"\" -o /dev/null $url'" \
		>&2
	hyperfine --warmup 10 --min-runs 60 --shell=none --export-markdown "$tmp/netstart.md" \
		--command-name 'bash -c true (shim, network on, a sandbox per command)' "env XDG_CONFIG_HOME=$tmp/netonnosession $shim -c true" \
		--command-name 'bash -c true (shim, allowlist, a sandbox per command)' "env XDG_CONFIG_HOME=$tmp/netnosession $shim -c true" \
		--command-name 'bash -c true (shim, network on, later command of a session)' "env XDG_CONFIG_HOME=$tmp/neton CORDON_SESSION=bench-on $shim -c true" \
		--command-name 'bash -c true (shim, allowlist, later command of a session)' "env CORDON_SESSION=bench-allow $shim -c true" \
		>&2
	kill "$server"
	{
		echo
		cat "$tmp/net.md"
		echo
		cat "$tmp/netstart.md"
	} >>"$out"
}
if [ "${BENCH_ONLY:-}" = network ]; then
	trap '"$tmp/cordon" sandbox --stop >/dev/null; rm -rf "$tmp" "$(dirname "$ws")"' EXIT
	network
	cat "$out"
	exit
fi

# Codex's wrapper: every command it runs sources its snapshot of the
# person's login shell (functions, options, aliases, exports; tens of kB),
# keeping a few variables of its own and the proxy ones around it, then
# execs bash -c CMD. Judged with the snapshot in place, against judging
# the bare command in the same environment.
quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
codex_home=$tmp/home
mkdir -p "$codex_home/.codex/shell_snapshots"
snap=$codex_home/.codex/shell_snapshots/019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b.sh
cp "$src/testdata/shell-snapshots/codex-bash.sh" "$snap"
codex_env="env HOME=$codex_home XDG_CONFIG_HOME=$tmp/none XDG_STATE_HOME=$tmp/state"
codex_wrapper=$(
	keep() { # keep PREFIX N NAME: save NAME before the snapshot, put it back after
		printf '%s\n' "__CODEX_SNAPSHOT_${1}OVERRIDE_SET_$2=\"\${$3+x}\"" "__CODEX_SNAPSHOT_${1}OVERRIDE_$2=\"\${$3-}\"" >>"$tmp/before"
		printf '%s\n' "if [ -n \"\${__CODEX_SNAPSHOT_${1}OVERRIDE_SET_$2}\" ]; then export $3=\"\${__CODEX_SNAPSHOT_${1}OVERRIDE_$2}\"; else unset $3; fi" >>"$tmp/after"
	}
	: >"$tmp/before"
	: >"$tmp/after"
	i=0
	for name in CODEX_THREAD_ID CODEX_SANDBOX CODEX_SANDBOX_NETWORK_DISABLED CODEX_MANAGED_BY_NPM CODEX_CI CODEX_HOME CODEX_PERMISSION_PROFILE; do
		keep "" $i $name
		i=$((i + 1))
	done
	echo 'if [ -n "$__CODEX_SNAPSHOT_PROXY_ENV_SET" ] || [ -n "${CODEX_NETWORK_PROXY_ACTIVE+x}" ]; then' >>"$tmp/after"
	i=0
	for name in ALL_PROXY BUNDLE_HTTPS_PROXY BUNDLE_HTTP_PROXY BUNDLE_NO_PROXY BUNDLE_SSL_CA_CERT CURL_CA_BUNDLE \
		DOCKER_HTTPS_PROXY DOCKER_HTTP_PROXY ELECTRON_GET_USE_PROXY FTP_PROXY GIT_SSL_CAINFO GLOBAL_AGENT_HTTPS_PROXY \
		GLOBAL_AGENT_HTTP_PROXY GLOBAL_AGENT_NO_PROXY HTTPS_PROXY HTTP_PROXY NODE_EXTRA_CA_CERTS NODE_USE_ENV_PROXY \
		NO_PROXY NPM_CONFIG_CAFILE NPM_CONFIG_HTTPS_PROXY NPM_CONFIG_HTTP_PROXY NPM_CONFIG_NOPROXY NPM_CONFIG_PROXY \
		PIP_CERT PIP_PROXY REQUESTS_CA_BUNDLE SSL_CERT_DIR SSL_CERT_FILE WSS_PROXY WS_PROXY YARN_HTTPS_PROXY \
		YARN_HTTP_PROXY YARN_NO_PROXY all_proxy ftp_proxy http_proxy https_proxy no_proxy npm_config_cafile \
		npm_config_https_proxy npm_config_http_proxy npm_config_noproxy npm_config_proxy pip_proxy ws_proxy wss_proxy \
		yarn_https_proxy yarn_http_proxy; do
		keep PROXY_ $i $name
		i=$((i + 1))
	done
	echo fi >>"$tmp/after"
	cat "$tmp/before"
	echo '__CODEX_SNAPSHOT_PROXY_ENV_SET="${CODEX_NETWORK_PROXY_ACTIVE+x}"'
	echo
	echo "if . '$snap' >/dev/null 2>&1; then :; fi"
	echo
	cat "$tmp/after"
	echo "if [ -n \"\${PATH:-}\" ]; then export PATH='$codex_home/.codex/tmp/arg0/codex-arg0Xq1w2e':\"\$PATH\"; else export PATH='$codex_home/.codex/tmp/arg0/codex-arg0Xq1w2e'; fi"
	echo
	echo "exec '/bin/bash' -c 'echo hi'"
)

hyperfine --warmup 10 --min-runs 100 --shell=none --export-markdown "$out" --export-csv "$tmp/bench.csv" \
	--command-name 'bash -c true (real)' "$real -c true" \
	--command-name 'bwrap bash -c true (bare, same policy)' "$bare" \
	--command-name 'bash -c true (shim, bwrap)' "$shim -c true" \
	--command-name 'cordon run --backend landlock bash -c true' "$tmp/cordon run --backend landlock -- $real -c true" \
	--command-name 'git status | head (real)' "$real -c 'git status --short | head -5'" \
	--command-name 'git status | head (shim, bwrap)' "$shim -c 'git status --short | head -5'" \
	--command-name 'cordon check' "$tmp/cordon check -- bash -lc 'rm -rf build && npm test'" \
	--command-name 'cordon check (a user rule file, cached)' "$rules_env $tmp/cordon check -- bash -lc 'rm -rf build && npm test'" \
	--command-name 'cordon check (no rule files, same env)' "env XDG_CONFIG_HOME=$tmp/none XDG_STATE_HOME=$tmp/state $tmp/cordon check -- bash -lc 'rm -rf build && npm test'" \
	--command-name 'cordon check (a 2000-line script)' "$tmp/cordon check -- bash $long" \
	--command-name 'cordon check (echo hi)' "$codex_env $tmp/cordon check -- bash -lc 'echo hi'" \
	--command-name "cordon check (Codex's wrapper around echo hi)" "$codex_env $tmp/cordon check -- bash -lc $(quote "$codex_wrapper")" \
	--command-name "cordon check (Claude Code's wrapper around echo hi)" "$codex_env $tmp/cordon check -- bash -c $(quote "source $snap 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'echo hi' < /dev/null && pwd -P >| /tmp/claude-9f3e-cwd")" \
	>&2

# The ratios side by side, from the means.
ratios() {
	awk '
		NR == 1 { next }
		{
			# The name is quoted when it holds a comma.
			if (substr($0, 1, 1) == "\"") {
				i = index(substr($0, 2), "\"")
				n = substr($0, 2, i - 1)
				rest = substr($0, i + 3)
			} else {
				i = index($0, ",")
				n = substr($0, 1, i - 1)
				rest = substr($0, i + 1)
			}
			split(rest, f, ",")
			name[NR] = n
			mean[NR] = f[1] * 1000
		}
		n == "bash -c true (real)" { bash = mean[NR] }
		n ~ /^bwrap bash -c true/ { bwrap = mean[NR] }
		END {
			print ""
			print "| Command | Mean [ms] | × bash -c true | × bare bwrap |"
			print "|:---|---:|---:|---:|"
			for (i = 2; i <= NR; i++)
				if (name[i] ~ /^(bash -c true|bwrap bash|minimal bwrap|cordon run|cordon check( \(a 2000|$))/)
					printf "| `%s` | %.1f | %.2f | %.2f |\n", name[i], mean[i], mean[i] / bash, mean[i] / bwrap
		}' "$1"
}
ratios "$tmp/bench.csv" >>"$out"

# The minimal bwrap the speed issue measured against: the root read-only,
# every namespace, the workspace bound, nothing hidden. The bare bwrap
# above makes the mounts cordon's policy makes (the hidden paths, the
# caches' lower layers, the read-only places), most of its time on this
# kind of machine: each bind or remount has bwrap read the whole mount
# table again. Both are baselines; the targets are given against each.
minimal="bwrap --ro-bind / / --unshare-all --cap-drop ALL --bind $ws $ws --chdir $ws $real -c true"

# The session sandbox against a bare bwrap and plain bash, in a table of its
# own: the first command of a session needs the sessions stopped before
# each run. The session's rows run the shim as an agent does, directly:
# hyperfine is their agent (one session for the run, found up the parent
# chain, as for a real agent), so no `env` runs in front of them; an
# `env` costs about as much as a bash (an exec and the dynamic loader),
# which the bare bwrap and bash rows do not pay.
mkdir -p "$tmp/landlock/cordon"
printf 'sandbox:\n  backend: landlock\n' >"$tmp/landlock/cordon/config.yaml"
hyperfine --warmup 10 --min-runs 100 --shell=none --export-markdown "$tmp/session.md" --export-csv "$tmp/session.csv" \
	--command-name 'bash -c true (real)' --prepare true "$real -c true" \
	--command-name 'bwrap bash -c true (bare, same policy)' --prepare true "$bare" \
	--command-name 'minimal bwrap bash -c true (/ read-only, --unshare-all, the workspace bound)' --prepare true "$minimal" \
	--command-name 'bash -c true (shim, bwrap, a sandbox per command)' --prepare true "env XDG_CONFIG_HOME=$tmp/nosession $shim -c true" \
	--command-name 'bash -c true (shim, bwrap, first command of a session)' --prepare "$tmp/cordon sandbox --stop" "$shim -c true" \
	--command-name 'bash -c true (shim, bwrap, later command of a session)' --prepare true "$shim -c true" \
	>&2
# A later command of a Landlock session: the settings that choose
# Landlock are hyperfine's environment, so that the shim again runs
# without an `env`; bash is timed again in the same run, for the ratio.
"$tmp/cordon" sandbox --stop >/dev/null 2>&1 || true
XDG_CONFIG_HOME=$tmp/landlock hyperfine --warmup 10 --min-runs 100 --shell=none --export-markdown "$tmp/landlock.md" --export-csv "$tmp/landlock.csv" \
	--command-name 'bash -c true (real)' --prepare true "$real -c true" \
	--command-name 'bash -c true (shim, Landlock, later command of a session)' --prepare true "$shim -c true" \
	>&2
{
	echo
	cat "$tmp/session.md"
	ratios "$tmp/session.csv"
	echo
	cat "$tmp/landlock.md"
} >>"$out"

# Other agents' sandboxes, when installed (npm: @openai/codex for codex
# sandbox, @anthropic-ai/sandbox-runtime for srt): a command each, in the
# same workspace.
peers=()
if command -v codex >/dev/null 2>&1; then
	peers+=(--command-name 'codex sandbox (per command)' "env PATH=$host_path codex sandbox -- $real -c true")
fi
if command -v srt >/dev/null 2>&1; then
	peers+=(--command-name 'srt (per command)' "env PATH=$host_path srt -c true")
fi
: >"$tmp/peers.csv"
if [ ${#peers[@]} -gt 0 ]; then
	# srt leaves a socket in /tmp per command (srt-mux-PID-N.sock); each
	# is another program's socket to every later sandbox, which hides it
	# with a mount of its own: the ones this run made go when it ends.
	ls -d /tmp/srt-mux-*.sock 2>/dev/null | sort >"$tmp/srt-before" || true
	hyperfine --warmup 3 --min-runs 20 --shell=none --export-markdown "$tmp/peers.md" --export-csv "$tmp/peers.csv" "${peers[@]}" >&2
	ls -d /tmp/srt-mux-*.sock 2>/dev/null | sort | comm -13 "$tmp/srt-before" - | xargs -r rm -f
	{
		echo
		cat "$tmp/peers.md"
	} >>"$out"
fi

# The speed targets, from the medians: each ratio is to the baseline
# measured in the same hyperfine run.
targets() {
	awk '
		FNR == 1 { file++; next }
		{
			if (substr($0, 1, 1) == "\"") {
				i = index(substr($0, 2), "\"")
				n = substr($0, 2, i - 1)
				rest = substr($0, i + 3)
			} else {
				i = index($0, ",")
				n = substr($0, 1, i - 1)
				rest = substr($0, i + 1)
			}
			split(rest, f, ",")
			med[file, n] = f[3] * 1000
		}
		function row(what, v, base, basename, target, unit) {
			if (v == "" || v == 0)
				return
			if (base == "") {
				printf "| %s | %.1f ms | | ≤ %s ms | %s |\n", what, v, target, v <= target + 0 ? "met" : "not met"
				return
			}
			printf "| %s | %.1f ms | %.2f× %s | ≤ %s× | %s |\n", what, v, v / base, basename, target, v / base <= target + 0 ? "met" : "not met"
		}
		END {
			bash1 = med[1, "bash -c true (real)"]
			bwrap2 = med[2, "bwrap bash -c true (bare, same policy)"]
			minimal2 = med[2, "minimal bwrap bash -c true (/ read-only, --unshare-all, the workspace bound)"]
			print ""
			print "| target | median | ratio | asked | |"
			print "|:---|---:|---:|---:|:---|"
			row("later command of a session, bwrap", med[2, "bash -c true (shim, bwrap, later command of a session)"], bwrap2, "bare bwrap", "1.0")
			row("later command of a session, Landlock", med[3, "bash -c true (shim, Landlock, later command of a session)"], med[3, "bash -c true (real)"], "bash", "3")
			row("first command of a new session, bwrap", med[2, "bash -c true (shim, bwrap, first command of a session)"], bwrap2, "bare bwrap", "3")
			row("later command of a session, bwrap, against the minimal bwrap", med[2, "bash -c true (shim, bwrap, later command of a session)"], minimal2, "minimal bwrap", "1.0")
			row("first command of a new session, bwrap, against the minimal bwrap", med[2, "bash -c true (shim, bwrap, first command of a session)"], minimal2, "minimal bwrap", "3")
			row("`cordon check`", med[1, "cordon check"], bash1, "bash", "1.3")
			row("`cordon check` of a 2,000-line script", med[1, "cordon check (a 2000-line script)"], "", "", "30")
			row("`cordon check` of Codex'"'"'s wrapper around `echo hi`", med[1, "cordon check (Codex'"'"'s wrapper around echo hi)"], med[1, "cordon check (echo hi)"], "`echo hi`", "1.2")
			row("`cordon check` of Claude Code'"'"'s wrapper around `echo hi`", med[1, "cordon check (Claude Code'"'"'s wrapper around echo hi)"], med[1, "cordon check (echo hi)"], "`echo hi`", "1.2")
			for (k in med) {
				split(k, p, SUBSEP)
				if (p[1] == 4)
					printf "| %s | %.1f ms | %.2f× bare bwrap | | |\n", p[2], med[k], med[k] / bwrap2
			}
		}' "$tmp/bench.csv" "$tmp/session.csv" "$tmp/landlock.csv" "$tmp/peers.csv"
}
targets >>"$out"
network

if [ $# -eq 0 ]; then
	cat "$out"
fi
{
	echo
	echo "Measured with \`scripts/bench.sh\` on $(uname -srm), $(nproc 2>/dev/null || echo '?') CPUs, $(go version | cut -d' ' -f3), $("$real" --version | head -1)."
} >>"${1:-/dev/stdout}"
