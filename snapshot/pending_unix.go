//go:build unix

package snapshot

import (
	"errors"
	"fmt"
	"github.com/cordonsh/cordon/internal/smallfile"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"

	"github.com/cordonsh/cordon/filelock"
)

// Pending saves: a shim that starts the continuous guard's saver for its
// command marks it in pending/WS/PID (PID the command's process, the
// file holding the saver's). The saver takes pending/WS.lock once that
// process has ended, saves, removes the mark, and lets go. The next
// command in the workspace waits ([Store.WaitPending]) only while a save
// is due: its command has ended and its saver still runs. A command
// still running (a server, the shell a nested one runs in) is not waited
// for.

func (s *Store) pendingDir(ws string) string {
	return filepath.Join(s.Dir, "pending", indexID(ws)[len("index-"):])
}

// SaverRole is the hidden argv[0] that makes cordon the continuous
// guard's saver (its arguments: see shim.SnapshotMain). The shim starts
// one per command; a session's manager starts one only when something
// in the workspace may have changed (docs/session.md).
const SaverRole = "cordon-snapshot"

// CountRound adds one to ws's count of rounds (see [Store.Rounds]); the
// caller holds ws's saving lock ([Store.LockPending]).
func (s *Store) CountRound(ws string) {
	file := s.pendingDir(ws) + ".rounds"
	os.WriteFile(file, []byte(strconv.Itoa(s.Rounds(ws)+1)), 0o600)
}

// Rounds is how many rounds of the continuous guard have run for ws
// (tests and benchmarks read it: a command that changes nothing starts
// none in a session).
func (s *Store) Rounds(ws string) int {
	data, _ := os.ReadFile(s.pendingDir(ws) + ".rounds")
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return n
}

// LastRound returns when ws's last round of the continuous guard began
// (it counts itself, [Store.CountRound], before it reads anything); ok
// is false when none ran.
func (s *Store) LastRound(ws string) (began time.Time, ok bool) {
	fi, err := os.Stat(s.pendingDir(ws) + ".rounds")
	if err != nil {
		return time.Time{}, false
	}
	sec, nsec := ctime(fi)
	return time.Unix(sec, nsec), true
}

// MarkPending records that saver will save ws after process pid, which
// started at pidStart ([platform.ProcessStart]; "": read now), ends.
func (s *Store) MarkPending(ws string, pid int, pidStart string, saver int) error {
	dir := s.pendingDir(ws)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	name := strconv.Itoa(pid) + "-" + pidStart
	if pidStart == "" {
		name = markName(pid)
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(markName(saver)), 0o600)
}

// markName names process pid as PID-START.
func markName(pid int) string {
	if pid == os.Getpid() {
		return selfMark()
	}
	return strconv.Itoa(pid) + "-" + platform.ProcessStart(pid)
}

// selfMark is this process's name as [markName] gives it (a session's
// manager marks itself after each command).
var selfMark = sync.OnceValue(func() string {
	return strconv.Itoa(os.Getpid()) + "-" + platform.ProcessStart(os.Getpid())
})

// parseMark reads PID-START.
func parseMark(s string) (int, string, bool) {
	p, start, _ := strings.Cut(s, "-")
	pid, err := strconv.Atoi(p)
	return pid, start, err == nil
}

// LockPending takes ws's saving lock: the saver holds it while it saves.
func (s *Store) LockPending(ws string) (func(), error) {
	dir := s.pendingDir(ws)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return filelock.Make(dir + ".lock")
}

// TryLockPending takes ws's saving lock when no one holds it, and
// reports whether it did: a session's manager holds it while it looks
// whether a round is due after all, so that the next command, waiting
// for that look's mark, waits on the lock instead of polling.
func (s *Store) TryLockPending(ws string) (func(), bool) {
	dir := s.pendingDir(ws)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false
	}
	f, err := os.OpenFile(dir+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	if !filelock.TryLock(f) {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

// DonePending removes the mark of pid, started at start.
func (s *Store) DonePending(ws string, pid int, start string) {
	os.Remove(filepath.Join(s.pendingDir(ws), strconv.Itoa(pid)+"-"+start))
}

// maxPendingWait bounds how long a command waits for the save of the one
// before it while its saver lives (a dead saver is not waited for): far
// more than a round takes on a machine under load, so that the command
// cannot destroy what the round has not kept yet; past it the command
// runs, and the store's log says so.
const maxPendingWait = 60 * time.Second

// WaitPending waits until the saves due for ws (their command ended,
// their saver runs) are done. Stale marks (the saver died) are removed.
// It returns at once when nothing is pending, the usual case.
func (s *Store) WaitPending(ws string) {
	dir := s.pendingDir(ws)
	// (Every command looks: through a bare descriptor.)
	names, err := smallfile.ReadDirNames(dir)
	if err != nil || len(names) == 0 {
		return
	}
	slices.Sort(names)
	deadline := time.Now().Add(maxPendingWait)
	defer func() {
		if !time.Now().Before(deadline) {
			s.Log(fmt.Sprintf("%s: a command did not wait longer for the save of the one before it (%v)", ws, maxPendingWait))
		}
	}()
	for _, name := range names {
		pid, start, ok := parseMark(name)
		if !ok || pid == os.Getpid() {
			continue
		}
		mark := filepath.Join(dir, name)
		for time.Now().Before(deadline) {
			data, err := os.ReadFile(mark)
			if err != nil {
				break // done
			}
			saver, saverStart, _ := parseMark(string(data))
			if !Running(saver, saverStart) {
				os.Remove(mark)
				break
			}
			if Running(pid, start) {
				break // its command still runs: not due
			}
			if unlock, err := filelock.Make(dir + ".lock"); err == nil {
				unlock()
			}
			if _, err := os.Stat(mark); err != nil {
				break
			}
			time.Sleep(time.Millisecond) // the saver has not woken yet
		}
	}
}

// Running reports whether the process pid that started at start (see
// [ProcessStart]; "" when unknown) still runs.
func Running(pid int, start string) bool {
	return alive(pid) && (start == "" || platform.ProcessStart(pid) == start)
}

// alive reports whether process pid exists and has not ended: a zombie
// no one reaps (a killed saver under an agent that is PID 1) answers a
// signal of 0 all the same, and waiting for it made every later command
// wait its 10 seconds.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return (err == nil || errors.Is(err, unix.EPERM)) && !platform.Zombie(pid)
}

// WaitExit returns when process pid, started at start, has ended.
func WaitExit(pid int, start string) {
	if waitPidfd(pid, start) {
		return
	}
	for Running(pid, start) {
		time.Sleep(20 * time.Millisecond)
	}
}
