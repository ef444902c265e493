//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replaceWorkspace is a command's program: the workspace lies in a
// scratch directory every sandbox may write (/tmp), so it renames the
// workspace's parent away and makes a new workspace at the same path,
// its entries links to the old one's (the same repository, the same
// trusted files by their identity) and .vscode/tasks.json planted.
const replaceWorkspace = `import os
ws = os.getcwd()
parent = os.path.dirname(ws)
old = parent + '.old'
try:
    os.rename(parent, old)
except OSError as e:
    print('refused', e.errno)
    raise SystemExit(0)
os.makedirs(ws)
for e in os.listdir(os.path.join(old, os.path.basename(ws))):
    os.symlink(os.path.join(old, os.path.basename(ws), e), os.path.join(ws, e))
os.makedirs(os.path.join(ws, '.vs' + 'code'))
open(os.path.join(ws, '.vs' + 'code', 'tasks.json'), 'w').write('{"runOn": "folderOpen"}')
print('replaced')
`

// TestSessionWorkspaceReplacedByCommand: a command replaces the whole
// workspace directory under its path (its parent renamed, in a scratch
// directory the sandbox may write) and plants .vscode/tasks.json in the
// new one. The guard's ledger is the workspace's by its path and its
// identity (so that a person's rm -rf app && git init app starts a
// ledger of its own, TestSessionWorkspaceMadeAgainLedger): the release
// opens a new, empty ledger, reconciles nothing, and the next ticket
// trusts the planted file. Fails before and after the change to the
// session's still tickets alike: telling a command's replacement from a
// person's needs the sandbox to refuse it (the directories between a
// writable root and the workspace bound onto themselves, so that a rename
// is EBUSY, with bwrap; Landlock has no such refusal in a directory it
// grants), or the release to reconcile against the ledger its ticket was
// taken in, which TestSessionWorkspaceMadeAgainLedger's person would
// then lose their new hooks to while a background process of the
// session runs.
func TestSessionWorkspaceReplacedByCommand(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		r.sh("true")
		os.WriteFile(filepath.Join(r.ws, "replace.py"), []byte(replaceWorkspace), 0o644)
		out, errs, code := r.sh(python + " replace.py")
		if code == 0 && strings.HasPrefix(out, "refused") {
			return // (the workspace's parent is a mount point in the sandbox: platform.Policy.Pins)
		}
		if code != 0 || out != "replaced\n" {
			t.Skipf("the workspace was not replaced (exit %d): %q %s", code, out, errs)
		}
		r.sh("true")
		if _, err := os.Stat(filepath.Join(r.ws, ".vscode/tasks.json")); err == nil {
			t.Errorf(".vscode/tasks.json planted in a workspace a command made again at its path is on the host after the next command")
		}
	})
}
