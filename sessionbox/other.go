//go:build !linux

package sessionbox

import (
	"errors"
	"os"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// Options are one command to run in its session's sandbox.
type Options struct {
	Backend   platform.Backend
	Policy    *platform.Policy
	Since     func() int64
	StateDir  string
	Path      string
	Argv, Env []string
	Session   string
	Workspace string
	Idle      time.Duration
	Round     *Round
}

// Prepare does nothing: sessions need Linux.
func Prepare(stateDir, session, ws string, since func() int64) {}

// Discard does nothing: sessions need Linux.
func Discard() {}

// Exec returns at once: sessions need Linux.
func Exec(o *Options) error { return errors.New("sessions need Linux") }

// Dir is the directory of the sessions' sockets in state directory
// stateDir.
func Dir(stateDir string) string { return platform.SessionsDir(stateDir) }

// ManagerMain is the session manager, which only Linux has.
func ManagerMain(args []string) int { return linuxOnly() }

// KeeperMain is the session keeper, which only Linux has.
func KeeperMain(args []string) int { return linuxOnly() }

// Stop does nothing outside Linux.
func Stop(stateDir string) (int, error) { return 0, nil }

func linuxOnly() int {
	os.Stderr.WriteString("cordon: session sandboxes run on Linux only\n")
	return 126
}
