package sessionbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/audit"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/internal/wire"
	"github.com/cordonsh/cordon/netproxy"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/snapshot"
)

// A spec is what the shim tells the manager it starts, as one line (package wire)
// on descriptor 3; the manager answers "ok", "busy" (another manager
// holds the session) or "error MESSAGE" on the same socket.
type spec struct {
	Backend    string           `json:"backend"`
	Policy     *platform.Policy `json:"policy"`
	StateDir   string           `json:"state_dir"`
	Socket     string           `json:"socket"`
	Env        []string         `json:"env"` // the keeper's
	Agent      int              `json:"agent"`
	AgentStart string           `json:"agent_start"`
	Idle       time.Duration    `json:"idle"`
	// BrokerKey makes the placeholders of the session's credentials
	// (the same for every command), Secrets are the first command's
	// values ([platform.Policy.Secrets]).
	BrokerKey []byte   `json:"broker_key,omitempty"`
	Secrets   []string `json:"secrets,omitempty"`
	// Prepare is the session's prepare socket (see prepare_linux.go),
	// "" for none.
	Prepare string `json:"prepare,omitempty"`
}

// A manager is one session's sandbox, from the host.
type manager struct {
	s       spec
	ctl     int            // the control socket to the keeper
	lis     int            // the listening socket
	agent   int            // the agent's pidfd, or -1
	guarded bool           // the workspace has guarded places
	held    bool           // this process holds a ticket in the workspace's ledger
	between *guard.Between // the watch of the guarded places while no command runs ([guard.WatchBetween])
	// ending says why the session must end now (what a command left
	// running could write a place the host runs from unseen): serve
	// returns, and the next command says why.
	ending  string
	changes *guard.Changes // what may have changed below the workspace's root, for the session's life
	since   time.Time      // the start of the first command since the last watch or release
	// early is what the first command's round start keeps, found while
	// the sandbox started ([manager.walkEarly]), or nil.
	early *earlyWalk
	// base are the processes below this one with no command running
	// (bwrap, the keeper, the network's forwarder), by pid and start.
	base map[int]string
	// root is bwrap's process, below which every process of its
	// sandbox is (its pid namespace's first is bwrap's child, and the
	// namespace ends with it: --die-with-parent); 0 for Landlock's,
	// whose orphans become this process's children.
	root int
	// started is closed once the keeper said its first word, or could
	// not (startErr): the first command waits for it, not the shim that
	// starts the session (see serve).
	started  chan struct{}
	startErr error
	counted  bool              // base is counted
	self     map[string]string // this process's namespaces
	filters  int               // this process's seccomp filters
	// broker serves the session's credentials, nil when it brokers none
	// (brokerErr says why, when it should have).
	broker    *platform.Brokerage
	brokerErr error
	// The continuous guard's rounds (rounds_linux.go): the commands
	// whose round is this manager's, by the number of their connection
	// to the keeper (seq, the last one), and the savers running.
	commands map[int]*command
	seq      int
	// ends are the running commands' shims, by the number of their
	// connection to the keeper, until their end is answered
	// ([manager.answer]).
	ends     map[int]shimEnd
	saversMu sync.Mutex
	savers   map[int]bool
	// The ticket taken early (prepare_linux.go): the prepare socket, or
	// -1, and its inode (to remove only its own); the shims connected
	// to it; whether the ticket was taken for one of them and no command
	// came since, and when.
	pre       int
	preIno    uint64
	prepared  map[int]bool
	heldEarly bool
	earlyAt   time.Time
	// rechecked are the files kept while changing that were read again
	// and found as kept (see [snapshot.Store.KeptChanged]).
	rechecked snapshot.Rechecked
}

// A shimConn is a shim's connection, checked, with what it said first.
type shimConn struct {
	fd    int
	round *Round
	token string
	pid   int // the shim's
}

// ManagerMain is the session's manager; args are [ManagerRole]. Its
// socket to the shim that started it is descriptor 3.
func ManagerMain(args []string) int {
	// Nothing of the agent's (its pipes) may stay open here.
	for _, fd := range guard.InheritedFDs() {
		if fd > 3 {
			unix.Close(fd)
		}
	}
	// Its connection to the shim is its own: not bwrap's, nor the
	// keeper's and every command's after it (found by this round's
	// attacker: fd 3 of every command of a bwrap session was this).
	unix.CloseOnExec(3)
	// Its one argument is the agent's start it carries for the shims of
	// its sandbox (platform.CarriedArg), read by them from /proc.
	if len(args) != 2 || !platform.IsCarriedArg(args[1]) {
		os.Stderr.WriteString("cordon: the session manager is started by cordon itself, not by hand\n")
		return 126
	}
	shim := os.NewFile(3, "shim")
	line, err := bufio.NewReader(shim).ReadBytes('\n')
	if err != nil {
		return 126
	}
	m := &manager{ctl: -1, lis: -1, pre: -1, agent: -1, prepared: map[int]bool{}}
	if err := wire.Decode(line, &m.s); err != nil || m.s.Policy == nil {
		fmt.Fprintf(shim, "error the session manager got a bad request (%v)\n", err)
		return 126
	}
	// Started with no environment (early_linux.go): the spec's is its own.
	adoptEnv(m.s.Env)
	lock, err := m.lock()
	if err != nil {
		fmt.Fprintf(shim, "%s\n", err)
		return 1
	}
	defer lock.Close()
	// What ended sessions' and commands' killed proxies left behind.
	platform.CleanProxies(m.s.StateDir)
	// The caches' layers of workspaces unused for a month (removing
	// them may take a while: not in the session's way).
	go platform.CleanLayers(m.s.StateDir)
	go guard.CleanLedgers(m.s.StateDir)
	// It opens the workspace's ledger at every command's start and end.
	guard.KeepLedgersInMemory()
	if err := m.setup(); err != nil {
		m.shutdown()
		fmt.Fprintf(shim, "error %s\n", oneLine(err.Error()))
		return 1
	}
	shim.WriteString("ok\n")
	shim.Close()
	m.serve()
	m.shutdown()
	return 0
}

var errBusy = errors.New("busy")

// lock takes the session's lock file for the manager's life; errBusy
// when another manager holds it.
func (m *manager) lock() (*os.File, error) {
	f, err := os.OpenFile(m.s.Socket+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("error cannot make the session's lock: %v", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, errBusy
	}
	return f, nil
}

// setup makes the sandbox with the keeper in it, and the socket.
func (m *manager) setup() error {
	p := m.s.Policy
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("cannot adopt what the session leaves behind: %v", err)
	}
	if m.s.Agent > 0 {
		fd, err := unix.PidfdOpen(m.s.Agent, 0)
		if err != nil || platform.ProcessStart(m.s.Agent) != m.s.AgentStart {
			return errors.New("the agent process has ended")
		}
		m.agent = fd
	}
	var err error
	if m.self, m.filters, err = identity(os.Getpid()); err != nil {
		return err
	}
	if p.Workspace != "" && len(p.Guarded) > 0 {
		if err := guard.CheckStateDir(p, m.s.StateDir); err != nil {
			return err
		}
		m.guarded = true
		// The watch of the workspace the first command's ticket starts
		// ([manager.hold]) starts now instead: its first walk, which the
		// first command's end waits for, runs while bwrap makes the
		// sandbox. From now on, before the first command's start: what
		// changes in between counts as changed too.
		m.changes = guard.WatchChanges(p, time.Now())
		m.early = m.walkEarly()
	}
	platform.NetRefused = func(p *platform.Policy, r *netproxy.Refusal) {
		(&audit.Log{Dir: m.s.StateDir}).Append(audit.NetworkRefusal(p.Workspace, m.s.Backend, r))
	}
	b, err := platform.Sandbox(m.s.Backend, p, m.s.StateDir)
	if err != nil {
		return err
	}
	p.SetSecrets(m.s.Secrets)
	if platform.Brokers(b, p) {
		bk, err := platform.NewBrokerage(m.s.StateDir, m.s.BrokerKey)
		if err == nil {
			err = bk.Check(p)
		}
		if err != nil {
			// Then the start brokers nothing either: the variables stay
			// withheld.
			m.brokerErr = err
			p.Credentials, p.TokenFiles = nil, nil
			p.SetSecrets(nil)
		} else {
			m.broker = bk
			p.SetBrokerage(bk)
		}
	}
	link, err := keeperLink(m.s.StateDir)
	if err != nil {
		return err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	m.ctl = pair[0]
	// The keeper's end is inherited at its own number (nothing else is
	// started meanwhile).
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	unix.FcntlInt(uintptr(pair[1]), unix.F_SETFD, 0)
	child, err := platform.StartIn(b, 0, link, []string{link, strconv.Itoa(pair[1])}, m.s.Env, null)
	if err != nil {
		unix.Close(pair[1])
		null.Close()
		return err
	}
	// This process's copies go once bwrap got past its set-up: started
	// again (a directory in /tmp gone meanwhile), it passes them once
	// more, and a keeper without its end ended the session before its
	// first command (agent.txtar's two sessions were one in CI).
	go func() {
		<-child.Settled()
		unix.Close(pair[1])
		null.Close()
	}()
	if b.Name() == platform.BackendBwrap {
		m.root = child.Pid()
	}
	// The keeper's first word is waited for by the first command, not
	// here: the shim connects, and the command's ticket is taken, while
	// bwrap makes the sandbox.
	m.started = make(chan struct{})
	return m.listen()
}

// keeperStarted waits for the keeper's first word ([manager.ready],
// read once by serve) and then counts the processes of the sandbox with
// no command running, before the first command is given to the keeper.
func (m *manager) keeperStarted() error {
	<-m.started
	if m.startErr != nil {
		return m.startErr
	}
	if !m.counted {
		m.base = map[int]string{}
		for _, pid := range m.inSandbox() {
			m.base[pid] = platform.ProcessStart(pid)
		}
		m.counted = true
	}
	return nil
}

// inSandbox lists the processes of the session's sandbox below this
// one: those under more seccomp filters than this process (both
// sandboxes add one), not this process's own helpers (the guard's git,
// which judges a configuration file while a command ends). Orphans of
// the Landlock sandbox become this process's children, and count; a
// bwrap sandbox's are all below bwrap's process, where the look starts
// (this process's own threads, a dozen, are not asked for children).
func (m *manager) inSandbox() []int {
	return slices.DeleteFunc(m.below(), func(pid int) bool { return !m.sandboxed(pid) })
}

// below lists the processes below this one where the sandbox's are
// looked for (see [manager.inSandbox]).
func (m *manager) below() []int {
	root := m.root
	if root <= 0 {
		root = os.Getpid()
	}
	return guard.Descendants(root)
}

// sandboxed reports whether process pid is under more seccomp filters
// than this process: one of the sandbox's. One whose filters cannot be
// read counts as one.
func (m *manager) sandboxed(pid int) bool {
	filters, err := seccompFilters(pid)
	return err != nil || filters > m.filters
}

// leftRunning reports whether a process of the sandbox runs that was
// not there at rest: something a command left. By the processes
// themselves, not their count: a command that ended one of the
// sandbox's own (the forwarder) and left one of its own running in its
// place is still found. (A process at rest is passed over before its
// filters are read: the status file that holds them is the costliest
// of /proc's, and this is on every command's way back.)
func (m *manager) leftRunning() bool {
	for _, pid := range m.below() {
		if start, ok := m.base[pid]; ok && start != "" && platform.ProcessStart(pid) == start {
			continue
		}
		if m.sandboxed(pid) {
			return true
		}
	}
	return false
}

// hold takes a ticket in the workspace's guard ledger before a command
// starts: with none held, the disk as it is now (a person's edits since
// the last command included) becomes the trusted state.
func (m *manager) hold() error {
	if !m.guarded || m.held {
		return nil
	}
	// (With the session's watch, once it runs: the look for the
	// repositories that appeared since the last trusted state only when
	// it saw one appear; and what it saw change since the last end
	// decides whether the trusted state is taken again, what it sees
	// change from then whether the end must reconcile.)
	lines, err := guard.HoldWatched(m.s.StateDir, m.s.Policy.GuardedNow(), m.changes)
	guard.KeepLines(m.s.StateDir, m.s.Policy.Workspace, lines)
	if err != nil {
		return err
	}
	m.held = true
	if m.changes == nil {
		m.changes = guard.WatchChanges(m.s.Policy, m.since)
	}
	return nil
}

// release gives the ticket back, reconciling, once no command runs and
// nothing a command left runs in the sandbox: only then can nothing of
// the session write the guarded places. It reports whether it gave the
// ticket back leaving the ledger with none (no command of any guard or
// session runs in the workspace) and nothing to say: then the ending
// command's shim has nothing to put back or say ([released]).
func (m *manager) release() (quiet bool) {
	quiet, save := m.releaseSaveLater()
	save()
	return quiet
}

// releaseSaveLater is [manager.release] but for the ledger's save, which
// the caller must do by calling save, once it has answered the ending
// command: what the release put back is back, and the ledger stays
// locked until then ([guard.ReleaseIdleSaveLater]).
func (m *manager) releaseSaveLater() (quiet bool, save func()) {
	save = func() {}
	if !m.held {
		return false, save
	}
	// A process of the command may still be on its way out (git's
	// detached auto-maintenance, a pipeline's last member): a moment for
	// it before it counts as left running.
	left := m.leftRunning()
	for i := 0; i < 10 && left; i++ {
		time.Sleep(5 * time.Millisecond)
		left = m.leftRunning()
	}
	if left {
		// Something a command left runs on: what the commands did is put
		// back now (the shim says so), the guarded places are watched
		// until the next command, and a command that gets a new session
		// instead says so (see replaced.go).
		m.reconcile()
		if pid, place := m.guardedWriter(); pid != 0 {
			m.endFor(pid, place)
			return false, save
		}
		if m.between == nil {
			m.between = guard.WatchBetween(m.s.StateDir, m.s.Policy, m.since)
			m.since = time.Time{}
		}
		os.WriteFile(m.s.Socket+busySuffix, []byte(strconv.Itoa(len(m.base))), 0o600)
		return false, save
	}
	os.Remove(m.s.Socket + busySuffix)
	m.stopBetween()
	m.since = time.Time{}
	ws := m.s.Policy.Workspace
	lines, idle, saveLedger, err := guard.ReleaseIdleSaveLater(m.s.StateDir, ws, m.changes)
	guard.KeepLines(m.s.StateDir, ws, lines)
	m.held = false
	if err != nil {
		return false, save
	}
	return idle && len(lines) == 0, func() {
		if err := saveLedger(); err != nil {
			// (Said by the next command of the workspace.)
			guard.KeepLines(m.s.StateDir, ws, []string{"cordon: the guard's ledger of " + printable.String(ws) + " could not be saved as a command ended: " + err.Error()})
		}
	}
}

// checkBelow moves aside what the commands since m.since made at the
// auto-run places below the workspace's root ([guard.CheckBelow]),
// before a command's end is answered: its shim returns only then; only
// when the session's watch saw a change there since the last end. The
// lines are the shim's to say.
func (m *manager) checkBelow() {
	if !m.held || m.since.IsZero() || !m.changes.Changed() {
		return
	}
	lines := guard.CheckBelow(m.s.StateDir, m.s.Policy, m.since)
	guard.KeepLines(m.s.StateDir, m.s.Policy.Workspace, lines)
}

// reconcile puts back what the commands did at the guarded places while
// the session keeps its ticket for something a command left running,
// keeping the lines for the command's shim to say when its connection
// ends.
func (m *manager) reconcile() {
	if !m.held {
		return
	}
	lines, _ := guard.Reconcile(m.s.StateDir, m.s.Policy.Workspace)
	guard.KeepLines(m.s.StateDir, m.s.Policy.Workspace, lines)
}

// stopBetween ends the watch [manager.release] started, if any.
func (m *manager) stopBetween() {
	if m.between != nil {
		m.between.Stop()
		m.between = nil
	}
}

// endFor ends the session because process pid, which a command left
// running, can write place unseen by the watch between commands.
func (m *manager) endFor(pid int, place string) {
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	m.ending = "process " + strconv.Itoa(pid) + " (" + printable.String(strings.TrimSpace(string(comm))) + ") holds " + printable.String(place) + ", a place the host runs from, open for writing or mapped shared and writable, where a write makes no event the guard's watch sees"
}

// watchWriters is how often, while what a command left runs, its
// processes are looked at for [manager.guardedWriter].
const watchWriters = 250 * time.Millisecond

// betweenFailed delivers why the watch between commands could not watch
// a guarded place; nothing when there is no watch.
func (m *manager) betweenFailed() <-chan error {
	if m.between == nil {
		return nil
	}
	return m.between.Failed()
}

// ready waits for the keeper's first word.
func (m *manager) ready() error {
	fds := []unix.PollFd{{Fd: int32(m.ctl), Events: unix.POLLIN}}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		buf := make([]byte, 16)
		k, err := unix.Read(m.ctl, buf)
		if err == nil && string(buf[:k]) == "ready" {
			return nil
		}
		break
	}
	return errors.New("the session's keeper did not start in its sandbox")
}

// listen makes the session's socket, for this user alone.
func (m *manager) listen() error {
	fd, err := listenUnix(m.s.Socket, 128)
	if err != nil {
		return fmt.Errorf("cannot make the session's socket %s: %v", m.s.Socket, err)
	}
	m.lis = fd
	m.listenPrepare()
	pid := fmt.Sprintf("%d %s\n", os.Getpid(), platform.ProcessStart(os.Getpid()))
	return os.WriteFile(m.s.Socket+".pid", []byte(pid), 0o600)
}

// listenUnix listens on a Unix socket made at path, in place of any
// file there, that only this user can connect to.
func listenUnix(path string, backlog int) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	os.Remove(path)
	addr, done, err := sockaddr(path)
	if err == nil {
		old := unix.Umask(0o177)
		err = unix.Bind(fd, addr)
		unix.Umask(old)
		done()
	}
	if err == nil {
		err = unix.Listen(fd, backlog)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// serve hands connections to the keeper until the session ends: the
// agent exits, the keeper ends, the session is idle too long, or
// SIGTERM (cordon sandbox --stop).
func (m *manager) serve() {
	end := make(chan struct{}, 8)
	activity := make(chan int, 64)  // +1 a command started, -SEQ the SEQ-th ended
	unstarted := make(chan int, 64) // SEQ: the SEQ-th never started
	conns := make(chan shimConn)
	notStarted := make(chan struct{}, 1)
	prepares, unprepared := make(chan int), make(chan int)
	if m.pre >= 0 {
		go m.acceptPrepares(m.pre, prepares)
	}
	// When serve returns, the listener is shut down and its accept loop
	// waited for: a close alone leaves an accept blocked on the socket,
	// and a signal restarts it on whatever descriptor has the number by
	// then (another manager's listener, in a test's process: it took
	// that manager's command and answered it as this one's).
	accepting := make(chan struct{})
	defer func() {
		unix.Shutdown(m.lis, unix.SHUT_RDWR)
		<-accepting
	}()
	go func() {
		defer close(accepting)
		for {
			conn, _, err := unix.Accept4(m.lis, unix.SOCK_CLOEXEC)
			if err == unix.EINTR || err == unix.ECONNABORTED {
				continue
			}
			if err != nil {
				end <- struct{}{}
				return
			}
			pid, ok := m.outside(conn)
			if !ok {
				unix.Close(conn)
				continue
			}
			go func() {
				if h, ok := m.credentials(conn); ok {
					conns <- shimConn{fd: conn, round: h.Round, token: h.Token, pid: pid}
				} else {
					unix.Close(conn)
				}
			}()
		}
	}()
	go func() {
		// The keeper's first word first: the shim that started the
		// session was answered before it (see setup).
		m.startErr = m.ready()
		close(m.started)
		if m.startErr != nil {
			notStarted <- struct{}{}
			return
		}
		buf := make([]byte, 16)
		for {
			n, err := unix.Read(m.ctl, buf)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n == 0 {
				end <- struct{}{}
				return
			}
			if buf[0] == '-' { // "-SEQ", answered ([manager.answer]) once the ticket is dealt with
				seq, err := strconv.Atoi(string(buf[1:n]))
				if err != nil || seq <= 0 {
					end <- struct{}{}
					return
				}
				activity <- -seq
				continue
			}
			if buf[0] == 'x' { // "xSEQ": the keeper could not start it
				seq, err := strconv.Atoi(string(buf[1:n]))
				if err != nil || seq <= 0 {
					end <- struct{}{}
					return
				}
				unstarted <- seq
				continue
			}
			for _, c := range buf[:n] {
				switch c {
				case '+':
					activity <- 1
				case '!': // a command was abandoned: see keeper.serve
					end <- struct{}{}
					return
				}
			}
		}
	}()
	if m.agent >= 0 {
		go func() {
			fds := []unix.PollFd{{Fd: int32(m.agent), Events: unix.POLLIN}}
			for {
				if _, err := unix.Poll(fds, -1); err != unix.EINTR {
					break
				}
			}
			end <- struct{}{}
		}()
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGCHLD)
	idle := m.s.Idle
	if idle <= 0 {
		idle = DefaultIdle
	}
	tick := time.NewTicker(min(max(idle/8, 100*time.Millisecond), time.Minute))
	defer tick.Stop()
	// A shim gone before its command's end is answered: the agent gave
	// up on the command. The keeper then kills the command and ends the
	// session ("!"), but a command can stop the keeper (SIGSTOP: it
	// shares the commands' Landlock domain, its first thread under
	// bwrap, see platform.NestCommands), which would leave the command's
	// writers running with the ticket held and what they plant on the
	// host: the manager looks too ([manager.shimGone]), when a process
	// of the sandbox at rest is stopped ([manager.restStopped]; a shim
	// that read its command's end and gave up waiting for the answer, a
	// manager slow to give it, must not end the session's other
	// commands).
	shims := time.NewTicker(time.Second)
	defer shims.Stop()
	running, last := 0, time.Now()
	// While something a command left runs on (release kept the ticket),
	// settle looks again, ever less often, whether it has ended: a
	// process only slow to exit must not leave the session marked busy
	// and watched between commands until the next command.
	var settle <-chan time.Time
	settleAfter := time.Duration(0)
	// With a keeper that did not start, the session ends once the
	// commands that connected meanwhile (the shim that started it) were
	// refused: a connection accepted is answered for its credentials
	// within credentials' timeout, or dropped.
	var notStartedEnd <-chan time.Time
	// While what a command left runs (the watch between commands), its
	// processes are looked at for one that can write a place unseen.
	var writers <-chan time.Time
	var writersTick *time.Ticker
	defer func() {
		if writersTick != nil {
			writersTick.Stop()
		}
	}()
	for {
		if m.ending != "" {
			// What a command left running could write a place the
			// host runs from unseen: it does not run on. The session
			// ends (shutdown kills every process of its sandbox and
			// puts the places back); the next command says why.
			guard.KeepLines(m.s.StateDir, m.s.Policy.Workspace, []string{"cordon: the session's sandbox was ended, and what commands left running in it with it: " + m.ending})
			return
		}
		switch {
		case m.between != nil && writersTick == nil:
			writersTick = time.NewTicker(watchWriters)
			writers = writersTick.C
		case m.between == nil && writersTick != nil:
			writersTick.Stop()
			writersTick, writers = nil, nil
		}
		select {
		case <-end:
			return
		case <-notStarted:
			notStartedEnd = time.After(6 * time.Second)
		case <-notStartedEnd:
			return
		case conn := <-prepares:
			m.prepare(conn, running, unprepared)
			last = time.Now()
		case conn := <-unprepared:
			m.unprepare(conn, running)
		case c := <-conns:
			m.retakePrepare(prepares)
			// The guard's ticket first (taken already when its shim
			// prepared it): the command starts once the keeper has the
			// connection. One taken early longer ago than a shim judges
			// a command is given back first: its trusted state would
			// take a person's edit since for the command's.
			if m.heldEarly && time.Since(m.earlyAt) > prepareTimeout {
				m.dropEarly()
			}
			m.heldEarly = false
			// The command reconciles before it starts: the watch stops.
			m.stopBetween()
			if m.since.IsZero() {
				m.since = time.Now()
			}
			if m.hold() == nil {
				// The keeper's first word before the round's start (the
				// first command's: the ticket is taken while bwrap
				// starts): the round's clock is read just before the
				// command can write, so that a person's edit meanwhile
				// is kept as theirs, and no saver runs for a command
				// that never does.
				if err := m.keeperStarted(); err != nil {
					// The command never ran: the shim runs it
					// another way, and the session ends.
					writeLine(c.fd, "error %s", oneLine(err.Error()))
					unix.Close(c.fd)
					return
				}
				// Its round's pre-round reads the file clock before it
				// starts; the keeper numbers connections in this order.
				seq := m.seq + 1
				m.roundStart(seq, c.round, c.pid)
				if err := unix.Sendmsg(m.ctl, []byte{'c'}, unix.UnixRights(c.fd), nil, 0); err == nil {
					// Running from now on, not from the keeper's "+":
					// another command's end before the keeper has
					// started this one must not give back the ticket
					// (TestSessionHandedCommandHoldsTicket).
					m.seq = seq
					running++
					m.keepEnd(seq, c.fd, c.token)
					c.fd = -1
				} else {
					delete(m.commands, seq)
				}
			}
			if c.fd >= 0 {
				unix.Close(c.fd)
			}
			last = time.Now()
		case seq := <-unstarted:
			// Counted when it was handed over; it never ran (the keeper
			// told its shim why).
			last = time.Now()
			delete(m.commands, seq)
			m.answer(seq, false)
			running--
			if running <= 0 {
				m.release()
			}
			settle, settleAfter = nil, 0
			if running <= 0 && m.held {
				settleAfter = 100 * time.Millisecond
				settle = time.After(settleAfter)
			}
		case d := <-activity:
			last = time.Now()
			if d > 0 {
				// (Counted when it was handed over.)
				break
			}
			running--
			m.checkBelow()
			quiet, save := false, func() {}
			if running <= 0 {
				quiet, save = m.releaseSaveLater()
			}
			m.roundEnd(-d)
			m.answer(-d, quiet)
			// (Off the command's path: the ledger stays locked until
			// then, and what the release put back is back.)
			save()
			settle, settleAfter = nil, 0
			if running <= 0 && m.held {
				settleAfter = 100 * time.Millisecond
				settle = time.After(settleAfter)
			}
		case <-settle:
			settle = nil
			if running > 0 || !m.held {
				break
			}
			if !m.leftRunning() {
				m.release()
				break
			}
			settleAfter = min(2*settleAfter, time.Minute)
			settle = time.After(settleAfter)
		case <-shims.C:
			if running > 0 && m.shimGone() && m.restStopped() {
				return
			}
		case err := <-m.betweenFailed():
			// (It may be what was left running that used up the
			// watches.)
			m.ending = "the guard could not watch the places the host runs from (hooks, git's configuration, .envrc, ...) while it ran (" + oneLine(err.Error()) + "); if other programs use up the inotify limits, raise fs.inotify.max_user_instances and max_user_watches"
		case <-writers:
			if pid, place := m.guardedWriter(); pid != 0 {
				m.endFor(pid, place)
			}
		case <-tick.C:
			if running <= 0 && (time.Since(last) >= idle || m.unreachable()) {
				return
			}
		case s := <-sigs:
			if s != syscall.SIGCHLD {
				return
			}
			reapOrphans()
		}
	}
}

// unreachable reports whether no command can reach the session any
// more: the directory of its socket is gone (the state directory
// removed, as a test's is, or a person's rm -rf). Its manager then ends
// once no command runs, as an idle one does, instead of holding its
// sandbox, its processes and its inotify watches (the user's 128
// instances, which CI's run of the tests as an ordinary user came close
// to) until the idle time is up.
func (m *manager) unreachable() bool {
	_, err := os.Lstat(filepath.Dir(m.s.Socket))
	return errors.Is(err, fs.ErrNotExist)
}

// A shimEnd is a running command's shim, as the manager keeps it to
// answer the command's end itself: a copy of the connection the keeper
// got, and the shim's token ([hello.Token]) if it is one line.
type shimEnd struct {
	fd    int
	token string
}

// keepEnd keeps the seq-th command's connection (fd) and its shim's
// token until its end is answered ([manager.answer]): the shim goes on
// only at the connection's end, so only once the manager has dealt with
// the session's guard ticket. At most maxTokens are kept: past it the
// connections kept are closed, unanswered: their shims reconcile
// themselves, as without an answer (with the session's ticket live, a
// reconcile puts back what differs from the trusted state, as the
// manager's release would).
func (m *manager) keepEnd(seq, fd int, token string) {
	if token == "" || len(token) > maxToken || strings.ContainsAny(token, " \n") {
		token = "" // (one answer, one line: a shim's own is 32 hex digits)
	}
	if len(m.ends) >= maxTokens {
		m.closeEnds()
	}
	if m.ends == nil {
		m.ends = map[int]shimEnd{}
	}
	m.ends[seq] = shimEnd{fd, token}
}

// shimGone reports whether the shim of a command whose end is not
// answered yet has closed its connection (POLLHUP: a shim that read its
// command's end shuts down only its writing side, and waits for the
// answer).
func (m *manager) shimGone() bool {
	fds := make([]unix.PollFd, 0, len(m.ends))
	for _, e := range m.ends {
		fds = append(fds, unix.PollFd{Fd: int32(e.fd)})
	}
	if len(fds) == 0 {
		return false
	}
	if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
		return false
	}
	for _, f := range fds {
		if f.Revents&unix.POLLHUP != 0 {
			return true
		}
	}
	return false
}

// restStopped reports whether a process of the sandbox at rest (the
// keeper) is stopped: a command's SIGSTOP.
func (m *manager) restStopped() bool {
	for pid, start := range m.base {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ...: comm may hold anything.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 0 && (f[0] == "T" || f[0] == "t") && platform.ProcessStart(pid) == start {
			return true
		}
	}
	return false
}

// closeEnds closes every connection kept to answer, unanswered.
func (m *manager) closeEnds() {
	for _, e := range m.ends {
		unix.Close(e.fd)
	}
	m.ends = nil
}

// maxTokens bounds the shims' connections a manager keeps, maxToken the
// length of one's token.
const (
	maxTokens = 256
	maxToken  = 64
)

// answer answers the end of the seq-th command to its shim, on the
// manager's own copy of its connection, and closes it: "released
// TOKEN" when the ticket was just given back quietly
// ([manager.release]), the shim's token, which only this process and
// the shim know (it never enters the sandbox: the keeper does not
// pass it), so nothing in the sandbox can say it; else nothing. The
// keeper sent "exit" before it told the manager the end, so the line
// comes after it.
func (m *manager) answer(seq int, quiet bool) {
	e, ok := m.ends[seq]
	if !ok {
		return
	}
	delete(m.ends, seq)
	if quiet && e.token != "" {
		// (A shim that reads nothing cannot hold the manager up.)
		unix.Sendto(e.fd, []byte("released "+e.token+"\n"), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, nil)
	}
	unix.Close(e.fd)
}

// credentials reads a command's credential values from conn, gives them
// to the session's broker, and answers with the command's variables for
// them (see credReply); it returns what the shim said. False: the
// shim is gone or said nothing in time.
func (m *manager) credentials(conn int) (*hello, bool) {
	unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
	defer unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{})
	var h hello
	if err := readMsg(conn, &h); err != nil {
		return nil, false
	}
	secrets := h.Secrets
	var r credReply
	switch {
	case len(secrets) == 0:
	case m.broker != nil:
		env, err := m.broker.SessionEnv(m.s.Policy, secrets)
		if err != nil {
			r.Note = "cordon: credentials withheld from the sandbox: " + err.Error()
		}
		r.Env = env
	case m.brokerErr != nil:
		r.Note = "cordon: credentials withheld from the sandbox: the credential broker cannot run (" + oneLine(m.brokerErr.Error()) + ")"
	}
	r.Git = m.broker.GitConfig(m.s.Policy)
	return &h, writeMsg(conn, &r) == nil
}

// DefaultIdle is how long a session's sandbox lives without a command.
const DefaultIdle = 30 * time.Minute

// shutdown ends everything of the session: no new connection, every
// process below this one killed, the guarded places reconciled.
func (m *manager) shutdown() {
	m.closePrepare()
	if m.lis >= 0 {
		os.Remove(m.s.Socket)
		os.Remove(m.s.Socket + ".pid")
		os.Remove(m.s.Socket + busySuffix)
		unix.Close(m.lis)
	}
	// (The savers are spared: the rounds after the last commands
	// complete, and their marks tell the next commands to wait.)
	guard.KillAll(m.saver)
	m.stopBetween()
	m.changes.Stop()
	if m.held {
		// (The next command in the workspace says what was put back.)
		lines, _ := guard.Release(m.s.StateDir, m.s.Policy.Workspace)
		guard.KeepLines(m.s.StateDir, m.s.Policy.Workspace, lines)
	}
}

// outside reports, with its pid, whether the peer of conn is this user's and runs
// outside every sandbox: in this process's user and pid namespaces
// (bwrap makes new ones), under no more seccomp filters than this
// process (both sandboxes add one, and no process can shed one). The
// mount namespace is not compared: a host process may show one of a
// thread's own (cordon's Landlock probe).
func (m *manager) outside(conn int) (pid int, ok bool) {
	cred, err := unix.GetsockoptUcred(conn, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil || int(cred.Uid) != os.Geteuid() || cred.Pid <= 0 {
		return 0, false
	}
	ns, filters, err := identity(int(cred.Pid))
	if err != nil || filters > m.filters {
		return 0, false
	}
	for k, v := range m.self {
		if ns[k] != v {
			return 0, false
		}
	}
	return int(cred.Pid), true
}

// identity is process pid's namespaces and number of seccomp filters.
func identity(pid int) (map[string]string, int, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	ns := map[string]string{}
	for _, k := range []string{"pid", "user"} {
		v, err := os.Readlink(dir + "/ns/" + k)
		if err != nil {
			return nil, 0, err
		}
		ns[k] = v
	}
	n, err := seccompFilters(pid)
	if err != nil {
		return nil, 0, err
	}
	return ns, n, nil
}

// seccompFilters is process pid's number of seccomp filters (all that
// [manager.inSandbox] asks of each process at a command's end: its
// namespaces are not read).
func seccompFilters(pid int) (int, error) {
	status, err := smallfile.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp_filters:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, errors.New("this kernel does not report seccomp filters (Linux 5.9+)")
}

// keeperLink is a symbolic link named KeeperRole to this binary, in the
// state directory (read-only in every sandbox): bwrap runs the keeper
// through it.
func keeperLink(stateDir string) (string, error) { return platform.RoleLink(stateDir, KeeperRole) }

// reapOrphans reaps the ended orphans of the Landlock sandbox, which
// become this process's children. It leaves alone the programs this
// process runs itself (git, for the guard's checks): os/exec waits for
// those, and reaping one here makes that Wait fail with ECHILD. Those
// stay in this process's group; the sandbox's processes are in groups
// of their own.
func reapOrphans() {
	self, group := os.Getpid(), unix.Getpgrp()
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold anything, so
		// the fields are read after its last ")".
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 3 || f[0] != "Z" || f[1] != strconv.Itoa(self) || f[2] == strconv.Itoa(group) {
			continue
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	}
}
