package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWatchBetweenMappedWrite: a write through a shared mapping of
// .git/config makes no inotify event (and on tmpfs moves no time on),
// so the watch between commands saw none, and the core.fsmonitor a
// process left running wrote so stayed for the person's git status
// (found by an attacker). The watch looks at the guarded files
// themselves: put back within a second.
func TestWatchBetweenMappedWrite(t *testing.T) {
	p, state := bareWorkspace(t)
	config := filepath.Join(p.Workspace, ".git/config")
	before, err := os.ReadFile(config)
	if err != nil || len(before) < 40 {
		t.Fatalf("%s: %v (%d bytes)", config, err, len(before))
	}
	// Mapped before the watch starts: its descriptor's close (an event)
	// is over by then.
	fd, err := unix.Open(config, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(fd, 0, len(before), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	b := WatchBetween(state, p, time.Now())
	defer b.Stop()
	time.Sleep(100 * time.Millisecond)
	plant := "[core]\n\tfsmonitor = \"touch pwned\"\n#"
	copy(m, plant)
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(20 * time.Millisecond) {
		if now, _ := os.ReadFile(config); string(now) == string(before) {
			return
		}
	}
	now, _ := os.ReadFile(config)
	if strings.Contains(string(now), "fsmonitor") {
		t.Errorf("a .git/config written through a shared mapping stayed a second:\n%s", now)
	} else {
		t.Errorf(".git/config is neither as it was nor the plant:\n%s", now)
	}
}
