package platform

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordonsh/cordon/broker"
	"github.com/cordonsh/cordon/gitcred"
)

// git over HTTPS to the workspace's own remotes (docs/network.md, "git
// push"): for each of p.GitRemotes, git in the sandbox gets a credential
// helper, through configuration in its environment, that answers with a
// placeholder; the broker holds a credential for that host alone whose
// value is the person's own, asked of the host's git (git credential
// fill, package gitcred) when a request needs it.

// GitCredentials returns the broker's credentials for p's git remotes
// (one for each host, going to its remotes' paths only: a command cannot
// push the workspace to another repository on the same host with the
// person's credential), their placeholders made under key, and the git
// configuration the sandbox gets for them (see [WithGitConfig]).
// brokered is false when no broker serves the sandbox (the network is
// not the allowlist, or the broker could not start): then the
// configuration's helpers hold nothing and say why git cannot
// authenticate there.
func GitCredentials(p *Policy, key []byte, brokered bool) ([]broker.Credential, [][2]string) {
	if len(p.GitRemotes)+len(p.GitRefused) == 0 {
		return nil, nil
	}
	var hosts []string
	paths := map[string][]string{}
	repos := map[string][]string{} // as refusals name them
	for _, r := range p.GitRemotes {
		h, path, _ := strings.Cut(r, "/")
		if !gitHostOK(h) {
			continue
		}
		if _, ok := paths[h]; !ok {
			hosts = append(hosts, h)
		}
		// The path as the remote names it, with or without ".git", and
		// below it only git's own endpoints: a bare prefix would take
		// /me/app/drop.git, another repository on a server whose
		// repositories nest (found by an attacker).
		base := "/" + strings.TrimSuffix(strings.TrimRight(path, "/"), ".git")
		repos[h] = append(repos[h], base[1:])
		for _, r := range []string{base, base + ".git"} {
			for _, e := range gitEndpoints {
				paths[h] = append(paths[h], r+e)
			}
		}
	}
	fill := hostGit(p)
	var creds []broker.Credential
	var config [][2]string
	for _, h := range hosts {
		name := "credential.https://" + h + ".helper"
		if !brokered {
			config = append(config, [2]string{name, ""}, [2]string{name, gitHelperRefusal(h, p.Network)})
			continue
		}
		ph := broker.Placeholder(key, "git:"+h, "")
		host := h
		creds = append(creds, broker.Credential{
			Name: "git credential for " + h, Placeholder: ph, Hosts: []string{h}, Paths: paths[h],
			PathsSaid: "git's endpoints of the repositories " + strings.Join(repos[h], ", ") + ", with or without .git",
			Lookup:    func(ctx context.Context, _ string) (string, string, error) { return fill.Fill(ctx, host) },
		})
		config = append(config, [2]string{name, ""}, [2]string{name, gitHelper(ph)})
	}
	return creds, append(config, gitRefusals(p, hosts)...)
}

// gitEndpoints are the paths below a repository's that git's HTTP
// protocols ask for: the smart protocol's three, the dumb protocol's
// files, and Git LFS's API (its default endpoint is the repository's
// URL with "/info/lfs" after it). The broker takes each as a prefix.
var gitEndpoints = []string{"/info/refs", "/git-upload-pack", "/git-receive-pack", "/HEAD", "/objects/", "/info/lfs/"}

// gitRefusals is the configuration for the hosts of p.GitRefused that
// are not in own: a helper that says why git has no credential there.
func gitRefusals(p *Policy, own []string) [][2]string {
	var config [][2]string
	for _, r := range p.GitRefused {
		h, _, _ := strings.Cut(r, "/")
		if !gitHostOK(h) || slices.Contains(own, h) {
			continue
		}
		own = append(own, h)
		name := "credential.https://" + h + ".helper"
		msg := "cordon: git gets no credential for " + h + " here: " + p.GitRefusal + ". The person's git credential goes only to the remotes they configured themselves (docs/network.md). To push or fetch there, run git yourself, outside the agent."
		config = append(config, [2]string{name, ""}, [2]string{name, gitHelperSays(msg)})
	}
	return config
}

// gitHostOK reports whether h is a host git's configuration key and the
// helper can carry: a name or an address, an optional port.
func gitHostOK(h string) bool {
	return h != "" && !strings.ContainsFunc(h, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:[]", r))
	})
}

// gitHelper is the sandbox's credential helper for a brokered host: it
// answers git's "get" with the placeholder (never anything real: it
// holds nothing else), and ignores "store" and "erase".
func gitHelper(placeholder string) string {
	return `!f() { test "$1" = get || exit 0; cat >/dev/null; echo username=cordon; echo password=` + placeholder + `; }; f`
}

// gitHelperRefusal is the helper for host when nothing brokers its
// credential: it says why, and stops git from prompting.
func gitHelperRefusal(host string, network Network) string {
	why := "cordon's credential broker could not start for this sandbox"
	if network != NetworkAllowlist {
		why = "cordon brokers git credentials only with the network allowlist (sandbox.network: allowlist), and this sandbox has the network " + string(network)
	}
	return gitHelperSays("cordon: git's credential for " + host + " is the person's own, which cordon's proxy puts on requests to that host without the sandbox holding it; " + why + ", so git cannot authenticate here (docs/network.md)")
}

// gitHelperSays is a helper that answers git's "get" with msg on
// standard error, and stops git from prompting.
func gitHelperSays(msg string) string {
	return `!f() { test "$1" = get || exit 0; cat >/dev/null; echo '` + strings.ReplaceAll(msg, "'", "") + `' >&2; echo quit=1; }; f`
}

// WithGitConfig returns env with the configuration pairs added after
// those env already has (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n,
// GIT_CONFIG_VALUE_n: what the agent set keeps working, and git reads
// the added ones last).
func WithGitConfig(env []string, config [][2]string) []string {
	if len(config) == 0 {
		return env
	}
	n, err := strconv.Atoi(Getenv(env, "GIT_CONFIG_COUNT"))
	if err != nil || n < 0 || n > 1<<16 {
		n = 0
	}
	var set []string
	for i, kv := range config {
		set = append(set, "GIT_CONFIG_KEY_"+strconv.Itoa(n+i)+"="+kv[0], "GIT_CONFIG_VALUE_"+strconv.Itoa(n+i)+"="+kv[1])
	}
	set = append(set, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(config)))
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") })
	})
	return append(out, set...)
}

// hostGit is the host's git, as the process that starts p's sandbox
// finds it, for the person's own credentials: outside every directory
// the sandbox can write, run with the person's home (HOME, else the
// account's) when neither it nor git's files there are in such a
// directory (a command could name a helper there, which would run on
// the host), helpers looked for only outside them too, and refused
// when its configuration includes a file, or names a helper by path, in
// one.
func hostGit(p *Policy) *gitcred.Helper {
	return hostGitFor(p.WritableRoots(), func(name string) string { return Getenv(p.Env, name) }, p.SinceAgent)
}

// hostGitFor is hostGit for a sandbox that can write untrusted (its
// caches too: a helper planted in ~/go/bin), with the command's
// variables as getenv gives them.
func hostGitFor(untrusted []string, getenv func(string) string, since func() time.Time) *gitcred.Helper {
	path := getenv("PATH")
	if path == "" {
		path = os.Getenv("PATH")
	}
	// The configuration directory git and gh read, when it is one
	// sandboxed commands cannot write (as for the home below).
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		dir, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME=")
		return ok && (!filepath.IsAbs(dir) || leadsInto(dir, untrusted))
	})
	h := &gitcred.Helper{Env: env, Writable: func(p string) bool { return leadsInto(p, untrusted) }}
	for _, home := range []string{getenv("HOME"), AccountHome()} {
		if trustedHome(home, untrusted) {
			h.Home = home
			break
		}
	}
	h.Path = HostDirs(path, untrusted, since)
	h.Changed = func(p string) bool {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return false // not there: nothing runs
		}
		fi, err := os.Stat(real)
		return err == nil && writtenSince(real, fi, since)
	}
	h.Git, _ = FindProgram("git", path, untrusted, since)
	return h
}

// leadsInto reports whether a file at p is, or would be made, in one of
// roots: where its links lead, a link whose target is not there yet
// included (realPath stops at such a link; a command could make the
// target between a check and a read).
func leadsInto(p string, roots []string) bool {
	for range 40 {
		real := realPath(p)
		if within(p, roots) || within(real, roots) {
			return true
		}
		fi, err := os.Lstat(real)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return false
		}
		target, err := os.Readlink(real)
		if err != nil {
			return true
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(real), target)
		}
		p = target
	}
	return true // a loop of links: nothing to trust
}

// trustedHome reports whether git's configuration in home (.gitconfig,
// .config/git/config) is out of reach of sandboxed commands: neither the
// directory nor those files (where links lead, made yet or not) are in
// untrusted.
func trustedHome(home string, untrusted []string) bool {
	if !filepath.IsAbs(home) {
		return false
	}
	for _, p := range []string{home, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config"), filepath.Join(home, ".config", "git"), filepath.Join(home, ".config", "git", "config")} {
		if leadsInto(p, untrusted) {
			return false
		}
	}
	return true
}

// gitStoreFiles are the files the person's git configuration has git's
// own helpers keep credentials in at paths of its choosing (store's
// --file, cache's --socket), to be hidden as ~/.git-credentials is. The
// configuration's files are recorded as witnesses of the answer (the
// default ones there or not); an answer that cannot be had is not kept.
func (r *resolver) gitStoreFiles(p *Policy) []string {
	defaults := []string{"/etc/gitconfig"}
	for _, home := range []string{r.getenv("HOME"), AccountHome()} {
		if filepath.IsAbs(home) {
			defaults = append(defaults, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
		}
	}
	var files, config []string
	var err error
	if namesMore(defaults) {
		h := hostGitFor(p.WritableRoots(), r.getenv, p.SinceAgent)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if h.Git != "" && h.Home != "" {
			files, config, err = h.StoreFiles(ctx)
		}
	}
	if r.rec != nil {
		if err != nil {
			r.rec.bad = true
		}
		for _, f := range append(config, defaults...) {
			r.realPath(f) // each name on the way, there or not
			if _, err := os.Stat(f); err == nil {
				r.rec.file(f)
			}
		}
	}
	return files
}

// namesMore reports whether one of git's configuration files may name a
// store file or include another: it holds "--file", "--socket" or
// "include" once git's quotes and line continuations are taken out, or
// cannot be read. Otherwise no git need run (one costs milliseconds).
func namesMore(files []string) bool {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return true
		}
		text := strings.ToLower(gitUnquote.Replace(string(data)))
		if strings.Contains(text, "--file") || strings.Contains(text, "--socket") || strings.Contains(text, "include") {
			return true
		}
	}
	return false
}

// gitUnquote takes out what git takes out of a value: quotes, a line's
// end after a backslash.
var gitUnquote = strings.NewReplacer("\\\r\n", "", "\\\n", "", `"`, "")
