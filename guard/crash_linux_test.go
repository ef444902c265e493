package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLedgerSurvivesCrash: a ledger saved a few seconds before the
// machine stops is, after the restart, the one saved or the one before
// it, never an empty file, which the guard takes for a damaged ledger
// (the guarded places trusted as they are: a hook planted by the
// command that ran then kept). The stop is simulated: an ext4 file
// system on a loop device, its blocks copied once its journal has
// committed (while the file's own data still waits for the writeback,
// up to 30 s), then mounted.
func TestLedgerSurvivesCrash(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: a loop device")
	}
	for _, tool := range []string{"mkfs.ext4", "losetup", "mount", "umount", "dd", "findmnt"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// mountImage mounts the file system in img at mnt; with opts, a new
	// one made there.
	mountImage := func(img, mnt string, opts ...string) {
		t.Helper()
		if len(opts) > 0 {
			if err := os.WriteFile(img, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			os.Truncate(img, 64<<20)
			run("mkfs.ext4", "-q", "-F", img)
		}
		loop, err := exec.Command("losetup", "-f", "--show", img).Output()
		if err != nil {
			t.Skipf("no loop device: %v", err)
		}
		dev := strings.TrimSpace(string(loop))
		t.Cleanup(func() { exec.Command("losetup", "-d", dev).Run() })
		os.Mkdir(mnt, 0o700)
		run(append(append([]string{"mount"}, opts...), dev, mnt)...)
		t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	}
	img, mnt := filepath.Join(dir, "fs.img"), filepath.Join(dir, "mnt")
	mountImage(img, mnt, "-o", "commit=1")
	state, ws := filepath.Join(mnt, "state"), t.TempDir()
	save := func(pid int) {
		t.Helper()
		b, err := open(state, ws, true)
		if err != nil {
			t.Fatal(err)
		}
		b.l.Active = []ticket{{Pid: pid, Start: "1"}}
		if err := b.save(); err != nil {
			t.Fatal(err)
		}
		b.close()
	}
	save(1)
	if fd, err := unix.Open(mnt, unix.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
		unix.Syncfs(fd)
		unix.Close(fd)
	}
	save(2)
	time.Sleep(3 * time.Second) // the journal commits (commit=1)
	dev := run("findmnt", "-n", "-o", "SOURCE", mnt)
	copied := filepath.Join(dir, "copy.img")
	run("dd", "if="+dev, "of="+copied, "bs=1M", "iflag=direct", "status=none")
	after := filepath.Join(dir, "after")
	mountImage(copied, after)
	file := filepath.Join(after, "state", "guard", filepath.Base(ledgerFile(state, ws)))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	l, _, ok := decodeLedger(ws, data, nil)
	if !ok || len(l.Active) != 1 {
		t.Fatalf("after the crash the ledger holds %d bytes (%q): damaged", len(data), data)
	}
}
