//go:build unix

package shim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/snapshot"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/sessionbox"
)

// startGuard starts the guard's saver for this command (see [SnapshotRole])
// when the workspace is a git repository and the settings leave the
// guard on. It is detached: its own session, no standard streams, so
// that nothing waits for it and it prints nothing; this process's pid,
// which the command keeps once the shell is exec'd, tells it when the
// command has ended.
func (r *run) startGuard(store *snapshot.Store, c *decide.Confinement, dir, id, command string, start time.Time) {
	ws, ok := guardOn(c)
	if !ok {
		return
	}
	self, err := decide.Executable()
	if err != nil {
		return
	}
	// The file clock now, before the command can change anything: what
	// changed before it is a person's (see preRound).
	clock, err := store.FileClock()
	if err != nil {
		return
	}
	cmd := exec.Command(self, ws, strconv.Itoa(os.Getpid()), platform.ProcessStart(os.Getpid()), strconv.FormatInt(start.UnixNano(), 10), id, dir, command, strconv.FormatInt(clock.UnixNano(), 10))
	cmd.Args[0] = SnapshotRole // the hidden role, chosen by argv[0] as every role is
	cmd.Env, cmd.Dir = r.env, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if startClosed(cmd) != nil {
		return
	}
	store.MarkPending(ws, os.Getpid(), "", cmd.Process.Pid)
	cmd.Process.Release()
}

// guardOn returns the workspace of c when the continuous guard keeps it:
// a git workspace, the settings leaving the guard on.
func guardOn(c *decide.Confinement) (string, bool) {
	ws := c.Workspace.Dir
	if ws == "" || !c.Settings.Snapshots.ContinuousOn() {
		return "", false
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err != nil {
		return "", false
	}
	return ws, true
}

// session is the round for the session's manager to start after the
// command when something may have changed (see package sessionbox); nil
// when the guard keeps nothing here.
func (g *guardRound) session() *sessionbox.Round {
	if g == nil {
		return nil
	}
	ws, ok := guardOn(g.c)
	if !ok {
		return nil
	}
	r := g.run
	return &sessionbox.Round{Workspace: ws, Snapshot: r.saved, Dir: r.ctx.Dir, Command: r.command, Start: r.start.UnixNano(), Env: r.env, Budgets: g.store.Budgets}
}

// startClosed starts cmd without the descriptors this process inherited
// for the real shell (a pipe the agent waits on must not stay open in the
// saver): they are marked close-on-exec for the moment of the start.
func startClosed(cmd *exec.Cmd) error {
	var marked []int
	des, _ := os.ReadDir(fdDir)
	for _, d := range des {
		fd, err := strconv.Atoi(d.Name())
		if err != nil || fd < 3 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC); err == nil {
			marked = append(marked, fd)
		}
	}
	err := cmd.Start()
	for _, fd := range marked {
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags&^unix.FD_CLOEXEC)
		}
	}
	return err
}
