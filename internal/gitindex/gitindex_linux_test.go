package gitindex

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/internal/filestamp"
	"golang.org/x/sys/unix"
)

// TestGitlinksMappedWrite: the answer kept for an index is not given
// once a process that holds it mapped for writing changed it through
// pages it had dirtied already, which leaves its stamp as it was (a
// long-lived process, a session's manager, asks at every command).
func TestGitlinksMappedWrite(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", "git init -q && git update-index --add --cacheinfo 160000,"+strings.Repeat("cd", 20)+",sub")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	index := filepath.Join(dir, ".git", "index")
	f, err := os.OpenFile(index, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	const mode = 12 + 24 // the first entry's mode
	binary.BigEndian.PutUint32(m[mode:], 0o100644)
	time.Sleep(filestamp.Margin + 100*time.Millisecond) // old enough for a stamp
	if got, err := Gitlinks(index); err != nil || len(got) != 0 {
		t.Fatalf("gitlinks %q, %v; want none", got, err)
	}
	binary.BigEndian.PutUint32(m[mode:], 0o160000)
	if got, err := Gitlinks(index); err != nil || !slices.Equal(got, []string{"sub"}) {
		t.Errorf("after a write through a mapping: gitlinks %q, %v; want [sub]", got, err)
	}
}
