//go:build unix

package shim

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/stream"
	"github.com/cordonsh/cordon/tamper"
	"github.com/cordonsh/cordon/termhook"
)

// An interactive bash or zsh on a terminal (an IDE's integrated
// terminal) is started with cordon's set-up files, which install a hook
// that sends every entered line here before it runs; this process, on
// the host, judges it as a piped shell's statement is judged and answers (see
// docs/interactive.md).

// hookedTerminal reports whether inv is an interactive shell on a
// terminal that gets the hook.
func hookedTerminal(inv *invocation.Invocation) bool {
	return inv.Mode == invocation.ModeInteractive && (inv.Shell == "bash" || inv.Shell == "zsh") && platform.IsTerminal(os.Stdin.Fd())
}

// terminal runs the real shell, confined, with the hook, and judges its
// lines until it ends. It returns the shell's exit status.
func (r *run) terminal(inv *invocation.Invocation, dir string) int {
	if name := tamper.FuncsInEnv(r.env); name != "" {
		return r.fail("the environment defines a shell function named %s (BASH_FUNC_%s%%%%), which would change what cordon's refusals run; unset it", printable.String(name), printable.String(name))
	}
	c, err := r.confine(dir)
	if err != nil {
		return r.fail("%v", err)
	}
	state := decide.StateDir(decide.EnvLookup(r.env))
	files, err := termhook.Write(filepath.Join(state, "terminal"))
	if err != nil {
		return r.fail("%v", err)
	}
	argv, env := r.argv, slices.Clone(c.Policy.Env)
	if inv.Shell == "bash" {
		var extra []string
		argv, extra = termhook.BashArgv(r.argv, termhook.BashStart{Login: inv.Login, NoRc: inv.NoRc, NoProfile: inv.NoProfile, RcFile: inv.RcFile}, files.BashRc, dir)
		env = append(env, extra...)
	} else {
		extra, err := termhook.ZshEnv(inv.Options, files.ZDotDir, getenv(r.env, "ZDOTDIR"), getenv(r.env, "HOME"))
		if err != nil {
			return r.fail("%v", err)
		}
		env = append(withoutVar(env, "ZDOTDIR"), extra...)
	}
	current, stop, err := r.pipedRules(dir, c)
	if err != nil {
		return r.fail("%v", err)
	}
	defer stop()
	if c.Unconfined {
		r.print(decide.UnconfinedNotice(state))
	}
	conn, shellEnd, err := termhook.Pair()
	if err != nil {
		return r.fail("%v", err)
	}
	defer conn.Close()
	fd := int(shellEnd.Fd())
	env = append(env, "CORDON_JUDGE_FD="+strconv.Itoa(fd))
	child, err := guard.Start(c.Backend, c.ForSandbox(), state, r.real, argv, env, os.Stdin)
	shellEnd.Close()
	if err != nil {
		return r.fail("cannot run the real shell: %v", err)
	}
	sigs := make(chan os.Signal, 16)
	platform.NotifyCaught(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		for s := range sigs {
			child.Forward(s)
		}
	}()
	in := *inv
	in.Interactive = true
	s := &piped{r: r, inv: &in, dir: dir, ws: c.Workspace, rules: current, conf: c}
	go func() {
		err := termhook.Serve(conn, func(termhook.Hello) error { return nil }, func(l termhook.Line) termhook.Answer {
			return s.line(l, fd)
		})
		if err != nil {
			r.print(fmt.Sprintf("\ncordon: %s: the judge of this terminal stopped: %v; from now on no line runs. Open a new terminal.\n", r.name, err))
		}
		conn.Stop()
	}()
	code, err := child.Wait()
	signal.Stop(sigs)
	if err != nil {
		r.print(fmt.Sprintf("cordon: %s: %v\n", r.name, err))
	}
	return code
}

// line judges one entered line of a terminal whose judge descriptor, in
// the shell, is fd.
func (s *piped) line(l termhook.Line, fd int) termhook.Answer {
	refuse := func(msg string) termhook.Answer { return termhook.Answer{Verdict: termhook.Refuse, Message: msg} }
	if l.TooLarge {
		return refuse(s.r.failMessage("the line is larger than %d bytes; cordon does not judge lines that large", termhook.MaxText))
	}
	text := l.Text + "\n"
	f, err := syntax.NewParser(syntax.Variant(stream.Lang(s.inv.Dialect))).Parse(strings.NewReader(text), "")
	if err != nil && syntax.IsIncomplete(err) && len(text) < stream.MaxStatement {
		return termhook.Answer{Verdict: termhook.More}
	}
	c := stream.Chunk{Text: []byte(text), Err: err}
	if err == nil {
		c.Stmts = f.Stmts
		if why := tamper.HookTamper(l.Text, c.Stmts, tamper.HookScope{Fd: fd, Zsh: s.inv.Shell == "zsh", Lang: stream.Lang(s.inv.Dialect), Dir: l.Cwd, Home: getenv(s.r.env, "HOME")}); why != "" {
			return refuse(s.r.failMessage("this terminal does not run the line: %s [rule terminal-hook]", why))
		}
	}
	s.cwd = l.Cwd
	if msg := s.judge(c); msg != "" {
		return refuse(msg)
	}
	return termhook.Answer{Verdict: termhook.Run}
}

// withoutVar is env without the variable name.
func withoutVar(env []string, name string) []string {
	return slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}
