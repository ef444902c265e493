package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/platform"
)

// The live canary: the real bash run confined the way the shim runs a
// command (the settings, the rules, the backend they choose, the policy
// made for a workspace, the guard process, the network proxy), with
// probes whose outcome is known. Everything lives in a directory made
// for the run under the state directory (outside every writable root:
// the self-check sees to that) and removed after it:
//
//	ROOT/home            HOME of the run: the policy is made for it
//	ROOT/home/work       the workspace
//	ROOT/home/outside    a directory outside it, writable by the user
//	ROOT/home/.ssh/id_ed25519   a credential by the rules (~/.ssh), made here
//	ROOT/state           XDG_STATE_HOME of the run: the guard's ledger,
//	                     the proxy's socket, the audit log of its refusals
//
// So no file of the user's is read or written, and the user's settings
// and rule files still apply (XDG_CONFIG_HOME points at them).

// canaryScript is run as bash -c canaryScript canary TOKEN PORT NETWORK
// WORKSPACE. It prints nothing (its output would land in cordon
// doctor's), uses builtins only, and exits with one bit per probe that
// went wrong: 1 an outside write landed, 2 an inside write did not, 4 the
// credential was read, 8 the host's loopback server answered a direct
// connection, 16 the proxy did not refuse a host not on the allowlist.
const canaryScript = `exec >/dev/null 2>&1
token=$1 port=$2 net=$3 ws=$4 host=$5 r=0
cd "$ws" || exit 64
echo "$token" > "$HOME/outside/canary" && r=$((r|1))
{ echo "$token" > "$ws/inside" && [ "$(< "$ws/inside")" = "$token" ]; } || r=$((r|2))
[ "$(< "$HOME/.ssh/id_ed25519")" = "$token" ] && r=$((r|4))
got=$( (exec 3<>"/dev/tcp/$host/$port" && read -r -t 2 l <&3 && printf %s "$l") )
[ "$got" = "$token" ] && r=$((r|8))
if [ "$net" = allowlist ]; then
	p=${HTTP_PROXY#http://}; p=${p%/}
	got=$( (exec 3<>"/dev/tcp/${p%:*}/${p##*:}" && printf 'CONNECT cordon-canary.invalid:443 HTTP/1.1\r\nHost: cordon-canary.invalid:443\r\n\r\n' >&3 && read -r -t 2 l <&3 && printf %s "$l") )
	case $got in "HTTP/1.1 403 "*) ;; *) r=$((r|16)) ;; esac
fi
exit $r
`

// canaryTimeout bounds the canary's run: past it, it is killed and fails.
const canaryTimeout = 10 * time.Second

// A probe is one thing the canary tried.
type probe struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Says string `json:"says"`
}

// canaryData is the canary's check's data.
type canaryData struct {
	Backend string  `json:"backend"`
	Network string  `json:"network"`
	Millis  int64   `json:"ms"`
	Probes  []probe `json:"probes"`
}

// canary runs the live canary and returns its check.
func (d *doctor) canary() check {
	c := check{ID: "canary"}
	fail := func(summary, fix string) check {
		c.Status, c.Summary, c.Fix = statusFail, "the sandbox canary did not run: "+summary, fix
		return c
	}
	if runtime.GOOS == "windows" {
		c.Status, c.Summary = statusInfo, "the Windows sandbox is experimental (it has not yet run on a real desktop), and Credential Manager and DPAPI stay reachable from it; the live canary runs on Linux and macOS; `cordon sandbox --platform windows` shows the token, the ACEs and what is not enforced (docs/windows.md)"
		return c
	}
	if d.confErr != nil {
		return fail("no sandbox policy (see backend)", "fix the failures above it first")
	}
	if d.conf != nil && d.conf.Nested {
		return fail("cordon doctor runs inside cordon's sandbox", "run cordon doctor in a terminal of your own, outside the agent")
	}
	state := config.StateDir(d.getenv)
	if state == "" {
		return fail("no state directory to run it in", "set HOME")
	}
	if d.self == "" {
		return fail("cannot locate the cordon binary", "run cordon by its path")
	}
	if d.conf != nil {
		real := state
		if r, err := filepath.EvalSymlinks(state); err == nil {
			real = r
		}
		for _, root := range d.conf.Policy.WritableRoots() {
			if platform.Within(real, root) {
				return fail("it runs in the state directory, which sandboxed commands can write (see self-check)", "fix the self-check first")
			}
		}
	}
	bash, err := platform.FindShell("bash", d.getenv("PATH"), d.self, platform.AgentSince)
	if err != nil {
		return fail("it runs bash, and "+printable.String(err.Error()), "install bash")
	}
	base := filepath.Join(state, "doctor")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fail(printable.String(err.Error()), "make the state directory "+printable.String(state)+" yours")
	}
	root, err := os.MkdirTemp(base, "canary-")
	if err != nil {
		return fail(printable.String(err.Error()), "make the state directory "+printable.String(state)+" yours")
	}
	defer os.RemoveAll(root)
	run, err := newCanaryRun(root, d.env)
	if err != nil {
		return fail(printable.String(err.Error()), "make the state directory "+printable.String(state)+" yours")
	}
	defer run.close()
	data, err := run.run(bash, d.self)
	if err != nil {
		return fail(printable.String(err.Error()), "fix what it says; `cordon run -- true` run here shows the same error")
	}
	c.Data = data
	var good, bad []string
	for _, p := range data.Probes {
		if p.OK {
			good = append(good, p.Says)
		} else {
			bad = append(bad, p.Says)
		}
	}
	where := fmt.Sprintf("(%s, %d ms)", data.Backend, data.Millis)
	if len(bad) > 0 {
		c.Status, c.Summary = statusFail, "the sandbox canary "+where+" got through: "+strings.Join(bad, "; ")
		for _, g := range good {
			c.Detail = append(c.Detail, "held: "+g)
		}
		c.Fix = "the sandbox does not hold here: `cordon sandbox` shows the policy (a writable or backend entry of your settings?); if it says otherwise, report a bug with this output"
		return c
	}
	c.Status, c.Summary = statusOK, "sandbox canary "+where+": "+strings.Join(good, ", ")
	if data.Network == string(platform.NetworkOn) {
		c.Status = statusWarn
		c.Detail = []string{"the network is on for sandboxed commands (your settings, or a backend that cannot filter it): any host is reachable"}
		c.Fix = "docs/network.md: the allowlist needs bwrap, or Landlock with user namespaces"
	}
	return c
}

// A canaryRun is the canary's directory, its environment and its
// loopback server.
type canaryRun struct {
	root, home, ws, outside, cred string
	env                           []string
	token                         string
	ln                            net.Listener
	accepted                      atomic.Int32
}

func newCanaryRun(root string, env []string) (*canaryRun, error) {
	r := &canaryRun{root: root, home: filepath.Join(root, "home")}
	r.ws, r.outside = filepath.Join(r.home, "work"), filepath.Join(r.home, "outside")
	r.cred = filepath.Join(r.home, ".ssh", "id_ed25519")
	var buf [16]byte
	rand.Read(buf[:])
	r.token = hex.EncodeToString(buf[:])
	for _, dir := range []string{r.ws, r.outside, filepath.Dir(r.cred), filepath.Join(root, "state")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(r.cred, []byte(r.token+"\n"), 0o600); err != nil {
		return nil, err
	}
	// The user's settings and rule files apply; the rest is the run's.
	getenv := func(k string) string { return platform.Getenv(env, k) }
	over := map[string]string{"HOME": r.home, "XDG_STATE_HOME": filepath.Join(root, "state"), "CORDON_SESSION": ""}
	if dir := config.Dir(getenv); dir != "" {
		over["XDG_CONFIG_HOME"] = filepath.Dir(dir)
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, replaced := over[k]; !replaced {
			r.env = append(r.env, kv)
		}
	}
	for k, v := range over {
		if v != "" {
			r.env = append(r.env, k+"="+v)
		}
	}
	// On 127.0.0.2 where the system has it (Linux: all of 127/8): the
	// host's listening loopback ports on 127.0.0.1 are forwarded into the
	// sandbox on purpose (docs/network.md), so a direct connection there
	// proves nothing; one to 127.0.0.2 reaches the host only without a
	// network namespace of the sandbox's own.
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on the loopback: %v", err)
	}
	r.ln = ln
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			r.accepted.Add(1)
			conn.Write([]byte(r.token + "\n"))
			conn.Close()
		}
	}()
	return r, nil
}

func (r *canaryRun) close() { r.ln.Close() }

// run confines bash by the policy for the run's workspace and runs the
// script under the guard, as the shim does; the error is a canary that
// could not be started.
func (r *canaryRun) run(bash, self string) (*canaryData, error) {
	t0 := time.Now()
	conf, err := decide.Confine(r.ws, r.env, &decide.ConfineOptions{Workspace: r.ws, Inspect: true})
	if err != nil {
		return nil, err
	}
	if roots := conf.Policy.WritableRoots(); len(roots) > 0 {
		// As the shim does: never a bash sandboxed commands can write.
		if bash, err = platform.FindShell("bash", platform.Getenv(r.env, "PATH"), self, platform.AgentSince, roots...); err != nil {
			return nil, err
		}
	}
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	port := strconv.Itoa(r.ln.Addr().(*net.TCPAddr).Port)
	network := string(conf.Policy.Network)
	argv := []string{"bash", "-c", canaryScript, "canary", r.token, port, network, r.ws, r.ln.Addr().(*net.TCPAddr).IP.String()}
	state := config.StateDir(func(k string) string { return platform.Getenv(r.env, k) })
	cmd, err := guard.Start(conf.Backend, conf.Policy, state, bash, argv, conf.Policy.Env, stdin)
	if err != nil {
		return nil, err
	}
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := cmd.Wait()
		done <- result{code, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(canaryTimeout):
		cmd.Forward(syscall.SIGKILL)
		res = <-done
		res.err = fmt.Errorf("it did not finish in %v and was killed", canaryTimeout)
	}
	data := &canaryData{Backend: conf.Backend.Name(), Network: network, Millis: time.Since(t0).Milliseconds()}
	if res.err != nil {
		return nil, res.err
	}
	if res.code >= 64 {
		return nil, fmt.Errorf("bash ended with status %d before its probes were done", res.code)
	}
	data.Probes = r.judge(res.code, platform.Network(network))
	return data, nil
}

// judge turns the script's exit status, and what is on disk and at the
// loopback server afterwards, into the probes.
func (r *canaryRun) judge(code int, network platform.Network) []probe {
	bit := func(b int) bool { return code&b != 0 }
	_, err := os.Lstat(filepath.Join(r.outside, "canary"))
	outside := bit(1) || err == nil
	inside, _ := os.ReadFile(filepath.Join(r.ws, "inside"))
	ps := []probe{
		{"write-outside", !outside, pick(!outside, "a write outside the workspace was refused", "a write outside the workspace landed")},
		{"write-inside", !bit(2) && string(inside) == r.token+"\n", pick(!bit(2) && string(inside) == r.token+"\n", "a write inside it landed", "a write inside the workspace did not land")},
		{"credential", !bit(4), pick(!bit(4), "a credential file (~/.ssh) was unreadable", "a credential file (~/.ssh) was read")},
	}
	if network == platform.NetworkOn {
		return ps
	}
	reached := bit(8) || r.accepted.Load() > 0
	ps = append(ps, probe{"loopback-direct", !reached, pick(!reached, "the host's loopback was unreachable directly", "a direct connection reached a server on the host's loopback")})
	if network == platform.NetworkAllowlist {
		ps = append(ps, probe{"allowlist", !bit(16), pick(!bit(16), "the proxy refused a host not on the allowlist", "the proxy did not refuse a host not on the allowlist")})
	}
	return ps
}

func pick(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}
