package decide

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRefusedPiecesThroughWrappers: what the hook finds refused in the
// model's command is what the shim finds in the agent's wrapping of it,
// and another command (one more target, the command twice, another
// directory) is refused differently.
func TestRefusedPiecesThroughWrappers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX wrappers")
	}
	base := t.TempDir()
	home := filepath.Join(base, "home")
	ws := filepath.Join(home, "src", "app")
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	snap := filepath.Join(home, ".claude", "shell-snapshots", "snapshot-bash-1.sh")
	os.MkdirAll(filepath.Dir(snap), 0o755)
	os.WriteFile(snap, []byte("alias ll='ls -alF'\nshopt -s expand_aliases\n"), 0o644)
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=" + filepath.Join(base, "config"), "XDG_STATE_HOME=" + filepath.Join(base, "state")}
	pieces := func(dir string, argv ...string) string {
		t.Helper()
		j, err := Check(argv, dir, env)
		if err != nil {
			t.Fatal(err)
		}
		return RefusedPieces(j)
	}
	claude := func(cmd string) []string {
		return []string{"bash", "-c", "source " + snap + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" +
			strings.ReplaceAll(cmd, "'", `'\''`) + "' < /dev/null && pwd -P >| /tmp/claude-4f1c-cwd"}
	}
	cursor := func(cmd string) []string {
		return []string{"bash", "-O", "extglob", "-c", `snap=$(command cat <&3 2>/dev/null); eval "$1"`, "--", cmd}
	}
	for _, cmd := range []string{"cat ~/.ssh/id_rsa", "sudo apt install jq", "git push --force origin main", "cat ~/.aws/credentials | wc -l && ll"} {
		want := pieces(ws, "bash", "-c", cmd)
		if want == "" {
			t.Fatalf("%q: nothing refused", cmd)
		}
		if got := pieces(ws, claude(cmd)...); got != want {
			t.Errorf("%q wrapped by Claude Code:\n%q\nwant\n%q", cmd, got, want)
		}
		if got := pieces(ws, cursor(cmd)...); got != want {
			t.Errorf("%q wrapped by Cursor:\n%q\nwant\n%q", cmd, got, want)
		}
		for _, other := range [][]string{
			{ws, "bash", "-c", cmd + "; " + cmd},
			{filepath.Join(ws, "sub"), "bash", "-c", cmd},
		} {
			if got := pieces(other[0], other[1:]...); got == want {
				t.Errorf("%q refused as %q", other[1:], cmd)
			}
		}
	}
	if pieces(ws, "bash", "-c", "cat ~/.ssh/id_rsa ~/.ssh/id_ed25519") == pieces(ws, "bash", "-c", "cat ~/.ssh/id_rsa") {
		t.Error("one more credential read is refused as the same")
	}
	if got := pieces(ws, "bash", "-c", "go test ./... && ls"); got != "" {
		t.Errorf("an allowed command: %q", got)
	}
}
