package layers

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/rules"
)

// Layer is where rules come from, weakest first.
type Layer uint8

// Layers.
const (
	Builtin Layer = iota
	System
	User
	Project
)

var layerNames = [...]string{"builtin", "system", "user", "project"}

// String returns "builtin", "system", "user" or "project".
func (l Layer) String() string {
	if int(l) < len(layerNames) {
		return layerNames[l]
	}
	return "unknown"
}

// SystemDir is the system's rule directory, unless $CORDON_SYSTEM_DIR
// names another.
const SystemDir = "/etc/cordon/rules"

// A Source is where a policy or a command came from. Line is 0 for the
// built-in rules.
type Source struct {
	Layer Layer  `json:"layer"`
	File  string `json:"file"`
	Line  int    `json:"line,omitempty"`
}

// A File is one rule file that was read.
type File struct {
	Layer Layer  `json:"layer"`
	Path  string `json:"path"`
	// Hash is the sha256 of the file's bytes, in hex.
	Hash string `json:"hash"`
	// Trusted is false for a project file whose content the user has not
	// trusted: only what tightens applies.
	Trusted bool `json:"trusted"`
}

// Loaded is the outcome of [Load].
type Loaded struct {
	// Set is the effective rule set.
	Set *rules.Set
	// Policies and Commands give the source of each policy, by id, and
	// of each command not built in, by its key ([rules.Namespace.Key]).
	Policies map[string]Source
	Commands map[string]Source
	// Files are the rule files read, weakest first.
	Files []File
	// Warnings are "file:line: message" lines: examples that failed,
	// what an untrusted project file may not do, trust that was dropped.
	Warnings []string
	// Guard are files that decide the rules besides the project's (the
	// system's and user's rule files, the trust records, the cache):
	// sandboxed commands must not be able to write them.
	Guard []string
}

// Dirs returns the directories rule files are read from for workspace
// ("" for none), weakest first: the system's, the user's (when there is
// a home or $XDG_CONFIG_HOME) and the project's (when there is a
// workspace). They need not exist.
func Dirs(workspace string, getenv func(string) string) []string {
	dirs := []string{SystemDir}
	if d := getenv("CORDON_SYSTEM_DIR"); filepath.IsAbs(d) {
		dirs[0] = d
	}
	if d := userDir(getenv); d != "" {
		dirs = append(dirs, d)
	}
	if workspace != "" {
		dirs = append(dirs, filepath.Join(workspace, ".cordon"))
	}
	return dirs
}

// layerOf returns the layer of the directory dirs[i].
func layerOf(dirs []string, i int, workspace string) Layer {
	switch {
	case workspace != "" && i == len(dirs)-1:
		return Project
	case i == 0:
		return System
	}
	return User
}

func userDir(getenv func(string) string) string {
	if d := config.Dir(getenv); d != "" {
		return filepath.Join(d, "rules")
	}
	return ""
}

// stateDir is [config.StateDir].
func stateDir(getenv func(string) string) string { return config.StateDir(getenv) }

// A found file is a rule file read from disk.
type found struct {
	File
	data  []byte
	size  int64
	mtime time.Time
}

// scan reads the rule files of every layer. A directory or file that
// does not exist is no error.
func scan(workspace string, getenv func(string) string) ([]*found, error) {
	var out []*found
	dirs := Dirs(workspace, getenv)
	for i, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			return nil, &rules.LoadError{File: dir, Msg: "cannot read the rule directory: " + err.Error()}
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".yaml") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			f, err := read(filepath.Join(dir, e.Name()), layerOf(dirs, i, workspace), workspace)
			if err != nil {
				return nil, err
			}
			if f != nil {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// maxFile bounds a rule file: a link to /dev/zero must not exhaust
// memory.
const maxFile = 1 << 20

// read reads one rule file. It must be a regular file of at most maxFile
// bytes (a FIFO would hang every command, a device fill memory); a
// project's file must also lie in the workspace, so that a repository
// cannot make cordon read, and quote in an error, a file of the user's
// through a link.
func read(path string, layer Layer, workspace string) (*found, error) {
	bad := func(msg string) (*found, error) {
		return nil, &rules.LoadError{File: path, Msg: msg}
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil // deleted, or a dangling link
	case err != nil:
		return bad("cannot read the rule file: " + err.Error())
	case fi.IsDir():
		return nil, nil
	case !fi.Mode().IsRegular():
		return bad("is not a regular file (" + fi.Mode().Type().String() + "); remove it")
	case fi.Size() > maxFile:
		return bad(fmt.Sprintf("is larger than %d bytes; cordon does not read rule files that large", maxFile))
	}
	if layer == Project {
		real, err := filepath.EvalSymlinks(path)
		top, err2 := filepath.EvalSymlinks(workspace)
		if err != nil || err2 != nil || !strings.HasPrefix(real, top+string(filepath.Separator)) {
			return bad("is a link to a file outside the workspace; a project's rule files must lie in it")
		}
	}
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return bad("cannot read the rule file: " + err.Error())
	}
	defer file.Close()
	if fi, err = file.Stat(); err != nil || !fi.Mode().IsRegular() {
		return bad("changed while it was read; try again")
	}
	data, err := io.ReadAll(io.LimitReader(file, maxFile+1))
	if err != nil {
		return bad("cannot read the rule file: " + err.Error())
	}
	if len(data) > maxFile {
		return bad(fmt.Sprintf("is larger than %d bytes; cordon does not read rule files that large", maxFile))
	}
	sum := sha256.Sum256(data)
	return &found{File: File{Layer: layer, Path: path, Hash: hex.EncodeToString(sum[:]), Trusted: layer != Project},
		data: data, size: fi.Size(), mtime: fi.ModTime()}, nil
}

// builtin is the built-in rule set, made once.
var builtin = sync.OnceValue(rules.Builtin)

// builtinLoaded is what Load returns when there are no rule files.
func builtinLoaded() *Loaded {
	return &Loaded{Set: builtin()}
}

// Load returns the effective rules for workspace ("" for none): the
// built-in rules with the system's, the user's and the project's rule
// files laid over them (see the package documentation). judge judges the
// policies' examples; nil leaves them unchecked.
//
// The error is a *[rules.LoadError] with the file and line when a rule
// file cannot be read, decoded or compiled: nothing of the rules is
// usable then, and a shim must run nothing. Without rule files, Load
// costs a few stat calls; with them, a cache in the state directory
// spares decoding them again while they do not change.
func Load(workspace string, getenv func(string) string, judge Judge) (*Loaded, error) {
	files, err := scan(workspace, getenv)
	if err != nil || len(files) == 0 {
		if err != nil {
			return nil, err
		}
		return builtinLoaded(), nil
	}
	state := stateDir(getenv)
	trust := readTrust(state)
	for _, f := range files {
		if f.Layer == Project && trust.Files[f.Path] == f.Hash {
			f.Trusted = true
		}
	}
	c := &cache{dir: state, workspace: workspace, key: cacheKey(files, trust)}
	memoKey := workspace + "\x00" + state + "\x00" + c.key
	if l := recall(memoKey); l != nil {
		return l, nil
	}
	if l := c.load(); l != nil {
		return remember(memoKey, l), nil
	}
	l, err := decodeAll(files, trust, judge)
	if err != nil {
		return nil, err
	}
	c.save(l)
	l.Loaded.Guard = guard(files, state, c.path())
	return remember(memoKey, l.Loaded), nil
}

// last is the process's last load, by the same key as the cache on disk
// (every file's path, size, time and content, and the trust records): a
// shim that loads the rules to judge and again to confine decodes them
// once. A Loaded is not changed once made.
var last struct {
	sync.Mutex
	key string
	l   *Loaded
}

func recall(key string) *Loaded {
	last.Lock()
	defer last.Unlock()
	if last.key == key {
		return last.l
	}
	return nil
}

func remember(key string, l *Loaded) *Loaded {
	last.Lock()
	defer last.Unlock()
	last.key, last.l = key, l
	return l
}

// guard lists the files that decide the rules besides the project's.
func guard(files []*found, state, cacheFile string) []string {
	var out []string
	for _, f := range files {
		if f.Layer != Project {
			out = append(out, f.Path)
		}
	}
	if state != "" {
		out = append(out, filepath.Join(state, trustFile), cacheFile)
	}
	return out
}
