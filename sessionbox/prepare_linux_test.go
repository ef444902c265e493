package sessionbox

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRetakePrepare: a manager makes its prepare socket again when a
// newer manager of the same agent and workspace took the name and then
// ended, whether it removed its socket or was killed and left it with
// no one listening (found by this round's attacker: the name was there,
// so nothing was done, and every later shim of the session started a
// manager early for nothing); it leaves alone a name another manager
// still listens on, and its own.
func TestRetakePrepare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prep")
	a := &manager{pre: -1, prepared: map[int]bool{}}
	a.s.Prepare = path
	a.listenPrepare()
	if a.pre < 0 {
		t.Fatal("no prepare socket")
	}
	// As serve does: the accept loop owns the descriptor, and closes it
	// once its socket is shut down (by a retake, or at the end).
	prepares := make(chan int, 8)
	go a.acceptPrepares(a.pre, prepares)
	t.Cleanup(a.closePrepare)
	listens := func(why string) {
		t.Helper()
		fd, err := dial(path)
		if err != nil {
			t.Fatalf("%s: %v", why, err)
		}
		unix.Close(fd)
	}
	ownIno := a.preIno
	a.retakePrepare(prepares)
	if a.preIno != ownIno {
		t.Errorf("its own socket was made again")
	}

	// A newer manager's, listening: left alone.
	b, err := listenUnix(path, maxPrepared)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	unix.Lstat(path, &st)
	a.retakePrepare(prepares)
	var now unix.Stat_t
	if unix.Lstat(path, &now) != nil || now.Ino != st.Ino {
		t.Errorf("a name another manager listens on was taken")
	}
	// That manager killed outright: its socket stays, no one listens.
	unix.Close(b)
	a.retakePrepare(prepares)
	listens("after a newer manager was killed")

	// Removed by a newer manager's end.
	b, err = listenUnix(path, maxPrepared)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(b)
	if err := unix.Unlink(path); err != nil {
		t.Fatal(err)
	}
	a.retakePrepare(prepares)
	listens("after the name was removed")
}
