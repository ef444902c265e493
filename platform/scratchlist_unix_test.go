//go:build unix

package platform

import (
	"os"
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
