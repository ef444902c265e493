// Package gitcred asks the host's git for the person's own credential
// for an HTTPS host (git credential fill), for cordon's credential broker:
// the sandbox holds a placeholder, and the broker, on the host, puts what
// this returns on the requests to that host alone (docs/network.md).
//
// Nothing of any repository is read: git runs in "/" with GIT_DIR
// pointing nowhere, with the system's and the person's own configuration
// only (the account's home, not the command's HOME), none of the judged
// command's environment, no prompt of any kind and a time limit.
package gitcred

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cordonsh/cordon/gitkey"
)

// A Helper runs the host's git to fill credentials.
type Helper struct {
	// Git is the host's git: one sandboxed commands cannot replace.
	Git string
	// Home is the person's home directory (the account's), whose
	// .gitconfig and .config/git/config git reads.
	Home string
	// Path are the directories where git looks for helpers
	// (git-credential-*, gh): none that sandboxed commands can write.
	Path []string
	// Env are more variables the helpers may need (the desktop's
	// secret service: DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR),
	// "NAME=value"; only those names are taken.
	Env []string
	// Timeout bounds one fill; 10 s when zero.
	Timeout time.Duration
	// Writable, when set, reports whether sandboxed commands can write
	// path: git's configuration is refused when a file of it (an
	// included one too, or one an include names that is not there
	// yet) or a helper program it names by path is such a place (a
	// person's ~/.gitconfig including their dotfiles repository, where
	// the agent works, would have the host run what it wrote there).
	Writable func(path string) bool
}

// passed are the variables of Env a helper is given.
var passed = []string{"DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "USER", "LOGNAME"}

// maxOutput bounds what git may answer with.
const maxOutput = 64 << 10

// nowhere is the GIT_DIR git is given: not a repository, so that none is
// found or read.
const nowhere = "/nonexistent/cordon-no-repository"

// ErrNone is wrapped by Fill's error when the host has no credential
// for the host.
var ErrNone = errors.New("no git credential")

// Fill returns the username and password the person's git credential
// helpers give for https://host (host may carry ":PORT"). The error says
// why there is none, and how to configure one.
func (h *Helper) Fill(ctx context.Context, host string) (user, password string, err error) {
	if host == "" || strings.ContainsFunc(host, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '/' || r == ' ' }) {
		return "", "", fmt.Errorf("gitcred: %q is not a host", host)
	}
	if h.Git == "" || h.Home == "" {
		return "", "", fmt.Errorf("%w for %s: the host's git or the person's home directory is not known", ErrNone, host)
	}
	timeout := h.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := h.checkConfig(ctx); err != nil {
		return "", "", fmt.Errorf("%w for %s: %v", ErrNone, host, err)
	}
	cmd := exec.CommandContext(ctx, h.Git, "--no-pager", "-c", "credential.interactive=never", "credential", "fill")
	cmd.Dir = "/"
	cmd.Env = h.env()
	cmd.Stdin = strings.NewReader("protocol=https\nhost=" + host + "\n\n")
	var out, stderr limited
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = time.Second // a helper's child holding the pipes
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", "", fmt.Errorf("%w for %s: the host's git credential helper did not answer within %s", ErrNone, host, timeout)
	case out.over:
		return "", "", fmt.Errorf("%w for %s: the host's git credential helper answered with more than %d bytes", ErrNone, host, maxOutput)
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		return "", "", fmt.Errorf("%w for %s on this machine (git credential fill: %s); a person can configure one outside the agent: a credential helper (git config --global credential.helper), or gh auth setup-git", ErrNone, host, firstLine(msg))
	}
	for _, line := range strings.Split(out.String(), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "username":
			user = v
		case "password":
			password = v
		}
	}
	if password == "" {
		return "", "", fmt.Errorf("%w for %s on this machine: the credential helpers gave no password; a person can configure one outside the agent: a credential helper (git config --global credential.helper), or gh auth setup-git", ErrNone, host)
	}
	return user, password, nil
}

// checkConfig refuses the person's git configuration (the system's and
// the global one, with what they include) when h.Writable holds a file
// of it, a file an include names, or a credential helper named by path
// (a "!" helper's every path-like word).
func (h *Helper) checkConfig(ctx context.Context) error {
	if h.Writable == nil {
		return nil
	}
	for _, scope := range []string{"--system", "--global"} {
		cmd := exec.CommandContext(ctx, h.Git, "--no-pager", "config", scope, "--includes", "--show-origin", "--list", "-z")
		cmd.Dir = "/"
		cmd.Env = slices.DeleteFunc(h.env(), func(kv string) bool { return strings.HasPrefix(kv, "GIT_DIR=") })
		var out limited
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil && ctx.Err() != nil {
			return fmt.Errorf("git config %s did not answer in time", scope)
		}
		if out.over {
			return fmt.Errorf("git's %s configuration is larger than %d bytes", scope[2:], maxOutput)
		}
		// Entries come as "ORIGIN\0KEY\nVALUE\0" (no "\n" when no value).
		fields := strings.Split(out.String(), "\x00")
		for i := 0; i+1 < len(fields); i += 2 {
			origin, entry := fields[i], fields[i+1]
			file, isFile := strings.CutPrefix(origin, "file:")
			key, value, _ := strings.Cut(entry, "\n")
			key = strings.ToLower(key)
			var paths []string
			if isFile {
				paths = append(paths, file)
			}
			switch {
			case gitkey.Include(key):
				paths = append(paths, gitkey.Path(value, filepath.Dir(file), h.Home))
			case key == "credential.helper" || strings.HasPrefix(key, "credential.") && strings.HasSuffix(key, ".helper"):
				for _, w := range helperPaths(value) {
					paths = append(paths, gitkey.Path(w, "/", h.Home))
				}
			}
			for _, p := range paths {
				if filepath.IsAbs(p) && h.Writable(p) {
					return fmt.Errorf("the person's git configuration (%s: %s) reads or runs %s, which sandboxed commands can write; a person can move it out of the agent's reach", file, key, p)
				}
			}
		}
	}
	return nil
}

// helperPaths are the programs a credential helper value names by path:
// its first word, or every word of a "!" shell command that looks like a
// path (starts with "/" or "~/", quotes and shell punctuation taken off).
func helperPaths(v string) []string {
	v = strings.TrimSpace(v)
	shell := strings.HasPrefix(v, "!")
	words := strings.FieldsFunc(strings.TrimPrefix(v, "!"), func(r rune) bool {
		return r == ' ' || r == '\t' || shell && strings.ContainsRune(`'"=;&|<>()$`+"`", r)
	})
	var out []string
	for i, w := range words {
		if (shell || i == 0) && (strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/")) {
			out = append(out, w)
		}
	}
	return out
}

// env is git's whole environment: nothing of the judged command's.
func (h *Helper) env() []string {
	env := []string{
		"PATH=" + strings.Join(h.Path, ":"), "HOME=" + h.Home, "LC_ALL=C",
		"GIT_DIR=" + nowhere, "GIT_CEILING_DIRECTORIES=/",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GCM_INTERACTIVE=never",
	}
	for _, kv := range h.Env {
		name, _, _ := strings.Cut(kv, "=")
		for _, p := range passed {
			if name == p {
				env = append(env, kv)
			}
		}
	}
	return env
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// limited keeps the first maxOutput bytes written to it.
// (Not an embedded bytes.Buffer: io.Copy would use its ReadFrom.)
type limited struct {
	b    bytes.Buffer
	over bool
}

func (l *limited) String() string { return l.b.String() }

func (l *limited) Write(p []byte) (int, error) {
	n := len(p)
	if l.b.Len()+len(p) > maxOutput {
		l.over = true
		p = p[:max(0, maxOutput-l.b.Len())]
	}
	l.b.Write(p)
	return n, nil
}
