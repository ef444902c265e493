package sessionbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/platform"
)

// The ticket taken early. A later command of a session waits, before it
// starts, for the session's manager to take the workspace's guard ticket
// (guard.HoldWatched: about a millisecond). Nothing of that needs the
// command: the manager takes the disk as it is as the trusted state when
// none is held. So a shim about to judge a command that may run in a
// session tells the manager first, by connecting to the session's
// second socket (the "prepare" socket, named from the session's secret,
// the agent and the workspace: what the shim knows before it resolves
// the policy), and the manager takes the ticket while the shim judges
// the command and resolves its policy.
//
// Sound because the ticket is the same ticket, taken the same way, a
// little earlier: its trusted state is the disk at that moment, as it
// would be at the command's connection; nothing of the session runs
// meanwhile (the manager gives the ticket back only when nothing a
// command left runs in the sandbox, and keeps it, untouched by a
// prepare, otherwise); what a person changes at a guarded place between
// the two moments is treated as what a person changes while a command
// runs (put back), for at most [prepareTimeout]: a command that comes
// later takes a ticket of its own. A ticket taken for a command that
// never comes (it was refused, or runs in another sandbox) is given back
// when the shim closes the connection (it does once its command
// started, or when it ends) or after prepareTimeout, putting nothing
// back ([guard.Drop]): nothing ran under it, and a person's edit
// meanwhile is theirs, as without it.

// prepareTimeout is how long a ticket taken early waits for its command:
// a command that comes later takes a ticket of its own (see serve), so
// that a person's edit made while a command is judged for longer (its
// reviewer asked, its snapshot saved) is theirs, as without the early
// ticket.
const prepareTimeout = 250 * time.Millisecond

// maxPrepared bounds the early connections a manager keeps at once.
const maxPrepared = 64

// prepared is this process's connection to a manager's prepare socket,
// or -1: closed once the command started, or when it did not.
var prepared = struct {
	sync.Mutex
	fd int
}{fd: -1}

// agentOnce is findAgent, once per process: the early ticket and the
// session's key both need it.
var agentOnce = sync.OnceValue(findAgent)

// Prepare tells the manager of the session a command with state
// directory stateDir, session name session ("" for the agent's) and
// workspace ws would run in, if there is one, that a command is coming:
// it takes the workspace's guard ticket now. It does nothing when no
// such session runs, or the command could not run in one (a terminal).
// It connects before it returns: the manager's ticket must be taken by
// the time the command connects (made beside the judgement, the
// connection came later on two cores, and the ticket was on the
// command's path: docs/performance.md). When no manager listens there,
// the command is likely to start a session: a manager's process is
// started now, carrying the agent's start since() gives, to be sent
// the session when the command starts it (early_linux.go).
func Prepare(stateDir, session, ws string, since func() int64) {
	if ws == "" || !filepath.IsAbs(stateDir) || platform.IsTerminal(0) || platform.IsTerminal(1) || platform.IsTerminal(2) {
		return
	}
	fd, none := dialPrepare(stateDir, session, ws)
	if none && since != nil {
		startEarly(since())
	}
	if fd < 0 {
		return
	}
	prepared.Lock()
	if prepared.fd >= 0 {
		unix.Close(prepared.fd)
	}
	prepared.fd = fd
	prepared.Unlock()
}

// dialPrepare connects to the prepare socket of the session [Prepare]
// names, or returns -1; none says that no manager listens there (no
// socket, or none accepting on it), for a session that could have one.
func dialPrepare(stateDir, session, ws string) (fd int, none bool) {
	dir := Dir(stateDir)
	secret, err := smallfile.ReadFile(filepath.Join(dir, "secret")) // made by the first command, checked then
	if err != nil || len(secret) != 32 {
		return -1, false
	}
	id, agent, ok := sessionID(session, agentOnce())
	if !ok {
		return -1, false
	}
	fd, err = dial(preparePath(dir, secret, id, agent, ws))
	if err != nil {
		return -1, errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED)
	}
	return fd, false
}

// unprepare closes the connection [Prepare] made, if any.
func unprepare() {
	// (A manager started early and not taken by now is not needed.)
	closeEarly()
	prepared.Lock()
	if prepared.fd >= 0 {
		unix.Close(prepared.fd)
		prepared.fd = -1
	}
	prepared.Unlock()
}

// sessionID is the session's id and its agent part, as the session's
// key holds them (see [Options.socket]), when they are known before
// the policy: false for a named session with no agent process.
func sessionID(session string, a *agentProc) (id, agent string, ok bool) {
	if a == nil {
		return "", "", false
	}
	agent = fmt.Sprintf("%d %s", a.Pid, a.Start)
	if session != "" {
		return "session " + session, agent, true
	}
	return "agent " + agent, agent, true
}

// preparePath is the prepare socket of the session id with agent part
// agent, in workspace ws, in the sessions' directory dir.
func preparePath(dir string, secret []byte, id, agent, ws string) string {
	h := sha256.New()
	fmt.Fprintf(h, "cordon prepare\n%x\n%d\n%s\n%s\n%s\n", secret, os.Geteuid(), id, agent, ws)
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil))[:24]+".pre")
}

// listenPrepare makes the manager's prepare socket, for this user alone,
// in place of any other manager's of the same name (the newest session
// of an agent in a workspace takes the early tickets). No socket is no
// error: commands then take their tickets when they connect.
func (m *manager) listenPrepare() {
	// (Made for a workspace with nothing guarded too, where it takes no
	// ticket: a shim that finds no manager listening starts one early.)
	if m.s.Prepare == "" {
		return
	}
	fd, err := listenUnix(m.s.Prepare, maxPrepared)
	if err != nil {
		return
	}
	var st unix.Stat_t
	if err := unix.Stat(m.s.Prepare, &st); err != nil {
		unix.Close(fd)
		return
	}
	m.pre, m.preIno = fd, st.Ino
}

// retakePrepare makes the prepare socket again when its name is not
// this manager's and no manager listens there: a newer session of the
// same agent in the workspace took it and has ended since (its socket
// removed, or left behind by a manager killed outright), and commands
// come to this one again (its key is theirs again). Without it their
// shims would find no manager listening, and each would start one early
// for nothing and take no early ticket.
func (m *manager) retakePrepare(prepares chan<- int) {
	if m.s.Prepare == "" {
		return
	}
	var st unix.Stat_t
	switch err := unix.Lstat(m.s.Prepare, &st); {
	case err == nil && m.pre >= 0 && st.Ino == m.preIno:
		return // (its own)
	case err == nil:
		// Another's: taken back only when no one listens on it.
		fd, err := dial(m.s.Prepare)
		if err == nil {
			unix.Close(fd)
			return
		}
		if !errors.Is(err, unix.ECONNREFUSED) {
			return
		}
	case !errors.Is(err, unix.ENOENT):
		return
	}
	if m.pre >= 0 {
		// (Its accept loop closes it: see acceptPrepares.)
		unix.Shutdown(m.pre, unix.SHUT_RDWR)
		m.pre = -1
	}
	m.listenPrepare()
	if m.pre >= 0 {
		go m.acceptPrepares(m.pre, prepares)
	}
}

// closePrepare removes the prepare socket, unless another manager's
// took its name since.
func (m *manager) closePrepare() {
	if m.pre < 0 {
		return
	}
	var st unix.Stat_t
	if unix.Stat(m.s.Prepare, &st) == nil && st.Ino == m.preIno {
		os.Remove(m.s.Prepare)
	}
	// (Shut down: an accept blocked on it returns, and its loop closes
	// it, see acceptPrepares.)
	unix.Shutdown(m.pre, unix.SHUT_RDWR)
	m.pre = -1
}

// acceptPrepares passes each connection to the prepare socket pre from
// a process of this user outside every sandbox to prepares, until the
// socket is shut down; then it closes pre. It alone closes it: closed by
// another goroutine while this one was on its way back to its accept
// (waiting for serve to take a connection), its number could be another
// socket's by then, whose connections this loop would take.
func (m *manager) acceptPrepares(pre int, prepares chan<- int) {
	for {
		conn, _, err := unix.Accept4(pre, unix.SOCK_CLOEXEC)
		if err == unix.EINTR || err == unix.ECONNABORTED {
			continue
		}
		if err != nil {
			unix.Close(pre)
			return
		}
		if _, ok := m.outside(conn); !ok {
			unix.Close(conn)
			continue
		}
		prepares <- conn
	}
}

// prepare takes the ticket early for a shim connected to the prepare
// socket (conn), and has unprepared told when that shim closes the
// connection or prepareTimeout passes.
func (m *manager) prepare(conn int, running int, unprepared chan<- int) {
	if len(m.prepared) >= maxPrepared {
		unix.Close(conn)
		return
	}
	if m.guarded && !m.held && running <= 0 {
		if m.since.IsZero() {
			m.since = time.Now()
		}
		if m.hold() == nil && m.held {
			m.heldEarly, m.earlyAt = true, time.Now()
		}
	}
	m.prepared[conn] = true
	go func() {
		fds := []unix.PollFd{{Fd: int32(conn), Events: unix.POLLIN}}
		deadline := time.Now().Add(prepareTimeout)
		for {
			_, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds())+1)
			if err != unix.EINTR || !time.Now().Before(deadline) {
				break
			}
		}
		unprepared <- conn
	}()
}

// unprepare closes a prepare connection that ended or timed out, and
// gives back the ticket taken early when no command came for it and no
// other shim waits with one.
func (m *manager) unprepare(conn int, running int) {
	delete(m.prepared, conn)
	unix.Close(conn)
	if len(m.prepared) == 0 && m.heldEarly && running <= 0 {
		m.dropEarly()
	}
}

// dropEarly gives back the ticket taken early that no command took,
// putting nothing back ([guard.Drop]): nothing of the session ran under
// it, so what changed at the guarded places meanwhile is a person's, as
// it would have been without the ticket. Should something run in the
// sandbox all the same, it is given back as after a command
// ([manager.release]).
func (m *manager) dropEarly() {
	m.heldEarly = false
	if !m.held {
		return
	}
	// (A process of the manager's own on its way out, a saver, may
	// count for a moment, as in release.)
	left := m.counted && m.leftRunning()
	for i := 0; i < 10 && left; i++ {
		time.Sleep(5 * time.Millisecond)
		left = m.leftRunning()
	}
	if left {
		m.release()
		return
	}
	m.since = time.Time{}
	lines, _ := guard.Drop(m.s.StateDir, m.s.Policy.Workspace)
	guard.KeepLines(m.s.StateDir, m.s.Policy.Workspace, lines)
	m.held = false
}
