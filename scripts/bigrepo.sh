#!/usr/bin/env bash
# bigrepo.sh DIR [FILES] [COMMITS]: makes a git repository in DIR with
# FILES files (20000) and COMMITS commits (2000), each commit after the
# first changing ten files, through git fast-import (a few seconds). The
# snapshot round's cost is measured on it (scripts/bench-undo.sh).
set -euo pipefail
dir=$1 files=${2:-20000} commits=${3:-2000}
rm -rf "$dir"
git init -q -b main "$dir"
LC_ALL=C awk -v files="$files" -v commits="$commits" '
function blob(path, text) { printf "M 100644 inline %s\ndata %d\n%s\n", path, length(text), text }
BEGIN {
	for (c = 1; c <= commits; c++) {
		msg = "commit " c
		printf "commit refs/heads/main\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s\n", 1700000000 + c, length(msg), msg
		if (c == 1) {
			for (i = 0; i < files; i++) blob(sprintf("d%03d/f%05d.txt", int(i / 100), i), "file " i "\n")
		} else {
			for (k = 0; k < 10; k++) { i = ((c * 10) + k) % files; blob(sprintf("d%03d/f%05d.txt", int(i / 100), i), "file " i " changed in " c "\n") }
		}
		print ""
	}
}' | git -C "$dir" fast-import --quiet
git -C "$dir" checkout -q -f main
