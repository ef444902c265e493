package sessionbox

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/internal/wire"
	"github.com/cordonsh/cordon/platform"
)

// Options are one command to run in its session's sandbox.
type Options struct {
	Backend platform.Backend
	Policy  *platform.Policy
	// Since, when set, gives the policy's AgentSince where it is left
	// unset, once a new session needs it ([decide.Confinement]).
	Since    func() int64
	StateDir string // cordon's state directory
	Path     string // the real shell
	Argv     []string
	Env      []string // the command's environment (the policy's)
	// Session names the session (CORDON_SESSION); "" takes the agent
	// process from the parent chain.
	Session string
	// Workspace is the workspace as the shim chose it, before the
	// policy resolved it: it names the session's prepare socket
	// ([Prepare]).
	Workspace string
	// Idle ends the session's sandbox after this long unused; 0 is
	// DefaultIdle.
	Idle time.Duration
	// Round, when set, is the continuous guard's round after the
	// command, which the session's manager starts when something in the
	// workspace may have changed (see rounds_linux.go); nil: none.
	Round *Round

	// id and parts are what the session's key is made of (see socket):
	// whose session, and a digest of each part a person can name, to
	// say which changed when a new sandbox replaces one (replaced.go).
	// The policy's own parts are made from keyed and agent only then
	// ([Options.allParts]): a later command does not need them.
	id    string
	parts map[string]string
	keyed *platform.Policy
	agent string
	// brokerKey makes the session's placeholders: from the session's
	// secret and id, on the host alone.
	brokerKey []byte
	// prepare is the session's prepare socket, "" for none.
	prepare string
	// token is this command's secret for the manager's answer to its
	// end ([released]).
	token string
}

// Exec runs the command in its session's sandbox, made when there is
// none, and ends this process the way the command ended. It returns
// only when the command did not run there, saying why; the caller then
// runs it in a sandbox of its own. It never returns once the command
// has started.
func Exec(o *Options) (err error) {
	if why := o.unfit(); why != "" {
		unprepare()
		return errors.New(why)
	}
	// Read before the signals are caught below: the key holds the
	// signals this process was started with ignored, and catching one
	// (SIGINT, SIGHUP) ends its being ignored. Read after, the key
	// depended on whether the goroutine had run yet, and a later command
	// of a shim started so (in a script's background, under nohup) now
	// and then made a new sandbox, out of reach of what the session ran.
	status, err := platform.SelfStatus()
	if err != nil {
		unprepare()
		return err
	}
	sigs, notified := make(chan os.Signal, 16), make(chan struct{})
	// Off the critical path: a signal before it is set up ends the shim,
	// and the keeper then kills the command's process group.
	go func() {
		platform.NotifyCaught(sigs, platform.ForwardedSignals()...)
		close(notified)
	}()
	defer func() {
		if err != nil { // the caller runs the command another way
			unprepare()
			<-notified
			signal.Stop(sigs)
		}
	}()
	sock, agent, err := o.socket(status)
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	// No directory or O_PATH descriptor of the host's mounts reaches
	// the command (see platform's ScreenInherited).
	platform.ScreenInherited()
	fds := inheritable()
	if len(fds) > maxFDs {
		return fmt.Errorf("%d inherited descriptors, more than one message carries", len(fds))
	}
	umask, _ := strconv.ParseInt(platform.StatusValue(status, "Umask"), 8, 32)
	req := &request{Path: o.Path, Argv: o.Argv, Env: o.Env, Dir: dir, Umask: int(umask), FDs: fds}
	// (getrandom itself: crypto/rand's first read costs a fresh
	// process several times more.)
	var secret [16]byte
	if n, err := unix.Getrandom(secret[:], 0); err == nil && n == len(secret) {
		o.token = hex.EncodeToString(secret[:])
	}
	// What a background process of the session wrote at a guarded place
	// since the last command was put back before the policy was made (by
	// the caller); what the command and its session write is put back
	// after it.
	conn, pid, err := o.connect(sock, agent, req)
	if err != nil {
		return err
	}
	// The command runs: a ticket its shim had taken early is its
	// session's now, or another session's to give back.
	unprepare()
	go func() {
		for s := range sigs {
			if sig, ok := s.(syscall.Signal); ok {
				writeLine(conn, "sig %d", int(sig))
			}
		}
	}()
	ws, r, err := wait(conn)
	// Done: the keeper answers with the connection's end once the
	// session's guard ticket is dealt with (see keeper.serve). Then the
	// guarded places are reconciled, and what the manager put back is
	// said too: after the manager, not beside it, so that a command that
	// ends the session's work (the manager gave its ticket back,
	// reconciling) costs one reconcile, not two racing for the ledger;
	// while another command of the session runs, or something a command
	// left (the ticket kept), it puts back what this command did before
	// the shim returns, as before. When the manager's answer says it
	// gave the ticket back leaving nothing to do ([released]), there is
	// nothing of this command's to put back or say, and the ledger is
	// not read.
	unix.Shutdown(conn, unix.SHUT_WR)
	unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
	if err != nil || !released(r, o.token) {
		o.reconcile()
		o.say()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cordon: %v (process %d)\n", err, pid)
		os.Exit(128 + int(syscall.SIGKILL))
	}
	platform.ExitLike(ws)
	return nil
}

// unfit says why the command cannot run in a session's sandbox, or "".
func (o *Options) unfit() string {
	switch {
	case o.Backend == nil || (o.Backend.Name() != platform.BackendBwrap && o.Backend.Name() != platform.BackendLandlock):
		return "no sandbox backend"
	case platform.IsTerminal(0) || platform.IsTerminal(1) || platform.IsTerminal(2):
		// The shell must have the terminal as its controlling one.
		return "a terminal"
	case o.Policy.Limits != (platform.Limits{}):
		return "resource limits are set per command"
	case o.StateDir == "" || !filepath.IsAbs(o.StateDir):
		return "no state directory"
	}
	for _, w := range o.Policy.WritableRoots() {
		if platform.Within(o.StateDir, w) {
			return "the state directory is writable in the sandbox"
		}
	}
	return ""
}

// socket is the session's socket and the agent process (0 for none
// watched), made from the session's key.
func (o *Options) socket(status []byte) (string, *agentProc, error) {
	dir := Dir(o.StateDir)
	secret, err := readSecret(dir)
	if err != nil {
		return "", nil, err
	}
	a := agentOnce()
	// The id and agent part the prepare socket's name holds too
	// (sessionID): one derivation for both.
	id, agent, found := sessionID(o.Session, a)
	if !found {
		if o.Session == "" {
			return "", nil, errors.New("no agent process found")
		}
		id = "session " + o.Session
	}
	if !found {
		o.fillSince()
	}
	p := *o.Policy
	p.Env = nil // the command's, sent with it
	// The agent, by its process where one is found, not by the bound of
	// platform.AgentSince its command carries: that bound passes over
	// an agent less than a second old, and an agent's first command and
	// its next had different keys, the second a new sandbox (and what
	// the first left running out of its reach). The session keeps its
	// first command's bound, which is the strictest: for one agent the
	// bound only moves later as the agent ages.
	if found {
		p.AgentSince = 0
	} else {
		agent = fmt.Sprint(p.AgentSince)
	}
	// Not the sockets found at the start in scratch space and the home
	// directory (an app's, a test run's, a database's, *.sock in /tmp):
	// they come and go all the time, the commands' own among them, and
	// each change made a new sandbox, in which a dev server started by
	// an earlier command was gone. One that vanished stays covered in the
	// session's sandbox, which is harmless; one made on the host after
	// the session started can be connected to from it until the session
	// ends, as from a command that runs that long (docs/session.md).
	// Other programs' directories the rules hide by name (ssh-agent's
	// /tmp/ssh-*, tmux's, X11's) stay in the key: a new one makes a new
	// sandbox that covers it.
	p.HostSockets = nil
	// Nor the other repositories in scratch space (see
	// platform.Policy): one an agent clones into /tmp would otherwise
	// replace the session at its next command. One that appears during a
	// session is not covered in its sandbox (docs/session.md).
	inScratch := func(x string) bool {
		return slices.ContainsFunc(p.Scratch, func(s string) bool { return platform.Within(x, s) }) && !(p.Workspace != "" && platform.Within(x, p.Workspace))
	}
	// Nor the places of repositories nested in the workspace's own: the
	// guard finds them when it takes the trusted state and when a command
	// ends (an agent's clone into the workspace must not replace the
	// session either).
	inNested := func(x string) bool {
		return slices.ContainsFunc(p.Nested, func(n string) bool { return platform.Within(x, n) })
	}
	p.ReadOnly = slices.DeleteFunc(slices.Clone(p.ReadOnly), inScratch)
	p.Guarded = slices.DeleteFunc(slices.Clone(p.Guarded), func(x string) bool { return inScratch(x) || inNested(x) })
	p.GitConfig = slices.DeleteFunc(slices.Clone(p.GitConfig), func(x string) bool { return inScratch(x) || inNested(x) })
	p.Nested = nil
	// The safe keys mean nothing without a configuration they apply to
	// (those of the repositories in scratch space bring them in; a policy
	// made without those, platform.Spec.DeferScratchRepos, has the same
	// key as one made with them).
	if len(p.GitConfig)+len(p.RootGitConfig) == 0 {
		p.GitConfigSafe = nil
	}
	p.Hidden = slices.DeleteFunc(slices.Clone(p.Hidden), func(h string) bool {
		var st unix.Stat_t
		return slices.ContainsFunc(p.Scratch, func(s string) bool { return h != s && platform.Within(h, s) }) &&
			(unix.Lstat(h, &st) != nil || st.Mode&unix.S_IFMT == unix.S_IFSOCK)
	})
	// Byte for byte (package wire): JSON would make two paths that differ
	// only in bytes that are not UTF-8 the same, and so the same key.
	policy, err := wire.Encode(&p)
	if err != nil {
		return "", nil, err
	}
	var self unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &self); err != nil {
		return "", nil, err
	}
	o.id, o.parts, o.keyed, o.agent = id, map[string]string{}, &p, agent
	o.brokerKey = brokerKey(secret, id)
	if found && o.Workspace != "" {
		o.prepare = preparePath(dir, secret, id, agent, o.Workspace)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%x\n%d\n%s\n%s\n%s\n%s\n", secret, os.Geteuid(), id, o.Backend.Name(), policy, agent)
	fmt.Fprintf(h, "%d %d %d %d\n", self.Dev, self.Ino, self.Size, self.Mtim.Nano())
	o.parts["cordon itself (updated)"] = fmt.Sprintf("%d %d %d %d", self.Dev, self.Ino, self.Size, self.Mtim.Nano())
	// The mount namespace the sandbox would be made from: one made inside
	// cordon agent's (docs/agent.md) is never used from another. This
	// thread's: /proc/self names the main thread, which may be the one
	// the Landlock probe moved to a namespace of its own and left wedged
	// there (then every command made a new session); a thread that runs
	// this goroutine is none that a probe holds.
	mnt, _ := os.Readlink("/proc/thread-self/ns/mnt")
	fmt.Fprintf(h, "%s\n", mnt)
	o.parts["the mount namespace"] = mnt
	part := func(name string, write func(w io.Writer)) {
		ph := sha256.New()
		write(io.MultiWriter(h, ph))
		o.parts[name] = hex.EncodeToString(ph.Sum(nil)[:8])
	}
	// The directories the sandbox binds writable, by identity (birth time
	// included: a directory made again usually gets the same inode
	// number): a workspace removed and made again (rm -rf app && git
	// clone ... app) gets a new sandbox, not one that shows the removed
	// directory, where every write fails with EROFS.
	part("a writable directory removed and made again", func(w io.Writer) {
		for _, r := range o.Policy.WritableRoots() {
			if id := platform.Identity(r); id != "" {
				fmt.Fprintf(w, "%s %s\n", r, id)
			}
		}
	})
	// Landlock grants reading around the hidden paths outside writable
	// directories by the entries of the directories on the way to them
	// (the home directory, /), as they were listed when the sandbox was
	// made: an entry made there since (a person installs nvm in ~/.nvm)
	// would be unreadable in it, and so would a directory made again
	// under its old name (rm -rf ~/.nvm and a new install). The names in
	// those directories, and the identity of the directories among them,
	// are part of the key: a change makes a new sandbox. Not stamps, nor
	// the identity of files: a file written and renamed into place (an
	// agent saves its ~/.claude.json so, at every turn) would make a new
	// sandbox each time and lose what the session runs in the
	// background. The price: a file replaced so on the host while a
	// session lives is unreadable in it until the session ends (it fails
	// closed). Not the entries of hidden directories, nor of cordon's
	// state directory, which are never the program's to read (and change
	// with every network proxy started there).
	if o.Backend.Name() == platform.BackendLandlock {
		part("the entries of the directories around the hidden paths", func(h io.Writer) { o.listings(h) })
	}
	part("the ignored signals or the resource limits the shell started with", func(h io.Writer) {
		fmt.Fprintf(h, "%s\n", platform.StatusValue(status, "SigIgn"))
		for r := 0; r < 16; r++ {
			var l unix.Rlimit
			if unix.Getrlimit(r, &l) == nil {
				fmt.Fprintf(h, "%d %d %d\n", r, l.Cur, l.Max)
			}
		}
	})
	sock := filepath.Join(dir, hex.EncodeToString(h.Sum(nil))[:24]+".sock")
	return sock, a, nil
}

// listings writes to h, for Landlock's key, the entries of the
// directories on the way to the hidden paths (see socket): each
// directory's by the digest of its listing, kept between commands while
// the directory is unchanged (listings_linux.go).
func (o *Options) listings(h io.Writer) {
	kept := openListings(Dir(o.StateDir))
	defer kept.save()
	seen := map[string]bool{}
	// cordon's state directory, and the account's default one beside
	// it (~/.local/state/cordon of the account's home, whose records the
	// rules hide too): entries come and go there with every command of
	// every session (a log made, a cache kept), which no program reads.
	states := []string{o.StateDir, config.StateDir(func(k string) string {
		if k == "HOME" {
			return platform.AccountHome()
		}
		return ""
	})}
	hidden := func(d string) bool {
		return slices.ContainsFunc(states, func(s string) bool { return s != "" && platform.Within(d, s) }) ||
			slices.ContainsFunc(o.Policy.Hidden, func(h string) bool { return platform.Within(d, h) })
	}
	walk := func(hp string) {
		for d := filepath.Dir(hp); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if !hidden(d) {
				fmt.Fprintf(h, "%s %s\n", d, kept.digest(d))
			}
			if d == "/" || d == "." {
				break
			}
		}
	}
	for _, hp := range o.Policy.Hidden {
		if platform.MayHole(o.Policy, hp, false) {
			walk(hp)
		}
	}
	for _, hp := range o.Policy.Missing {
		if platform.MayHole(o.Policy, hp, true) {
			walk(hp)
		}
	}
}

// writeListing writes directory d's entries to w as the session key holds
// them: every name, and the identity of each directory among them.
func writeListing(w io.Writer, d string) {
	fmt.Fprintf(w, "%s\n", d)
	entries, _ := os.ReadDir(d) // sorted by name
	for _, e := range entries {
		fmt.Fprintf(w, "%s\x00", e.Name())
		if e.IsDir() {
			fmt.Fprintf(w, "%s\x00", platform.Identity(filepath.Join(d, e.Name())))
		}
	}
	fmt.Fprintf(w, "%d\n", len(entries))
}

// brokerKey is the key of a session's placeholders: the same for every
// command of session id, unknown to anything that lacks the user's
// session secret.
func brokerKey(secret []byte, id string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("cordon broker key\x00" + id))
	return m.Sum(nil)
}

// Dir is the directory of the sessions' sockets in state directory
// stateDir: hidden in every sandbox.
func Dir(stateDir string) string { return platform.SessionsDir(stateDir) }

// readSecret is the user's session secret, made on first use: it keys
// the sockets' names, which no sandboxed process can then guess.
func readSecret(dir string) ([]byte, error) {
	// The shim makes the directory before the policy is resolved.
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
		return nil, fmt.Errorf("%s must be a directory of this user's, of mode 0700", dir)
	}
	file := filepath.Join(dir, "secret")
	if s, err := smallfile.ReadFile(file); err == nil && len(s) == 32 {
		return s, nil
	}
	s := make([]byte, 32)
	rand.Read(s)
	tmp := fmt.Sprintf("%s.%d", file, os.Getpid())
	if err := os.WriteFile(tmp, s, 0o600); err != nil {
		return nil, err
	}
	if err := os.Link(tmp, file); err != nil {
		os.Remove(tmp)
		if s, err := smallfile.ReadFile(file); err == nil && len(s) == 32 {
			return s, nil // made by another command meanwhile
		}
		return nil, err
	}
	os.Remove(tmp)
	return s, nil
}

// connect sends req to the session's keeper, starting the session's
// manager when there is none, and returns once the command runs. An
// error means the command did not start.
func (o *Options) connect(sock string, a *agentProc, req *request) (int, int, error) {
	deadline := time.Now().Add(5 * time.Second)
	started := false
	var last error
	for time.Now().Before(deadline) {
		conn, err := dial(sock)
		if err == nil {
			pid, err := o.send(conn, req)
			if err == nil {
				return conn, pid, nil
			}
			unix.Close(conn)
			var kerr keeperError
			if errors.As(err, &kerr) {
				return -1, 0, err
			}
			// The session is ending (its keeper died): a new one.
			last, started = err, false
		} else {
			last = err
		}
		if started {
			// The manager said it was listening: only a race with its end.
			time.Sleep(5 * time.Millisecond)
		}
		switch err := o.startManager(sock, a); {
		case err == nil:
			if !started {
				o.replaced(sock)
			}
			started = true
		case errors.Is(err, errBusy):
			time.Sleep(5 * time.Millisecond)
		default:
			return -1, 0, err
		}
	}
	return -1, 0, fmt.Errorf("the session's sandbox did not answer: %v", last)
}

func dial(sock string) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	addr, done, err := sockaddr(sock)
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	defer done()
	if err := unix.Connect(fd, addr); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// sockaddr is the address of the Unix socket at path, however long (see
// [platform.UnixName]); done closes what it opened once the socket is
// bound or connected.
func sockaddr(path string) (*unix.SockaddrUnix, func(), error) {
	name, done, err := platform.UnixName(path)
	if err != nil {
		return nil, nil, err
	}
	return &unix.SockaddrUnix{Name: name}, done, nil
}

// A keeperError is the keeper's refusal to start a command.
type keeperError string

func (e keeperError) Error() string { return string(e) }

// send gives the manager the command's credential values and its round,
// then sends
// req, with the manager's variables for them, and waits for the
// keeper's "pid N".
func (o *Options) send(conn int, req *request) (int, error) {
	if err := writeMsg(conn, &hello{Secrets: o.Policy.Secrets(), Round: o.Round, Token: o.token}); err != nil {
		return 0, err
	}
	var r credReply
	if err := readMsg(conn, &r); err != nil {
		return 0, errors.New("the session's sandbox ended")
	}
	if r.Note != "" {
		os.Stderr.WriteString(r.Note + "\n")
	}
	req2 := *req
	req2.Env = platform.WithGitConfig(platform.SetVars(req.Env, r.Env), r.Git)
	if err := sendRequest(conn, &req2, req.FDs); err != nil {
		return 0, err
	}
	line, err := readLine(conn)
	if err != nil {
		return 0, err
	}
	word, arg, _ := strings.Cut(line, " ")
	switch word {
	case "pid":
		return strconv.Atoi(arg)
	case "error":
		return 0, keeperError(arg)
	}
	return 0, fmt.Errorf("the session's keeper said %q", line)
}

// readLine reads one line from conn, a byte at a time (what follows is
// read later, by another reader).
func readLine(conn int) (string, error) {
	var b []byte
	c := make([]byte, 1)
	for {
		if _, err := io.ReadFull(fdReader(conn), c); err != nil {
			return "", errors.New("the session's sandbox ended")
		}
		if c[0] == '\n' {
			return string(b), nil
		}
		b = append(b, c[0])
	}
}

// wait waits for the keeper's "exit STATUS"; the reader holds what
// follows.
func wait(conn int) (uint32, *bufio.Reader, error) {
	r := bufio.NewReader(fdReader(conn))
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0, r, errors.New("the session's sandbox ended while the command ran")
		}
		if arg, ok := strings.CutPrefix(strings.TrimSpace(line), "exit "); ok {
			ws, err := strconv.ParseUint(arg, 10, 32)
			return uint32(ws), r, err
		}
	}
}

// released reads what the keeper says after "exit", up to the
// connection's end, and reports whether it is "released TOKEN" with
// this command's token: the manager, once the command ended, gave the
// session's guard ticket back, reconciling, and the ledger was left with
// no ticket and nothing to say ([guard.ReleaseIdle]). The token came
// from this process to the manager before the keeper got the
// connection: nothing in the sandbox knows it, so none can say it for
// the manager. Anything else (no answer, an old keeper's end, another
// token) is false: the shim reconciles and says as before.
func released(r *bufio.Reader, token string) bool {
	rest, _ := io.ReadAll(io.LimitReader(r, 4096))
	io.Copy(io.Discard, r)
	return token != "" && string(rest) == "released "+token+"\n"
}

// startManager starts the session's manager and waits until it listens
// on sock; errBusy when another manager holds the session.
func (o *Options) startManager(sock string, a *agentProc) error {
	o.fillSince()
	// The sandbox made now guards the repositories in scratch space that
	// a command of its session could find (the key leaves them out).
	o.Policy.FindScratchRepositories()
	s := &spec{Backend: o.Backend.Name(), Policy: o.Policy, StateDir: o.StateDir, Socket: sock, Env: o.Env, Idle: o.Idle,
		BrokerKey: o.brokerKey, Secrets: o.Policy.Secrets(), Prepare: o.prepare}
	if a != nil {
		s.Agent, s.AgentStart = a.Pid, a.Start
	}
	data, err := wire.Encode(s)
	if err != nil {
		return err
	}
	// One started early, carrying the same agent's start, if any
	// (early_linux.go); one that ended meanwhile is started again.
	if l := takeEarly(o.Policy.AgentSince); l != nil {
		if err := l.hand(data); !errors.Is(err, errGone) {
			return err
		}
	}
	l, err := launch(o.Policy.AgentSince)
	if err != nil {
		return err
	}
	return l.hand(data)
}

// fillSince sets the policy's AgentSince from Since when it is unset.
func (o *Options) fillSince() {
	if o.Policy.AgentSince == 0 && o.Since != nil {
		o.Policy.AgentSince = o.Since()
	}
}

// reconcile puts the guarded places of the workspace back (see
// [guard.Reconcile]), saying so on stderr.
func (o *Options) reconcile() {
	p := o.Policy
	if p.Workspace == "" || len(p.Guarded) == 0 {
		return
	}
	lines, _ := guard.Reconcile(o.StateDir, p.Workspace)
	for _, l := range lines {
		os.Stderr.WriteString(l + "\n")
	}
}

// say writes on stderr what the session's manager put back at the
// workspace's guarded places (see [guard.TakeLines]).
func (o *Options) say() {
	if o.Policy.Workspace == "" {
		return
	}
	for _, l := range guard.TakeLines(o.StateDir, o.Policy.Workspace) {
		os.Stderr.WriteString(l + "\n")
	}
}

// inheritable lists this process's descriptors that the real shell
// would inherit: those not marked close-on-exec.
func inheritable() []int {
	des, _ := os.ReadDir("/proc/self/fd")
	var fds []int
	for _, d := range des {
		fd, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
		}
	}
	return fds
}

// digest is the hex sha256 of s.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
