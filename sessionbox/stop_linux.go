package sessionbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// Stop ends every session sandbox of this user (cordon sandbox --stop)
// and everything running in them, and returns how many there were.
func Stop(stateDir string) (int, error) {
	pidFiles, err := filepath.Glob(filepath.Join(Dir(stateDir), "*.sock.pid"))
	if err != nil {
		return 0, err
	}
	type proc struct {
		pid   int
		start string
	}
	var stopped []proc
	for _, f := range pidFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		ps, start, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
		pid, err := strconv.Atoi(ps)
		if err != nil || pid <= 1 || start == "" || platform.ProcessStart(pid) != start || !isManager(pid) {
			continue
		}
		if unix.Kill(pid, unix.SIGTERM) == nil {
			stopped = append(stopped, proc{pid, start})
		}
	}
	// Done when every manager has ended (it kills its sandbox first).
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		alive := false
		for _, p := range stopped {
			alive = alive || platform.ProcessStart(p.pid) == p.start
		}
		if !alive {
			break
		}
	}
	return len(stopped), nil
}

// isManager reports whether process pid is a session manager.
func isManager(pid int) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	return argv0 == ManagerRole
}
