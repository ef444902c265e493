package guard

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
)

// A workspace's guard also keeps the configuration of repositories
// outside it that its commands can write (a person's clone directly in
// /tmp, see platform's scratch repositories), and a remote a command adds
// there is the command's, like one added to the workspace's own. But
// [AgentRemotes] of that repository, once the agent's shell is in it
// (cd /tmp/x), reads the ledgers of /tmp/x and the directories holding
// it, not the workspace's. So such remotes are also logged per state
// directory by the repository's git directory, by identity (device,
// inode, birth time: a rename keeps it, a directory made again does
// not get it), and AgentRemotes reads them there.

// elsewhereFile is the log of remotes commands added to repositories
// outside their workspace: one JSON line per change kept.
func elsewhereFile(stateDir string) string {
	return filepath.Join(stateDir, "guard", "remotes-elsewhere.log")
}

// An elsewhere line names remotes commands added to the repository whose
// git directory has identity ID ([dirID]).
type elsewhere struct {
	ID    string   `json:"d"`
	Names []string `json:"n"`
}

// noteElsewhere logs names as remotes commands added to the repository
// whose git directory is gitDir, those not logged yet. (Rare, and
// bounded: each is one of the remotes a workspace's ledger counts
// against maxAgentRemotes too.)
func noteElsewhere(stateDir, gitDir string, names []string) {
	id := dirID(gitDir)
	if stateDir == "" || id == "" {
		return
	}
	if known, ok := remotesElsewhere(stateDir, id); ok {
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(known, n) })
	}
	if len(names) == 0 {
		return
	}
	line, err := json.Marshal(elsewhere{ID: id, Names: names})
	if err != nil {
		return
	}
	appendLine(stateDir, elsewhereFile(stateDir), line)
}

// remotesElsewhere returns the remotes commands added to the repository
// whose git directory has identity id. A line that cannot be read makes
// every remote the command's: ok is then false.
func remotesElsewhere(stateDir, id string) (names []string, ok bool) {
	data, err := os.ReadFile(elsewhereFile(stateDir))
	if err != nil || id == "" {
		return nil, true
	}
	all, ok := foldElsewhere(data)
	return all[id], ok
}

// foldElsewhere returns the remotes of a log read as data, by git
// directory; false when a complete line cannot be read.
func foldElsewhere(data []byte) (map[string][]string, bool) {
	all := map[string][]string{}
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if !complete {
			break // being written
		}
		var e elsewhere
		if json.Unmarshal(line, &e) != nil {
			return all, false
		}
		for _, n := range e.Names {
			if !slices.Contains(all[e.ID], n) {
				all[e.ID] = append(all[e.ID], n)
			}
		}
	}
	return all, true
}
