package platform

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestKeeperHere: only a link named as the keeper to this very binary
// is a keeper this process may go on as.
func TestKeeperHere(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, target string
		want         bool
	}{
		{KeeperRole, self, true},
		{"cordon-other", self, false},
		{KeeperRole, "/bin/sh", false},
	} {
		link := filepath.Join(dir, c.name+"-"+filepath.Base(c.target), c.name)
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(c.target, link); err != nil {
			t.Fatal(err)
		}
		if got := keeperHere(link); got != c.want {
			t.Errorf("keeperHere(%s -> %s) = %v, want %v", c.name, c.target, got, c.want)
		}
	}
	if keeperHere(filepath.Join(dir, "gone", KeeperRole)) {
		t.Error("a missing keeper is here")
	}
}

// TestSetEnviron: the environment becomes exactly the one given.
func TestSetEnviron(t *testing.T) {
	old := os.Environ()
	t.Cleanup(func() { setEnviron(old) })
	os.Setenv("CORDON_T_KEEP", "1")
	os.Setenv("CORDON_T_CHANGE", "old")
	os.Setenv("CORDON_T_GONE", "x")
	want := append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return kv == "CORDON_T_GONE=x" || kv == "CORDON_T_CHANGE=old"
	}), "CORDON_T_CHANGE=new=1", "CORDON_T_NEW=")
	setEnviron(want)
	got := os.Environ()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("environment %q, want %q", got, want)
	}
}

// TestThreadsHoldNone: a process whose threads hold capabilities (root
// on the host) is told apart from one whose threads hold none.
func TestThreadsHoldNone(t *testing.T) {
	c, err := threadCaps()
	if err != nil {
		t.Fatal(err)
	}
	var bounding bool
	for i := 0; i <= lastCap(); i++ {
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(i), 0, 0, 0); err == nil && in == 1 {
			bounding = true
		}
	}
	err = threadsHoldNone()
	if want := c.any() || bounding; (err != nil) != want {
		t.Errorf("threadsHoldNone: %v, want an error: %v", err, want)
	}
}
