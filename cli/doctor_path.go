package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/shim"
)

// shimsOnPath returns the first absolute directory of pathEnv holding a
// shim (a shell's name that is the cordon binary self), and the shells
// installed there, sorted.
func shimsOnPath(pathEnv, self string) (string, []string) {
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue
		}
		if names := shimsIn(d, self); len(names) > 0 {
			return filepath.Clean(d), names
		}
	}
	return "", nil
}

// shimsIn returns the names in dir of the shells cordon stands in for
// ([shim.ShellName]) that are the cordon binary self.
func shimsIn(dir, self string) []string {
	me, err := os.Stat(self)
	if err != nil {
		return nil
	}
	var names []string
	for _, name := range platform.ShellNames {
		if _, ok := shim.ShellName(name); !ok {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && os.SameFile(fi, me) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// otherShims returns the first shim on pathEnv that is a link to a
// cordon binary other than self (an older installation), and that
// binary; "" for none.
func otherShims(pathEnv, self string) (string, string) {
	for _, d := range filepath.SplitList(pathEnv) {
		for _, name := range platform.ShellNames {
			p := filepath.Join(d, name)
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 || !filepath.IsAbs(d) {
				continue
			}
			if real, err := filepath.EvalSymlinks(p); err == nil && filepath.Base(real) == "cordon" && real != self {
				return p, real
			}
		}
	}
	return "", ""
}

// installedShims is where ./install.sh puts the shims beside the binary
// self (PREFIX/bin/cordon, PREFIX/share/cordon/shims).
func installedShims(self string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(self)), "share", "cordon", "shims")
}

// shimChecks: the shims are on PATH, before the real shells (on this
// PATH and on a login shell's), and the real shell behind each is found.
func (d *doctor) shimChecks() {
	if runtime.GOOS == "windows" {
		d.add(check{ID: "shims", Status: statusInfo, Summary: "the shims' PATH order is not checked on Windows (see docs/windows.md)"})
		return
	}
	pathEnv := d.getenv("PATH")
	if d.shims == "" {
		c := check{ID: "shims", Status: statusFail, Summary: "no cordon shims on PATH: agents' shells run without cordon"}
		dir := installedShims(d.self)
		if other, target := otherShims(pathEnv, d.self); other != "" {
			c.Summary = "the shims on PATH are another cordon's: " + printable.String(other) + " links to " + printable.String(target) + ", not to this one"
			c.Fix = "run that cordon's doctor, or reinstall so that one cordon is on PATH and behind the shims (./install.sh)"
		} else if names := shimsIn(dir, d.self); d.self != "" && len(names) > 0 {
			c.Detail = []string{fmt.Sprintf("installed in %s (%s), but not on PATH", printable.String(dir), strings.Join(names, " "))}
			c.Fix = "put it first on PATH, for the agents and in ~/.profile: export PATH=" + invocation.QuoteArgv([]string{dir}) + `:"$PATH"`
		} else {
			c.Fix = "./install.sh installs them in ~/.local/share/cordon/shims; put that directory first on PATH"
		}
		d.add(c)
		return
	}
	d.add(check{ID: "shims", Status: statusOK, Summary: fmt.Sprintf("shims on PATH: %s (%s)", printable.String(d.shims), strings.Join(d.names, " "))})
	fix := "put " + printable.String(d.shims) + " first on PATH: export PATH=" + invocation.QuoteArgv([]string{d.shims}) + `:"$PATH"` + " in ~/.profile and in the agents' environment"
	if before := d.realFirst(pathEnv); len(before) > 0 {
		d.add(check{ID: "path", Status: statusFail, Summary: "PATH finds a real shell before the shim: " + strings.Join(before, ", "), Fix: fix})
	} else {
		d.add(check{ID: "path", Status: statusOK, Summary: "PATH finds the shims before the real shells (" + strings.Join(d.names, " ") + ")"})
	}
	d.add(d.loginPathCheck(fix))
	d.add(d.realShellsCheck(pathEnv))
}

// realFirst returns, for each shim, "NAME: PATH" when pathEnv finds the
// real shell ([platform.FindShell], the shim's own search) before the
// shims directory.
func (d *doctor) realFirst(pathEnv string) []string {
	entries := cleanEntries(pathEnv)
	at := slices.Index(entries, d.shims)
	var out []string
	for _, name := range d.names {
		real, err := platform.FindShell(name, pathEnv, d.self, platform.AgentSince)
		if err != nil {
			continue // the real-shells check says so
		}
		if i := slices.Index(entries, filepath.Dir(real)); i >= 0 && (at < 0 || i < at) {
			out = append(out, name+" "+printable.String(real))
		}
	}
	return out
}

func cleanEntries(pathEnv string) []string {
	var out []string
	for _, e := range filepath.SplitList(pathEnv) {
		if filepath.IsAbs(e) {
			e = filepath.Clean(e)
		}
		out = append(out, e)
	}
	return out
}

// startLogin starts reading a login shell's PATH ([loginPath]) with the
// real bash, beside the other checks: a profile can take a few hundred
// milliseconds. The function returned waits for it; its error is nil
// with an empty PATH when there is no real bash.
func (d *doctor) startLogin() func() (string, error) {
	bash, err := platform.FindShell("bash", d.getenv("PATH"), d.self, platform.AgentSince)
	if err != nil || runtime.GOOS == "windows" {
		return func() (string, error) { return "", nil }
	}
	type result struct {
		path string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		p, err := loginPath(bash, d.getenv)
		done <- result{p, err}
	}()
	return sync.OnceValues(func() (string, error) {
		r := <-done
		return r.path, r.err
	})
}

// loginPathCheck checks the PATH of a login shell (bash -l with a clean
// environment: what a new terminal, ssh or an agent's bash -lc starts
// from) as the path check does this one.
func (d *doctor) loginPathCheck(fix string) check {
	c := check{ID: "login-path"}
	login, err := d.login()
	switch {
	case err != nil:
		c.Status, c.Summary = statusWarn, "a login shell's PATH could not be read: "+printable.String(err.Error())
		c.Fix = "check that `bash -lc 'echo $PATH'` works in a terminal"
		return c
	case login == "":
		c.Status, c.Summary = statusInfo, "a login shell's PATH was not checked: no real bash"
		return c
	}
	c.Data = map[string]string{"path": login}
	if !slices.Contains(cleanEntries(login), d.shims) {
		c.Status = statusWarn
		c.Summary = "a login shell's PATH does not have the shims: agents started from a new login (a desktop launcher, ssh, Codex's bash -lc) bypass cordon"
		c.Detail = []string{"login PATH: " + printable.String(login)}
		c.Fix = fix
		return c
	}
	if before := d.realFirst(login); len(before) > 0 {
		c.Status = statusWarn
		c.Summary = "a login shell's PATH finds a real shell before the shim: " + strings.Join(before, ", ")
		c.Detail = []string{"login PATH: " + printable.String(login)}
		c.Fix = fix
		return c
	}
	c.Status, c.Summary = statusOK, "a login shell's PATH finds the shims first too"
	return c
}

// loginPath is the PATH of `bash -lc` run with only HOME, USER and
// LOGNAME set, what its profile files make of it. The profile runs as in
// any new login; its output is discarded, and it gets 3 s.
func loginPath(bash string, getenv func(string) string) (string, error) {
	var env []string
	for _, k := range []string{"HOME", "USER", "LOGNAME"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	var buf [8]byte
	rand.Read(buf[:])
	marker := "cordon-login-path-" + hex.EncodeToString(buf[:]) + "="
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-lc", `printf '\n%s%s\n' "$1" "$PATH"`, "bash", marker)
	cmd.Env = env
	if home := getenv("HOME"); filepath.IsAbs(home) {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			cmd.Dir = home
		}
	}
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	for _, line := range slices.Backward(strings.Split(out.String(), "\n")) {
		if p, ok := strings.CutPrefix(line, marker); ok {
			return p, nil
		}
	}
	if ctx.Err() != nil {
		return "", errors.New("bash -l did not finish in 3 s (does a profile file wait for input?)")
	}
	if err != nil {
		return "", fmt.Errorf("bash -l failed: %v", err)
	}
	return "", errors.New("bash -l printed no PATH")
}

// realShellsCheck finds the real shell behind each shim as the shim
// finds it: past cordon itself, and past the directories sandboxed
// commands can write. A shell not installed at all is a note (its shim
// answers 127, as the missing shell would); one found only where
// sandboxed commands can write, or none at all, fails.
func (d *doctor) realShellsCheck(pathEnv string) check {
	var roots []string
	if d.conf != nil {
		roots = d.conf.Policy.WritableRoots()
	}
	var found, absent, planted []string
	c := check{ID: "real-shells"}
	for _, name := range d.names {
		real, err := platform.FindShell(name, pathEnv, d.self, platform.AgentSince, roots...)
		var nf *platform.NotFoundError
		switch {
		case errors.As(err, &nf) && len(nf.Writable) > 0:
			planted = append(planted, name)
			c.Detail = append(c.Detail, fmt.Sprintf("%s: only in %s, which sandboxed commands can write", name, printable.String(strings.Join(nf.Writable, " "))))
		case err != nil:
			absent = append(absent, name)
		default:
			found = append(found, name+" "+printable.String(real))
		}
	}
	switch {
	case len(planted) > 0:
		c.Status = statusFail
		c.Summary = "no real shell the shim can trust behind " + strings.Join(planted, " ") + ": it refuses every command for them"
		c.Fix = "install " + strings.Join(planted, " ") + " in /bin or /usr/bin"
	case len(found) == 0:
		c.Status = statusFail
		c.Summary = "no real shell behind any shim (" + strings.Join(absent, " ") + "): every command exits 127"
		c.Fix = "install bash"
	default:
		c.Status, c.Summary = statusOK, "real shells found: "+strings.Join(found, ", ")
		if len(absent) > 0 {
			c.Summary += "; not installed (their shims answer 127 like a missing shell): " + strings.Join(absent, " ")
		}
	}
	return c
}
