package smallfile

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileLongProcStatus: a /proc file far larger than a first read
// (the status of a process in 2,000 groups, some 12 KB) is read whole,
// as os.ReadFile reads it: the seccomp filters a session counts come
// after the groups.
func TestReadFileLongProcStatus(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a process 2,000 groups")
	}
	groups := make([]uint32, 2000)
	for i := range groups {
		groups[i] = uint32(100000 + i)
	}
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 0, Gid: 0, Groups: groups}}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	name := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	// (Once it runs sleep: before, it is Go's child setting up.)
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		if data, _ := os.ReadFile(name); strings.HasPrefix(string(data), "Name:\tsleep\n") {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the process did not start sleep")
		}
	}
	got, err := ReadFile(name)
	want, werr := os.ReadFile(name)
	if err != nil || werr != nil {
		t.Fatal(err, werr)
	}
	if len(want) < 8192 || !strings.Contains(string(got), "Seccomp_filters:") || !bytes.Equal(stable(got), stable(want)) {
		t.Errorf("%s: %d bytes (os.ReadFile: %d)\n%s", name, len(got), len(want), got[:min(len(got), 300)])
	}
}

// stable is a status with only the values that do not change while a
// process sleeps: its field names, and its groups.
func stable(status []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(status), "\n") {
		name, _, _ := strings.Cut(l, ":")
		if name == "Groups" {
			name = l
		}
		out = append(out, name)
	}
	return []byte(strings.Join(out, "\n"))
}
