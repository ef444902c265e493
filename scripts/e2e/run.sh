#!/usr/bin/env bash
# scripts/e2e/run.sh AGENT WIRING 'COMMAND': run a real agent CLI through
# cordon, driven by a loopback mock model (scripts/e2e/mockmodel) that
# makes it run COMMAND once with its own shell tool (docs/testing.md).
#
#   AGENT   claude | codex | gemini
#   WIRING  claude: install (cordon install claude-code: its shell and hooks)
#                   agent   (cordon agent -- claude)
#           codex:  agent   (cordon agent -- codex --sandbox danger-full-access)
#                   nested  (cordon agent -- codex in Codex's own sandbox)
#                   path    (shims first on PATH: not covered, docs/agents.md)
#           gemini: path    (shims first on PATH)
#                   agent   (cordon agent -- gemini)
#           any:    none    (no cordon: the agent as it is)
#
# It installs the agents into a private npm prefix ($E2E_ROOT/npm, once),
# cordon into a fresh scratch HOME with ./install.sh --no-demo, makes a
# workspace (a git repository with one commit, a file modified and one
# untracked), runs the agent non-interactively, and prints what the model
# got back (RESULT n: ...) and what cordon's log says. The run's files
# stay in $E2E_ROOT/runs/ (the last line names the directory).
#
#   E2E_ROOT=DIR      where agents, builds and runs go (default
#                     ~/.cache/cordon-e2e; never under /tmp: cordon refuses
#                     to be installed there)
#   E2E_APPROVE=1     approve the first refusal's id (cordon approve ID,
#                     as a person in a terminal) and let the model ask for
#                     the same command again: the agent's retry
#   E2E_DELAY=3s      how long the model takes to ask for the command (Codex
#                     runs its first command as a plain bash -lc until its
#                     shell snapshot is made, and in its wrapper after)
#   E2E_CODEX_SANDBOX=MODE   Codex's --sandbox where the wiring does not
#                     choose it (none: workspace-write shows Codex alone)
#   E2E_CLAUDE_VERSION, E2E_CODEX_VERSION, E2E_GEMINI_VERSION   npm versions
#
# Needs Go, node and npm (the registry, once), git, bwrap or Landlock. The
# model is on loopback: nothing else of the network is used.
set -euo pipefail

usage() {
	sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
}
[ $# -eq 3 ] || usage
agent=$1 wiring=$2 command=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
root=${E2E_ROOT:-$HOME/.cache/cordon-e2e}
case $root in /tmp/* | /var/tmp/* | /dev/shm/*) echo "run.sh: E2E_ROOT=$root is under a temporary directory; cordon refuses to be installed there" >&2; exit 2 ;; esac
mkdir -p "$root/runs" "$root/bin"
root=$(cd "$root" && pwd -P)

# Agents: installed once, at pinned versions, into a prefix of their own.
npm_prefix=$root/npm
declare -A pkg=(
	[claude]=@anthropic-ai/claude-code@${E2E_CLAUDE_VERSION:-2.1.197}
	[codex]=@openai/codex@${E2E_CODEX_VERSION:-0.171.0}
	[gemini]=@google/gemini-cli@${E2E_GEMINI_VERSION:-0.61.0}
)
[ -n "${pkg[$agent]:-}" ] || usage
if [ ! -x "$npm_prefix/bin/$agent" ]; then
	echo "== installing ${pkg[$agent]} into $npm_prefix" >&2
	npm install -g --prefix "$npm_prefix" --allow-scripts=@anthropic-ai/claude-code "${pkg[$agent]}" >&2
fi
agentbin=$npm_prefix/bin/$agent

# The mock model, built from this checkout.
(cd "$src" && go build -o "$root/bin/mockmodel" ./scripts/e2e/mockmodel)

run=$(mktemp -d "$root/runs/$agent-$wiring-XXXXXX")
H=$run/home W=$run/home/work/proj
mkdir -p "$H" "$run/tmp" "$W"
real_path=$PATH
gocache=$(go env GOCACHE) gomodcache=$(go env GOMODCACHE) gopath=$(go env GOPATH)

# cordon, installed as a person would, into the scratch home.
if [ "$wiring" != none ]; then
	(cd "$src" && env HOME="$H" GOCACHE="$gocache" GOMODCACHE="$gomodcache" GOPATH="$gopath" \
		./install.sh --no-demo) >"$run/install.log" 2>&1 || { cat "$run/install.log" >&2; exit 1; }
fi
C=$H/.local/bin/cordon S=$H/.local/share/cordon/shims

# The workspace, and things outside it worth keeping.
(
	cd "$W"
	git init -q -b main .
	git config user.email e2e@example.com
	git config user.name e2e
	printf 'console.log(1)\n' >main.js
	git add main.js
	git commit -qm init
	printf 'console.log(2)\n' >main.js
	printf 'later\n' >todo.txt
)
mkdir -p "$H/precious" "$H/.ssh"
echo keep >"$H/precious/file"
echo 'not a real key' >"$H/.ssh/id_ed25519"
chmod 600 "$H/.ssh/id_ed25519"

# The mock model.
approve=${E2E_APPROVE:-0}
mock_args=(-portfile "$run/port" -command "$command" -record "$run/results.jsonl" -log "$run/requests.log" -delay "${E2E_DELAY:-3s}")
[ "$approve" = 1 ] && mock_args+=(-repeat -resume "$run/resume")
"$root/bin/mockmodel" "${mock_args[@]}" 2>"$run/mock.log" &
mock=$!
approver=
cleanup() {
	kill "$mock" 2>/dev/null || true
	[ -n "$approver" ] && kill "$approver" 2>/dev/null || true
	[ -x "$C" ] && HOME=$H "$C" sandbox --stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$run/port" ] && break; sleep 0.1; done
port=$(cat "$run/port")
base=http://127.0.0.1:$port

# The environment every agent gets (in a subshell: what is printed after
# it runs without cordon): the scratch home, its own temporary
# directory, the mock's address, and no traffic the run does not need.
(
export HOME=$H TMPDIR=$run/tmp PATH="$npm_prefix/bin:$real_path" SHELL=/bin/bash
export NO_UPDATE_NOTIFIER=1 CI=1
prefix=()
case $agent/$wiring in
claude/install)
	"$C" install claude-code >"$run/wiring.log" 2>&1 ;;
claude/agent | codex/agent | codex/nested | gemini/agent)
	prefix=("$C" agent --) ;;
codex/path | gemini/path)
	export PATH="$S:$PATH" ;;
*/none) ;;
*) usage ;;
esac

case $agent in
claude)
	export ANTHROPIC_BASE_URL=$base ANTHROPIC_API_KEY=mock-key
	export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1
	# bypassPermissions, as root too (Claude Code asks for a sandbox then).
	export IS_SANDBOX=1
	argv=("$agentbin" -p "run the command" --model claude-sonnet-4-5 ${E2E_CLAUDE_PERM:---dangerously-skip-permissions})
	;;
codex)
	export MOCK_API_KEY=mock-key CODEX_HOME=$H/.codex
	mkdir -p "$CODEX_HOME"
	sandbox=${E2E_CODEX_SANDBOX:-danger-full-access}
	[ "$wiring" = nested ] && sandbox=workspace-write
	argv=("$agentbin" exec --skip-git-repo-check --sandbox "$sandbox" -m mock-model
		-c model_provider=mock
		-c "model_providers.mock={name=\"mock\",base_url=\"$base/v1\",wire_api=\"responses\",env_key=\"MOCK_API_KEY\"}"
		"run the command")
	;;
gemini)
	export GEMINI_API_KEY=mock-key GOOGLE_GEMINI_BASE_URL=$base
	mkdir -p "$H/.gemini"
	printf '{"security":{"auth":{"selectedType":"gemini-api-key"}},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}\n' >"$H/.gemini/settings.json"
	argv=("$agentbin" -p "run the command" --yolo --skip-trust -m gemini-2.5-flash)
	;;
esac

# The person's side of an approval: the first refusal's id, approved in a
# terminal (cordon approve wants one), then the model's second ask.
if [ "$approve" = 1 ]; then
	(
		for _ in $(seq 600); do [ -s "$run/results.jsonl" ] && break; sleep 0.2; done
		id=$(grep -o 'cordon approve [0-9a-f]\{8\}' "$run/results.jsonl" | head -1 | cut -d' ' -f3 || true)
		if [ -n "$id" ]; then
			script -qec "$C approve $id" /dev/null >"$run/approve.log" 2>&1 || true
		else
			echo "no id in the first result" >"$run/approve.log"
		fi
		touch "$run/resume"
	) &
	approver=$!
fi

cd "$W"
status=0
timeout 300 "${prefix[@]}" "${argv[@]}" </dev/null >"$run/agent.out" 2>"$run/agent.err" || status=$?
[ -n "$approver" ] && wait "$approver" || true
echo "$status" >"$run/status"
)
status=$(cat "$run/status")

echo "== $agent $wiring: $command"
echo "agent exit status: $status"
if [ -s "$run/approve.log" ]; then
	echo "-- approve:"
	tr -d '\r' <"$run/approve.log"
fi
echo "-- the model got back:"
if [ -s "$run/results.jsonl" ]; then
	python3 -c 'import json,sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("RESULT %d: %s" % (r["n"], r["output"].strip()))' "$run/results.jsonl"
else
	echo "(no tool result: see $run/agent.err)"
	tail -5 "$run/agent.err"
fi
if [ -x "$C" ]; then
	echo "-- cordon log:"
	HOME=$H "$C" log 2>&1 | tail -n 6
fi
echo "-- after: workspace: $(cd "$W" && git status --short | tr '\n' ' ')"
echo "-- after: home: precious $([ -f "$H/precious/file" ] && echo kept || echo GONE)$([ -e "$H/pwned-by-b64" ] && echo ', pwned-by-b64 MADE')"
echo "run directory: $run"
