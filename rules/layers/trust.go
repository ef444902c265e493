package layers

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/internal/atomicfile"
)

// trustFile is the trust records' file in the state directory.
const trustFile = "trust.json"

// trustRecords are the project rule files the user trusted: the sha256
// of each, by path.
type trustRecords struct {
	Version int               `json:"version"`
	Files   map[string]string `json:"files"`

	data []byte // the file as read, for the cache key
}

// readTrust reads the trust records in state; none when it cannot.
func readTrust(state string) *trustRecords {
	t := &trustRecords{Version: 1, Files: map[string]string{}}
	if state == "" {
		return t
	}
	data, err := os.ReadFile(filepath.Join(state, trustFile))
	if err != nil {
		return t
	}
	var read trustRecords
	if json.Unmarshal(data, &read) == nil && read.Files != nil {
		t.Files = read.Files
	}
	t.data = data
	return t
}

func (t *trustRecords) write(state string) error {
	if state == "" {
		return fmt.Errorf("there is no state directory to keep trust in: set HOME or XDG_STATE_HOME")
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(state, trustFile), append(data, '\n'))
}

// Trust records the content of the project rule files of workspace as
// trusted, replacing what was trusted there before, and returns the
// files. It fails when there is no workspace or no state directory;
// trust is then unchanged.
func Trust(workspace string, getenv func(string) string) ([]File, error) {
	files, err := projectFiles(workspace)
	if err != nil {
		return nil, err
	}
	state := stateDir(getenv)
	t := readTrust(state)
	forget(t, workspace)
	var out []File
	for _, f := range files {
		t.Files[f.Path] = f.Hash
		f.Trusted = true
		out = append(out, f.File)
	}
	return out, t.write(state)
}

// Revoke forgets the trust in the project rule files of workspace and
// returns the paths that were trusted.
func Revoke(workspace string, getenv func(string) string) ([]string, error) {
	if workspace == "" {
		return nil, fmt.Errorf("there is no workspace here: run it in the project, or give its directory")
	}
	state := stateDir(getenv)
	t := readTrust(state)
	gone := forget(t, workspace)
	if len(gone) == 0 {
		return nil, nil
	}
	return gone, t.write(state)
}

// forget removes the records of workspace's project files from t.
func forget(t *trustRecords, workspace string) []string {
	prefix := filepath.Join(workspace, ".cordon") + string(filepath.Separator)
	var gone []string
	for p := range t.Files {
		if strings.HasPrefix(p, prefix) {
			gone = append(gone, p)
			delete(t.Files, p)
		}
	}
	slices.Sort(gone)
	return gone
}

// projectFiles reads the project rule files of workspace.
func projectFiles(workspace string) ([]*found, error) {
	if workspace == "" {
		return nil, fmt.Errorf("there is no workspace here: run it in the project, or give its directory")
	}
	files, err := scan(workspace, func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(files, func(f *found) bool { return f.Layer != Project }), nil
}
