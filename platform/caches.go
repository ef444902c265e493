package platform

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cordonsh/cordon/filelock"
)

// The tools' caches (~/.npm, ~/go/pkg/mod, ~/.cache) hold code the
// host's tools run later: a package npx runs, a module go build
// compiles, a build cache's objects linked into the person's binaries.
// A sandboxed command must be able to fill them (npm ci, go build), and
// nothing it writes there may reach the host. So a sandbox sees each
// cache as the host's cache under a private layer of its own: reads come
// from the person's cache, so a warm cache stays warm, and every write
// goes to the layer, which the host never reads (an overlay on Linux,
// see caches_linux.go).
//
// The layers live in cordon's state directory, one set per workspace,
// kept from one command to the next (a second npm ci finds what the
// first downloaded). A start locks the set it uses for as long as its
// sandbox lives; a second sandbox of the same workspace meanwhile gets
// the next free set, up to maxLayers.

// maxLayers is how many sets of layers a workspace has at most; a start
// that finds them all in use shares the last one.
const maxLayers = 8

// layerIdle is how long a workspace's layers are kept unused before
// [CleanLayers] removes them.
const layerIdle = 30 * 24 * time.Hour

// LayersDir is the directory of the private layers over the caches in
// cordon's state directory: hidden in every sandbox, so that none reads
// another workspace's.
func LayersDir(stateDir string) string { return filepath.Join(stateDir, "caches") }

// layerRoot is the directory of workspace ws's sets of layers ("" for
// commands with no workspace): named by its path and identity, so that
// a workspace removed and made again starts with empty layers.
func layerRoot(stateDir, ws string) string {
	sum := sha256.Sum256([]byte(ws + "\x00" + Identity(ws)))
	return filepath.Join(LayersDir(stateDir), hex.EncodeToString(sum[:12]))
}

// layerOf is the layer of cache in the set at dir: its upper directory
// and the overlay's work directory, on one file system.
func layerOf(dir, cache string) (upper, work string) {
	sum := sha256.Sum256([]byte(cache))
	d := filepath.Join(dir, hex.EncodeToString(sum[:8]))
	return filepath.Join(d, "upper"), filepath.Join(d, "work")
}

// acquireLayers locks a set of layers for p's caches in stateDir and
// makes their directories; release unlocks it once the sandbox has
// ended. The lock is held by a descriptor of this process (close on
// exec): the process must live as long as the sandbox, or pass it on.
func acquireLayers(stateDir string, p *Policy) (dir string, lock *os.File, err error) {
	if !filepath.IsAbs(stateDir) {
		return "", nil, errors.New("no state directory for the caches' private layers")
	}
	if err := os.MkdirAll(LayersDir(stateDir), 0o700); err != nil {
		return "", nil, fmt.Errorf("cannot make the caches' private layers: %w", err)
	}
	// Resolved, as the policy's paths are (a state directory reached
	// through a link): the sandbox binds it at its real place.
	if real, err := filepath.EvalSymlinks(stateDir); err == nil {
		stateDir = real
	}
	root := layerRoot(stateDir, p.Workspace)
	if err := layerDir(root); err != nil {
		return "", nil, fmt.Errorf("cannot make the caches' private layers: %w", err)
	}
	for i := range maxLayers {
		dir = filepath.Join(root, strconv.Itoa(i))
		if err := layerDir(dir); err != nil {
			return "", nil, fmt.Errorf("cannot make the caches' private layers: %w", err)
		}
		// (No sandbox reaches a set's directory; a lock that is not a
		// plain file is still never followed.)
		if fi, err := os.Lstat(filepath.Join(dir, "lock")); err == nil && !fi.Mode().IsRegular() {
			RemoveTree(filepath.Join(dir, "lock"))
		}
		lock, err = os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return "", nil, fmt.Errorf("cannot lock the caches' private layers: %w", err)
		}
		if filelock.TryLock(lock) || i == maxLayers-1 {
			break
		}
		lock.Close()
	}
	now := time.Now()
	os.Chtimes(root, now, now) // in use: see CleanLayers
	for _, c := range p.Caches {
		upper, work := layerOf(dir, c)
		for _, d := range []string{filepath.Dir(upper), upper, work} {
			if err := layerDir(d); err != nil {
				lock.Close()
				return "", nil, fmt.Errorf("cannot make the private layer over %s: %w", c, err)
			}
		}
	}
	return dir, lock, nil
}

// layerDir makes the directory d of a layer when missing, and puts a
// directory in place of anything else there: never a link followed.
func layerDir(d string) error {
	fi, err := os.Lstat(d)
	if err == nil && fi.IsDir() {
		return nil
	}
	if err == nil {
		RemoveTree(d)
	}
	return os.Mkdir(d, 0o700)
}

// withLayers returns p for one start: with caches, a copy that names a
// set of private layers locked for it, and release, which unlocks the
// set once the sandbox has ended.
func withLayers(stateDir string, p *Policy) (_ *Policy, release func(), _ error) {
	if len(p.Caches) == 0 || p.Layer != "" { // (set already: the setup step's)
		return p, func() {}, nil
	}
	dir, lock, err := acquireLayers(stateDir, p)
	if err != nil {
		return nil, func() {}, err
	}
	c := *p
	c.Layer = dir
	return &c, func() { lock.Close() }, nil
}

// StaleLayers returns the sets of private layers of workspaces no
// sandbox has used for layerIdle and none holds now.
func StaleLayers(stateDir string) []string {
	entries, err := os.ReadDir(LayersDir(stateDir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		root := filepath.Join(LayersDir(stateDir), e.Name())
		fi, err := os.Lstat(root)
		if err != nil || !fi.IsDir() || time.Since(fi.ModTime()) < layerIdle {
			continue
		}
		busy := false
		for i := range maxLayers {
			f, err := os.Open(filepath.Join(root, strconv.Itoa(i), "lock"))
			if err != nil {
				continue
			}
			busy = busy || !filelock.TryLock(f)
			f.Close()
		}
		if !busy {
			out = append(out, root)
		}
	}
	return out
}

// CleanLayers removes what StaleLayers returns.
func CleanLayers(stateDir string) {
	for _, root := range StaleLayers(stateDir) {
		RemoveTree(root)
	}
}

// RemoveTree removes the tree at path, with its owner's directories
// that deny their owner writing or searching (a Go module cache's 0555
// directories, an overlay's work directory at 0000).
func RemoveTree(path string) error {
	if err := os.RemoveAll(path); err == nil {
		return nil
	}
	// A directory is visited before it is read: made readable first.
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(path)
}
