#!/usr/bin/env bash
# bench-undo.sh: what the continuous snapshot round costs in a repository
# of 20,000 files and 2,000 commits (scripts/bigrepo.sh): the first round
# (every object copied into the store's mirror), a round after a command
# that changed nothing, one after a commit, and the store's growth over
# 200 commands that edit, commit and write untracked files. The round is
# run as the shim's saver runs it (the hidden role cordon-snapshot), for
# a command that has ended.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/cordon-bench-undo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bin/cordon" .
mkdir -p "$tmp/home"
export HOME=$tmp/home XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
ws=$tmp/ws
scripts/bigrepo.sh "$ws" 20000 2000
store=$tmp/state/cordon/snapshots
round() { (exec -a cordon-snapshot "$tmp/bin/cordon" "$ws" 0 "" "$(date +%s%N)" "" "$ws" "$1") || { cat "$store/guard.log" >&2; exit 1; }; }
ms() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo "$(((t1 - t0) / 1000000)) ms"; }
echo "repository: $(git -C "$ws" ls-files | wc -l) files, $(git -C "$ws" rev-list --count HEAD) commits, .git $(du -sh "$ws/.git" | cut -f1)"
echo "first round (the mirror copies every object): $(ms round first)"
echo "round, nothing changed: $(ms round nothing)"
t0=$(date +%s%N)
for i in $(seq 30); do round nothing; done
echo "round, nothing changed, mean of 30: $((($(date +%s%N) - t0) / 30000000)) ms"
(cd "$ws" && echo x >> d000/f00001.txt && git commit -qam one)
echo "round after a commit: $(ms round commit)"
before=$(du -sk "$store" | cut -f1)
for i in $(seq 1 200); do
	(cd "$ws" && case $((i % 4)) in
		0) echo "$i" >> "d00$((i % 10))/f00$((i % 10))1$((i % 10)).txt" && git commit -qam "c$i" ;;
		1) echo "$i" > "notes-$((i % 7)).txt" ;;
		2) echo "$i" >> d001/f00100.txt ;;
		3) git status -s >/dev/null ;;
	esac)
	round "command $i"
done
after=$(du -sk "$store" | cut -f1)
echo "store: $((before / 1024)) MiB after the first rounds, $((after / 1024)) MiB after 200 more commands (+$(((after - before))) KiB), $(ls "$store/manifests" | wc -l) manifests"
