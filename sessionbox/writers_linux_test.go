package sessionbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWritesPlaceUnseenNames: a process that maps a guarded file shared
// under a name no pattern matches (a hard link, removed since: its
// mapping is named "hl (deleted)"), or keeps the mapping in a thread
// after its leader exited (a zombie leader's maps and fd read empty),
// is found as one that writes the place (found by an attacker: both
// wrote core.fsmonitor unseen); one that maps another file is not.
func TestWritesPlaceUnseenNames(t *testing.T) {
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("python3 is not installed in /usr/bin")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	for _, f := range []string{config, filepath.Join(dir, "other")} {
		if err := os.WriteFile(f, []byte("[core]\n\tbare = false\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const mapper = "import ctypes, os, platform, sys, threading, time\n" +
		"libc = ctypes.CDLL(None, use_errno=True)\n" +
		"libc.mmap.restype = ctypes.c_void_p\n" +
		"libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]\n" +
		"def mapped(name):\n" +
		"    fd = os.open(name, os.O_RDWR)\n" +
		"    if name == 'hl': os.unlink('hl')\n" +
		"    libc.mmap(None, 8, 3, 1, fd, 0)\n" + // PROT_READ|PROT_WRITE, MAP_SHARED
		"    os.close(fd)\n" +
		"    print('ready', flush=True)\n"
	scripts := map[string]string{
		"hardlink":     mapper + "os.link('config', 'hl')\nmapped('hl')\ntime.sleep(30)\n",
		"exitedleader": mapper + "threading.Thread(target=time.sleep, args=(30,)).start()\nmapped('config')\nlibc.syscall(93 if platform.machine() in ('aarch64', 'arm64') else 60, 0)\n",
		"other":        mapper + "mapped('other')\ntime.sleep(30)\n",
	}
	for kind, script := range scripts {
		t.Run(kind, func(t *testing.T) {
			cmd := exec.Command(python, "-c", script)
			cmd.Dir = dir
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
				t.Fatalf("the mapper said %q", line)
			}
			pid := cmd.Process.Pid
			if kind == "exitedleader" && !zombie(pid) {
				t.Fatal("the mapper's leader did not exit alone")
			}
			pt := &placeTest{
				isPlace: func(p string) bool { return p == config },
				files:   func() []string { return []string{config} },
				ws:      dir,
			}
			place, ok := writesPlace(pid, pt)
			if want := kind != "other"; ok != want || ok && place != config {
				t.Errorf("writesPlace: %q, %v; want %v", place, ok, want)
			}
		})
	}
}

// zombie waits up to a second for process pid's leader to be a zombie.
func zombie(pid int) bool {
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(10 * time.Millisecond) {
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if strings.Contains(string(status), "\nState:\tZ") {
			return true
		}
	}
	return false
}
