package platform

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestScreenFD: what becomes of each kind of descriptor a caller leaves
// to a sandboxed command (see inherit_linux.go).
func TestScreenFD(t *testing.T) {
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string) string {
		if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	open := func(path string, flags int) int {
		fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		return fd
	}
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pipe[0])
	defer unix.Close(pipe[1])
	for _, c := range []struct {
		name string
		fd   int
		want fdVerdict
	}{
		{"a directory", open(outside, unix.O_RDONLY|unix.O_DIRECTORY), fdNull},
		{"the workspace", open(ws, unix.O_RDONLY|unix.O_DIRECTORY), fdNull},
		{"an O_PATH directory", open(outside, unix.O_PATH), fdNull},
		{"an O_PATH file", open(write(filepath.Join(ws, "f")), unix.O_PATH), fdNull},
		{"a file of the workspace, read-only", open(filepath.Join(ws, "f"), unix.O_RDONLY), fdPass},
		{"a file outside, read-only", open(write(filepath.Join(outside, "f")), unix.O_RDONLY), fdPass},
		{"a file outside, for writing", open(filepath.Join(outside, "f"), unix.O_WRONLY), fdPass},
		{"a pipe", pipe[0], fdPass},
		{"/dev/null", open(os.DevNull, unix.O_RDONLY), fdPass},
	} {
		if got, _ := screenFD(c.fd); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	fd := open(outside, unix.O_PATH)
	if err := nullAt(fd); err != nil {
		t.Fatal(err)
	}
	if link, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); link != os.DevNull {
		t.Errorf("an O_PATH descriptor replaced by %s, want /dev/null", link)
	}
	if fl, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); fl&unix.O_ACCMODE != unix.O_RDONLY {
		t.Errorf("/dev/null in its place is not read-only: flags %o", fl)
	}
}
