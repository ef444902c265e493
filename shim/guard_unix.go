//go:build unix

package shim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/cordonsh/cordon/snapshot"
)

// startGuard starts the guard's saver for this command (see [GuardRole])
// when the workspace is a git repository and the settings leave the
// guard on. It is detached: its own session, no standard streams, so
// that nothing waits for it and it prints nothing; this process's pid,
// which the command keeps once the shell is exec'd, tells it when the
// command has ended.
func (r *run) startGuard(store *snapshot.Store, c *Confinement, dir, id, command string, start time.Time) {
	ws := c.Workspace.Dir
	if ws == "" || !c.Settings.Snapshots.ContinuousOn() {
		return
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err != nil {
		return
	}
	self, err := executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, GuardRole, ws, strconv.Itoa(os.Getpid()), strconv.FormatInt(start.UnixNano(), 10), id, dir, command)
	cmd.Args[0] = "cordon" // the command line's role, whatever the binary's name
	cmd.Env, cmd.Dir = r.env, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() != nil {
		return
	}
	store.MarkPending(ws, os.Getpid(), cmd.Process.Pid)
	cmd.Process.Release()
}
