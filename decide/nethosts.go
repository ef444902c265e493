package decide

import (
	"bufio"
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/nethost"
	"github.com/cordonsh/cordon/netproxy"
)

// netAllow is what the network allowlist adds for workspace ws, besides
// the rules: the hosts of the repository's own git remotes (so that git
// fetch and push reach them) and the hosts a person approved for the
// workspace (cordon approve --host).
func netAllow(ws, stateDir string) []string {
	if ws == "" {
		return nil
	}
	hosts := remoteHosts(ws)
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

// remoteHosts returns the hosts of the remotes (url and pushurl of each
// [remote "..."] section) in the repository configuration of ws. It
// reads the file, without running git: a command's start must not pay
// for a process. insteadOf rewrites from other files are not applied.
// configLines returns the lines of a git configuration file as git
// reads them, trimmed: a line that ends in a backslash goes on with the
// next (git's continuation), so that the next is never taken for a
// section or a key of its own (a command that wrote `name = a\` above
// `[remote "origin"]` would have had cordon see a remote git does not).
func configLines(data []byte) []string {
	var out []string
	cont := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		raw := strings.TrimRight(sc.Text(), " \t\r")
		joined := strings.HasSuffix(raw, "\\") && (len(raw)-len(strings.TrimRight(raw, "\\")))%2 == 1
		if joined {
			raw = raw[:len(raw)-1]
		}
		if cont {
			out[len(out)-1] += raw
		} else {
			out = append(out, strings.TrimSpace(raw))
		}
		cont = joined
	}
	return out
}

func remoteHosts(ws string) []string {
	data, err := os.ReadFile(repoConfig(ws))
	if err != nil {
		return nil
	}
	var hosts []string
	inRemote := false
	for _, line := range configLines(data) {
		if strings.HasPrefix(line, "[") {
			inRemote = strings.HasPrefix(strings.ToLower(line), "[remote ")
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !inRemote || !ok || (key != "url" && key != "pushurl") {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), `"`)
		if nethost.Local(val) {
			continue
		}
		for _, h := range nethost.Hosts(val) {
			// A remote names one host: "*" would be a glob of the rules
			// (https://*/ opening every destination).
			if h != "" && !strings.ContainsAny(h, "/\\ *") {
				hosts = append(hosts, h)
			}
		}
	}
	return hosts
}

// repoConfig is the configuration file of the repository at ws: in
// .git, or, for a worktree or submodule (.git a file), in the git
// directory it names, or that directory's common one.
func repoConfig(ws string) string {
	dotgit := filepath.Join(ws, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil || fi.IsDir() {
		return filepath.Join(dotgit, "config")
	}
	data, _ := os.ReadFile(dotgit)
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ws, dir)
	}
	if common, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		return filepath.Join(c, "config")
	}
	return filepath.Join(dir, "config")
}

// gitRemotes returns the HTTPS remotes (url and pushurl) of the
// repository at ws that the person configured, as HOST/PATH (HOST:PORT
// for another port than 443; PATH the repository's, without the slashes
// around it): the remotes sandboxed commands added (the
// guard's ledger keeps them) are left out, so that a command cannot
// have the person's credential asked for a host of its choosing. Read
// from the file, as remoteHosts.
func gitRemotes(ws, stateDir string) []string {
	if ws == "" {
		return nil
	}
	data, err := os.ReadFile(repoConfig(ws))
	if err != nil {
		return nil
	}
	var agent []string
	if stateDir != "" {
		agent = guard.AgentRemotes(stateDir, ws)
	}
	var remotes []string
	remote := ""
	for _, line := range configLines(data) {
		if strings.HasPrefix(line, "[") {
			remote = ""
			if len(line) > 8 && strings.EqualFold(line[:8], "[remote ") {
				remote = strings.Trim(strings.TrimSuffix(strings.TrimSpace(line[8:]), "]"), `"`)
			}
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if remote == "" || !ok || (key != "url" && key != "pushurl") || slices.Contains(agent, remote) {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(val), `"`))
		if err != nil || strings.ToLower(u.Scheme) != "https" || u.Hostname() == "" || strings.ContainsAny(u.Host, "*%") {
			continue
		}
		h := strings.ToLower(u.Host)
		if u.Port() == "443" {
			h = strings.ToLower(u.Hostname())
		}
		r := h + "/" + strings.Trim(u.Path, "/")
		if !slices.Contains(remotes, r) {
			remotes = append(remotes, r)
		}
	}
	return remotes
}
