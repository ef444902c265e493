//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSessionLandlockHomeMountReplaced: a file system mounted on a
// directory of the home and mounted again (an sshfs or rclone mount
// after the network came back: a new device) leaves the home's listing
// and times as they were, but the directory is another one: the
// Landlock session made while the first mount was there grants the old
// one, so its commands cannot read the new one. The session's key sees
// it (the directory's identity), and so must its kept listings, even
// when the home has not changed for longer than their margin.
func TestSessionLandlockHomeMountReplaced(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	r := newSessionRig(t, "landlock")
	mnt := filepath.Join(r.home, "remote")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	mount := func(what string) {
		t.Helper()
		if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "mode=0755"); err != nil {
			t.Skipf("cannot mount a tmpfs: %v", err)
		}
		if err := os.WriteFile(filepath.Join(mnt, "f"), []byte(what), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mount("one\n")
	t.Cleanup(func() {
		for unix.Unmount(mnt, unix.MNT_DETACH) == nil {
		}
	})
	if out, errs, _ := r.sh("cat ~/remote/f"); out != "one\n" {
		t.Fatalf("the mounted directory is not readable in the session: %q %s", out, errs)
	}
	// The home's stamp older than the listings' margin: the next
	// command keeps its listing.
	time.Sleep(3500 * time.Millisecond)
	if out, errs, _ := r.sh("cat ~/remote/f"); out != "one\n" {
		t.Fatalf("the mounted directory is not readable in the session: %q %s", out, errs)
	}
	if err := unix.Unmount(mnt, 0); err != nil {
		t.Fatal(err)
	}
	mount("two\n")
	if out, errs, _ := r.sh("cat ~/remote/f"); out != "two\n" {
		t.Errorf("the directory mounted again in the home is not readable in the session: %q %s", out, errs)
	}
}
