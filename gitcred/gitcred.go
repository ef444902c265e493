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
	"os"
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
	// secret service: DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR; where
	// git and gh read their configuration: XDG_CONFIG_HOME),
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
	// Changed, when set, reports whether the program or script at path
	// may be the agent's own work: a file of this user's changed since
	// the agent started (its file tools write outside cordon's sandbox,
	// so a helper rewritten in place is not in Writable's reach).
	// git's configuration is refused when a credential helper runs such
	// a file: one it names by path, or one it is found as on Path.
	Changed func(path string) bool
}

// passed are the variables of Env a helper is given.
var passed = []string{"DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "USER", "LOGNAME"}

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
// of it, a file an include names, or a file a credential helper names
// by path (its program, a "!" helper's every path, an argument's:
// store's --file, cache's --socket), or h.Changed a program a helper
// runs.
func (h *Helper) checkConfig(ctx context.Context) error {
	if h.Writable == nil && h.Changed == nil {
		return nil
	}
	entries, err := h.config(ctx)
	if err != nil {
		return err
	}
	for _, e := range entries {
		var named []string
		switch {
		case e.include():
			named = []string{e.value}
		case e.helper():
			named = helperPaths(e.value, h.getenv)
		}
		var paths []string
		if e.file != "" {
			paths = append(paths, e.file)
		}
		for _, n := range named {
			p, err := gitkey.Path(n, filepath.Dir(e.file), h.Home, h.Git)
			if err != nil {
				return fmt.Errorf("the person's git configuration (%s: %s) names %s: %v", e.file, e.key, n, err)
			}
			paths = append(paths, p)
		}
		for _, p := range paths {
			if filepath.IsAbs(p) && h.Writable != nil && h.Writable(p) {
				return fmt.Errorf("the person's git configuration (%s: %s) reads or runs %s, which sandboxed commands can write; a person can move it out of the agent's reach", e.file, e.key, p)
			}
		}
		if e.helper() && h.Changed != nil {
			if p := h.changedProgram(e.value); p != "" {
				return fmt.Errorf("the person's git configuration (%s: %s) runs %s, which changed since the agent started (its file tools write outside cordon's sandbox); a person can check that file and restart the agent", e.file, e.key, p)
			}
		}
	}
	return nil
}

// changedProgram is a file credential helper v runs that h.Changed
// holds, or "": every file it names by path but a store's data (its
// --file or --socket), and the program its first word is found as on
// h.Path ("!NAME ..." as NAME, "NAME ..." as git-credential-NAME; git
// looks in its own directory first, which only makes this stricter).
func (h *Helper) changedProgram(v string) string {
	words := helperWords(v, h.getenv)
	data := storeArgs(words)
	for _, n := range helperPaths(v, h.getenv) {
		p, err := gitkey.Path(n, "/", h.Home, h.Git)
		if err == nil && !slices.Contains(data, n) && h.Changed(p) {
			return p
		}
	}
	if len(words) == 0 || strings.ContainsAny(words[0], `/\~`) {
		return ""
	}
	name := words[0]
	if !strings.HasPrefix(strings.TrimSpace(v), "!") {
		name = "git-credential-" + name
	}
	for _, dir := range h.Path {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			if h.Changed(p) {
				return p
			}
			return ""
		}
	}
	return ""
}

// StoreFiles returns where the person's git configuration has git's own
// helpers keep credentials at a path it chooses (store's --file, cache's
// --socket: credential.helper = "store --file=~/.secrets/git"), and the
// files of that configuration (what the answer depends on).
func (h *Helper) StoreFiles(ctx context.Context) (files, config []string, err error) {
	entries, err := h.config(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if e.file != "" && !slices.Contains(config, e.file) {
			config = append(config, e.file)
		}
		if e.include() {
			if p, err := gitkey.Path(e.value, filepath.Dir(e.file), h.Home, h.Git); err == nil && filepath.IsAbs(p) {
				config = append(config, p) // there yet or not
			}
		}
		if !e.helper() {
			continue
		}
		for _, n := range storeArgs(helperWords(e.value, h.getenv)) {
			p, err := gitkey.Path(n, "/", h.Home, h.Git)
			if err != nil {
				return nil, nil, fmt.Errorf("the person's git configuration (%s: %s) names %s: %v", e.file, e.key, n, err)
			}
			files = append(files, p)
		}
	}
	return files, config, nil
}

// storeArgs are the values of the --file and --socket options among a
// credential helper's words.
func storeArgs(words []string) []string {
	var out []string
	for i, w := range words {
		for _, opt := range []string{"--file", "--socket"} {
			if rest, ok := strings.CutPrefix(w, opt+"="); ok && rest != "" {
				out = append(out, rest)
			} else if w == opt && i+1 < len(words) {
				out = append(out, words[i+1])
			}
		}
	}
	return out
}

// An entry is one setting of git's configuration, and the file it is in
// ("" when not a file).
type entry struct {
	file, key, value string
}

// include reports whether e names a file to include.
func (e entry) include() bool {
	return e.key == "include.path" || strings.HasPrefix(e.key, "includeif.") && strings.HasSuffix(e.key, ".path")
}

// helper reports whether e names a credential helper.
func (e entry) helper() bool {
	return e.key == "credential.helper" || strings.HasPrefix(e.key, "credential.") && strings.HasSuffix(e.key, ".helper")
}

// config lists the person's git configuration, the system's and the
// global one with what they include, as the host's git reads it (keys in
// lower case): one git, outside any repository.
func (h *Helper) config(ctx context.Context) ([]entry, error) {
	cmd := exec.CommandContext(ctx, h.Git, "--no-pager", "config", "--includes", "--show-origin", "--list", "-z")
	cmd.Dir = "/"
	cmd.Env = slices.DeleteFunc(h.env(), func(kv string) bool { return strings.HasPrefix(kv, "GIT_DIR=") })
	var out limited
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		return nil, errors.New("git config did not answer in time")
	}
	if out.over {
		return nil, fmt.Errorf("git's configuration is larger than %d bytes", maxOutput)
	}
	// Entries come as "ORIGIN\0KEY\nVALUE\0" (no "\n" when no value).
	var entries []entry
	fields := strings.Split(out.String(), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		file, isFile := strings.CutPrefix(fields[i], "file:")
		if !isFile {
			file = ""
		}
		key, value, _ := strings.Cut(fields[i+1], "\n")
		entries = append(entries, entry{file: file, key: strings.ToLower(key), value: value})
	}
	return entries, nil
}

// helperPaths are the files a credential helper value names by path
// (git runs every helper with the shell: a "!" one, one named by path,
// and "NAME ARGS" as "git credential-NAME ARGS"): each of its words, or
// an option's value after "=", that starts with "/" or "~"
// ("store --file=~/creds", "!$HOME/bin/cred").
func helperPaths(v string, getenv func(string) string) []string {
	var out []string
	for _, w := range helperWords(v, getenv) {
		_, val, _ := strings.Cut(w, "=")
		for _, c := range []string{w, val} {
			if strings.HasPrefix(c, "/") || strings.HasPrefix(c, "~") {
				out = append(out, c)
			}
		}
	}
	return out
}

// helperWords are the words of a credential helper value as the shell
// splits them, its variables put in as getenv gives them ("$NAME",
// "${NAME}"), quotes and shell punctuation taken off.
func helperWords(v string, getenv func(string) string) []string {
	v = os.Expand(strings.TrimPrefix(strings.TrimSpace(v), "!"), getenv)
	return strings.FieldsFunc(v, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || strings.ContainsRune(`'";&|<>()`+"`", r)
	})
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

// getenv is the value of a variable of git's environment (see env).
func (h *Helper) getenv(name string) string {
	for _, kv := range h.env() {
		if n, v, _ := strings.Cut(kv, "="); n == name {
			return v
		}
	}
	return ""
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
