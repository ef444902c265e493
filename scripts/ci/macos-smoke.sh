#!/usr/bin/env bash
# scripts/ci/macos-smoke.sh DIR: on macOS, checks that every Seatbelt
# profile cordon generates loads (sandbox-exec -p ... /usr/bin/true) for a
# few kinds of directory, then runs a list of real tools through the shim
# as an agent would (bash -c), confined, and checks each works, and that
# what must fail does. DIR is made for the run. The platforms workflow
# (.github/workflows/platforms.yml) runs it; it cannot run on Linux.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(uname -s)" = Darwin ] || { echo "macos-smoke.sh: macOS only" >&2; exit 2; }
dir=${1:?usage: macos-smoke.sh DIR}
rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/config/cordon" "$dir/ws"
dir=$(cd "$dir" && pwd -P)
go build -o "$dir/bin/cordon" .
ln -s cordon "$dir/bin/bash"
printf 'sandbox:\n  backend: seatbelt\n  session: off\n' > "$dir/config/cordon/config.yaml"
export XDG_CONFIG_HOME="$dir/config" XDG_STATE_HOME="$dir/state"
fails=0
pass() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; fails=$((fails + 1)); }

# 1. Every profile loads: a workspace that is a repository, the home
# directory, a directory of scratch.
git -C "$dir/ws" init -q
for where in "$dir/ws" "$HOME" "${TMPDIR:-/tmp}"; do
	json=$(cd "$where" && "$dir/bin/cordon" sandbox --platform darwin --json)
	if python3 - "$json" <<'PY'
import json, subprocess, sys
p = json.loads(sys.argv[1])
args = ["sandbox-exec", "-p", p["profile"]]
for kv in p["params"]:
    args += ["-D", kv["name"] + "=" + kv["value"]]
sys.exit(subprocess.run(args + ["/usr/bin/true"]).returncode)
PY
	then pass "the profile for $where loads"; else fail "the profile for $where does not load"; fi
done

# 2. Real tools, through the shim, confined.
shim() { (cd "$dir/ws" && "$dir/bin/bash" -c "$1"); }
works() { if out=$(shim "$2" 2>&1); then pass "$1"; else fail "$1: $out"; fi; }
refused() { if out=$(shim "$2" 2>&1); then fail "$1 (it ran: $out)"; else pass "$1"; fi; }
works "git commit" 'git -c user.name=ci -c user.email=ci@example.com commit -q --allow-empty -m smoke'
works "xcrun finds clang" 'xcrun --find clang'
works "node sees the processors (mach-host)" 'node -e "if (!require(\"os\").cpus().length) process.exit(1)"'
works "a file watcher (FSEvents)" 'node -e "const fs=require(\"fs\"); fs.watch(\".\", () => process.exit(0)); setTimeout(() => fs.writeFileSync(\"w.txt\", \"x\"), 200); setTimeout(() => process.exit(3), 5000)"'
works "Python's multiprocessing" 'python3 -c "import multiprocessing as m; assert m.Pool(2).map(abs, [-1, -2]) == [1, 2]"'
cat > "$dir/ws/https.go" <<'GO'
package main

import (
	"net/http"
	"os"
)

func main() {
	resp, err := http.Get("https://proxy.golang.org/")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	resp.Body.Close()
}
GO
works "a Go HTTPS request (the system's trust)" 'go run https.go'
# ps is setuid: Seatbelt refuses to start it (docs/macos.md says why it stays so).
refused "ps cannot start (setuid)" 'ps -p $$'
refused "a write outside the workspace fails" "touch '$HOME/cordon-smoke-outside'"
refused "a write to .git/config fails" 'echo "[core]" >> .git/config'
refused "a write to .git/hooks fails" 'echo "#!/bin/sh" > .git/hooks/pre-commit'
[ ! -e "$HOME/cordon-smoke-outside" ] || fail "the file outside the workspace exists"

echo "$fails failed"
[ "$fails" -eq 0 ]
