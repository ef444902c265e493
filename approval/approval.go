// Package approval keeps the asks a person can approve and the
// approvals given, in STATE/approvals/ (cordon's state directory,
// outside every directory a sandboxed command can write).
//
// An ask is recorded under a short id, derived from its [Key]: the exact
// command text, how it was given (argv or a session statement) and the
// directory. `cordon approve ID` turns the ask into an approval bound to
// that key with an expiry; the next time the same command is asked in
// the same directory, [Store.Use] takes the approval. An approval for
// once is used by removing its file: of two retries racing for it,
// exactly one removes it, and only that one runs.
package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Expiries.
const (
	// AskLife is how long an ask can be approved.
	AskLife = 24 * time.Hour
	// OnceLife is how long an approval for once waits for the retry.
	OnceLife = 30 * time.Minute
)

// Key identifies an exact request: how it was given (mode: "argv",
// "statement", "windows"), its text, and the directory.
func Key(mode, text, dir string) string {
	h := sha256.Sum256([]byte(mode + "\x00" + text + "\x00" + dir))
	return hex.EncodeToString(h[:])
}

// ID is the short id of the ask with key.
func ID(key string) string { return key[:8] }

// An Ask is a command that was asked about.
type Ask struct {
	ID        string    `json:"id"`
	Key       string    `json:"key"`
	Mode      string    `json:"mode"`
	Text      string    `json:"text"` // exact, unmasked: what an always-here rule binds
	Shown     string    `json:"shown"`
	Dir       string    `json:"dir"`
	Workspace string    `json:"workspace,omitempty"`
	Reasons   []string  `json:"reasons"`
	Time      time.Time `json:"time"`
	// Agent is set when the ask is a command an agent wrapped (see
	// AgentKey): Shown is the command inside, and Text, the exact
	// wrapped line, holds names the agent changes on every run.
	Agent string `json:"agent,omitempty"`
}

// A Grant is an approval.
type Grant struct {
	ID      string    `json:"id"`
	Key     string    `json:"key"`
	Shown   string    `json:"shown"`
	Dir     string    `json:"dir"`
	Once    bool      `json:"once"`
	Expires time.Time `json:"expires"`
}

// A Store is the approvals directory of a state directory.
type Store struct{ Dir string }

// New returns the store in the state directory state.
func New(state string) *Store { return &Store{Dir: filepath.Join(state, "approvals")} }

func (s *Store) pending(id string) string { return filepath.Join(s.Dir, "pending", id+".json") }
func (s *Store) granted(key string) string {
	return filepath.Join(s.Dir, "granted", key+".json")
}

// Record keeps a, replacing an earlier ask of the same id.
func (s *Store) Record(a *Ask) error {
	a.ID = ID(a.Key)
	return writeJSON(s.pending(a.ID), a)
}

// Pending lists the asks of the last AskLife, newest first.
func (s *Store) Pending() ([]*Ask, error) {
	files, err := filepath.Glob(filepath.Join(s.Dir, "pending", "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Ask
	for _, f := range files {
		var a Ask
		if readJSON(f, &a) != nil {
			continue
		}
		if time.Since(a.Time) > AskLife {
			os.Remove(f)
			continue
		}
		out = append(out, &a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out, nil
}

// Damaged lists the pending asks' files that cannot be read (cut short
// by a crash, a full disk): Pending leaves them out, and a person must
// be told rather than see "no pending asks".
func (s *Store) Damaged() []string {
	files, _ := filepath.Glob(filepath.Join(s.Dir, "pending", "*.json"))
	var out []string
	for _, f := range files {
		var a Ask
		if err := readJSON(f, &a); err != nil && !errors.Is(err, os.ErrNotExist) {
			out = append(out, f)
		}
	}
	return out
}

// Lookup returns the pending ask id.
func (s *Store) Lookup(id string) (*Ask, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) != 8 || strings.Trim(id, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("%q is not an ask id (8 hexadecimal digits, as the refusal printed it)", id)
	}
	var a Ask
	err := readJSON(s.pending(id), &a)
	if errors.Is(err, os.ErrNotExist) || err == nil && time.Since(a.Time) > AskLife {
		return nil, fmt.Errorf("no pending ask %s (asks can be approved for %v; `cordon pending` lists them)", id, AskLife)
	}
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// Grant approves a: for once (within OnceLife) when d is 0, else for
// every retry within d. The ask is no longer pending.
func (s *Store) Grant(a *Ask, d time.Duration) (*Grant, error) {
	g := &Grant{ID: a.ID, Key: a.Key, Shown: a.Shown, Dir: a.Dir, Once: d == 0}
	if d == 0 {
		d = OnceLife
	}
	g.Expires = time.Now().Add(d)
	if err := writeJSON(s.granted(a.Key), g); err != nil {
		return nil, err
	}
	os.Remove(s.pending(a.ID))
	return g, nil
}

// Done removes the ask a from the pending ones.
func (s *Store) Done(a *Ask) { os.Remove(s.pending(a.ID)) }

// Use takes the approval for key, if there is one that has not expired,
// and returns its id. An approval for once is removed by the one caller
// that gets it.
func (s *Store) Use(key string) (string, bool) {
	name := s.granted(key)
	var g Grant
	if readJSON(name, &g) != nil || g.Key != key {
		return "", false
	}
	if time.Now().After(g.Expires) {
		os.Remove(name)
		return "", false
	}
	if g.Once && os.Remove(name) != nil {
		return "", false // another retry took it
	}
	return g.ID, true
}

// Granted reports whether an approval for key is kept and has not
// expired, without taking it: a hook that answers before the shim lets
// the command go on to the shim, which takes it with [Store.Use].
func (s *Store) Granted(key string) bool {
	var g Grant
	return readJSON(s.granted(key), &g) == nil && g.Key == key && time.Now().Before(g.Expires)
}

// writeJSON writes v to name atomically (a temporary file renamed).
func writeJSON(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// hostsFile keeps the network hosts a person approved, by workspace.
func (s *Store) hostsFile() string { return filepath.Join(s.Dir, "hosts.json") }

// ApproveHost lets sandboxed commands in workspace ws connect to host
// (a name, or an address) with the network allowlist, until revoked.
func (s *Store) ApproveHost(ws, host string) error {
	hosts := map[string][]string{}
	if err := readJSON(s.hostsFile(), &hosts); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, h := range hosts[ws] {
		if h == host {
			return nil
		}
	}
	hosts[ws] = append(hosts[ws], host)
	return writeJSON(s.hostsFile(), hosts)
}

// RevokeHost takes back an approval of host for ws; it reports whether
// there was one.
func (s *Store) RevokeHost(ws, host string) (bool, error) {
	hosts := map[string][]string{}
	if err := readJSON(s.hostsFile(), &hosts); err != nil {
		return false, nil
	}
	n := len(hosts[ws])
	hosts[ws] = slices.DeleteFunc(hosts[ws], func(h string) bool { return h == host })
	if len(hosts[ws]) == n {
		return false, nil
	}
	return true, writeJSON(s.hostsFile(), hosts)
}

// Hosts returns the hosts approved for workspace ws.
func (s *Store) Hosts(ws string) []string {
	hosts := map[string][]string{}
	readJSON(s.hostsFile(), &hosts)
	return hosts[ws]
}

// DialogLife is how long an approval given in an agent's own dialog
// (cordon hook) waits for the agent to run the command.
const DialogLife = 5 * time.Minute

// DialogKey identifies a command put to a person in an agent's own
// permission dialog: the agent's session, the command's text as the
// dialog showed it, what cordon refuses in it (see decide.RefusedPieces)
// and the directory.
func DialogKey(session, text, pieces, dir string) string {
	return Key("dialog", session+"\x00"+text+"\x00"+pieces, dir)
}

// AgentKey identifies a command an agent's model wrote, found inside the
// agent's wrapper (rules.Wrapper): the agent, the shell, the command,
// what cordon refuses in it (see decide.RefusedPieces) and the directory.
// The wrapper's temporary names are not part of it, so that the agent's
// retry of the same command finds the approval.
func AgentKey(agent, shell, command, pieces, dir string) string {
	return Key("agent", agent+"\x00"+shell+"\x00"+command+"\x00"+pieces, dir)
}

// GrantDialog records an approval for once of the dialog key, within
// DialogLife; shown is the command as the dialog showed it.
func (s *Store) GrantDialog(key, shown, dir string) (*Grant, error) {
	g := &Grant{ID: "dialog-" + ID(key), Key: key, Shown: shown, Dir: dir, Once: true, Expires: time.Now().Add(DialogLife)}
	if err := writeJSON(s.granted(key), g); err != nil {
		return nil, err
	}
	return g, nil
}

// HasGrants reports whether any approval is kept (expired or not): when
// none is, nothing needs to be worked out to look one up.
func (s *Store) HasGrants() bool {
	d, err := os.Open(filepath.Join(s.Dir, "granted"))
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(1)
	return len(names) > 0
}
