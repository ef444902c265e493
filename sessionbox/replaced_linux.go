package sessionbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/platform"
)

// A session's sandbox lives as long as its key does (client_linux.go):
// a change that makes a new key (a policy that loosens or tightens, a new
// cordon, another program's directory to hide) makes a new sandbox, and
// what the previous one runs in the background (a dev server) stays
// there, out of reach of the commands from then on. That must not happen
// silently: the first command in the new sandbox says so, and what
// changed. Each agent's (or named session's) last key is remembered, by
// its parts, in the sessions' directory.

// keyParts are digests of the policy's parts a person can name, and
// the agent's, for saying which changed.
func keyParts(backend string, p *platform.Policy, agent string) map[string]string {
	sum := func(lists ...[]string) string {
		h := sha256.New()
		for _, l := range lists {
			for _, x := range l {
				fmt.Fprintf(h, "%s\x00", x)
			}
			h.Write([]byte{1})
		}
		return hex.EncodeToString(h.Sum(nil)[:8])
	}
	return map[string]string{
		"the sandbox backend":                               backend,
		"the workspace and what is writable":                sum([]string{p.Workspace}, p.Scratch, p.Writable, p.Caches),
		"the read-only and guarded places":                  sum(p.ReadOnly, p.Guarded, p.GitConfig, p.GitConfigSafe),
		"the hidden paths":                                  sum(p.Hidden, p.Missing, p.Visible, p.Filtered),
		"the sockets commands may reach":                    sum(p.Sockets),
		"the network settings":                              sum([]string{string(p.Network)}, p.NetAllow, p.NetDeny),
		"the resource limits or the private /tmp":           fmt.Sprintf("%v %v", p.Limits, p.PrivateTmp),
		"the credential variables set":                      sum(credentialNames(p)),
		"the agent (another under the same CORDON_SESSION)": agent,
	}
}

// allParts is every part of the session's key by name: the policy's
// ([keyParts]) and the others [Options.socket] noted.
func (o *Options) allParts() map[string]string {
	parts := map[string]string{}
	if o.keyed != nil {
		parts = keyParts(o.Backend.Name(), o.keyed, o.agent)
	}
	maps.Copy(parts, o.parts)
	return parts
}

// credentialNames are the variables p's sandbox holds by placeholder.
func credentialNames(p *platform.Policy) []string {
	var out []string
	for _, k := range p.Credentials {
		out = append(out, k.Env)
	}
	return out
}

// lastKey is what the sessions' directory remembers of an agent's last
// session.
type lastKey struct {
	Socket string            `json:"socket"`
	Parts  map[string]string `json:"parts"`
}

// busySuffix names, beside a session's socket, the file that says that
// something a command left runs on in its sandbox (its manager keeps
// it).
const busySuffix = ".busy"

// replaced is called when a session's sandbox is made for sock: it says
// on stderr when the same agent's previous session still runs something
// a command left in the background, and which parts of the key changed,
// then remembers this one.
func (o *Options) replaced(sock string) {
	if o.id == "" {
		return
	}
	parts := o.allParts()
	sum := sha256.Sum256([]byte(o.id))
	file := filepath.Join(filepath.Dir(sock), "last-"+hex.EncodeToString(sum[:12])+".json")
	var last lastKey
	if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &last) == nil && last.Socket != sock && busy(last.Socket) {
		var changed []string
		for name, v := range parts {
			if last.Parts[name] != v {
				changed = append(changed, name)
			}
		}
		slices.Sort(changed)
		why := "its key changed"
		if len(changed) > 0 {
			why = strings.Join(changed, ", ") + " changed"
		}
		fmt.Fprintf(os.Stderr, "cordon: this command runs in a new session sandbox (%s); what the previous one runs in the background (a server started by an earlier command) goes on there, out of reach of the commands from now on, until it is idle\n", why)
	}
	if data, err := json.Marshal(lastKey{Socket: sock, Parts: parts}); err == nil {
		atomicfile.Write(file, data) // (for the message alone: one cut short says nothing)
	}
}

// busy reports whether the manager of the session at sock runs, with
// something a command left running in its sandbox now. The busy file
// the manager leaves at a command's end holds how many processes its
// sandbox has at rest; a process that was only slow to exit (the
// manager waits a moment, not longer) has ended by the time another
// session is made, and does not count.
func busy(sock string) bool {
	rest, err := os.ReadFile(sock + busySuffix)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(sock + ".pid")
	if err != nil {
		return false
	}
	pid, start, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 1 || start == "" || platform.ProcessStart(n) != start {
		return false
	}
	base, err := strconv.Atoi(string(rest))
	if err != nil {
		return true
	}
	_, filters, err := identity(n)
	if err != nil {
		return true
	}
	running := 0
	for _, d := range guard.Descendants(n) {
		if _, f, err := identity(d); err == nil && f > filters {
			running++
		}
	}
	return running > base
}
