//go:build unix

package platform

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNewPolicyUnlistableScratch: a sandboxed command may chmod 0 a
// scratch directory it owns ($TMPDIR); the next command's policy listed
// nothing there, hid nothing of it, and that command, made it readable
// again, reached another program's socket in it (an ssh-agent's in
// $TMPDIR/ssh-*). The policy must hide what is there or refuse.
func TestNewPolicyUnlistableScratch(t *testing.T) {
	root := tree(t, "home/", "tmp/ssh-XYZ/agent.1")
	home, tmp := root+"/home", root+"/tmp"
	if err := os.Chmod(tmp, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(tmp, 0o755) })
	s := &Spec{Scratch: []string{tmp}, ScratchPrivate: []string{"ssh-*"}}
	for _, cached := range []bool{false, true} {
		dir := ""
		if cached {
			dir = t.TempDir()
		}
		p, err := NewPolicyCached(s, []string{"HOME=" + home}, dir)
		if err == nil && !slices.Contains(p.Hidden, tmp+"/ssh-XYZ") {
			t.Errorf("cache %v: a scratch directory made unreadable by its owner hid nothing: %v", cached, p.Hidden)
		}
	}
}

// TestHostSocketsUnlistable: the same with a directory of this user's
// inside a scratch directory, the search for the host's sockets found
// nothing in it to cover (its socket, another program's, reached from
// the next sandbox once the directory was readable again): it must
// cover the socket, or the directory whole.
func TestHostSocketsUnlistable(t *testing.T) {
	dir := t.TempDir()
	home, scratch := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	app := filepath.Join(scratch, "app")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(app, 0o755)
	l, err := net.Listen("unix", filepath.Join(app, "s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Chmod(app, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(app, 0o755) })
	p := &Policy{Home: home, Scratch: []string{scratch}}
	p.SearchSockets()
	if !slices.ContainsFunc(p.HostSockets, func(s string) bool { return Within(filepath.Join(app, "s"), s) }) {
		t.Errorf("a directory made unreadable by its owner left its socket uncovered: %q", p.HostSockets)
	}
}
