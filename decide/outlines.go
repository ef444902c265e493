package decide

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/platform"
)

// outlineStore keeps the outlines of large scripts (a shell snapshot
// sourced before every command: see parse/outline.go) in the state
// directory's outlines/, one file per script, named by the script's key
// and this binary (its path, size and modification time: another build
// parses with another parser). Like the policy cache, it is used only
// when the sandbox is on and does not let commands write the state
// directory; a file not the user's own, readable or writable by others,
// not whole (its checksum) or not well formed is no outline, and a file
// that cannot be written only costs the next judgement a whole parse.
type outlineStore struct {
	ctx  *Context
	dir  string
	once sync.Once
	ok   bool
}

// maxOutlines bounds the outlines kept: past it the oldest go.
const maxOutlines = 64

// maxOutlineFile bounds an outline file read.
const maxOutlineFile = 1 << 20

// outlineHeader is an outline file's first line.
const outlineHeader = "cordon-outline-cache 1"

// outlines returns the context's outline store, or nil when there can
// be none: outside Linux, whose state files alone are read as the
// user's own ([platform.ReadOwnFile]).
func (ctx *Context) outlines() parse.Outlines {
	if runtime.GOOS != "linux" || ctx.Settings == nil || ctx.Settings.Sandbox.Backend == platform.BackendNone || ctx.Getenv == nil {
		return nil
	}
	state := StateDir(ctx.Getenv)
	if state == "" || !filepath.IsAbs(state) {
		return nil
	}
	return &outlineStore{ctx: ctx, dir: filepath.Join(state, "outlines")}
}

// usable reports, once, whether no command the sandbox confines can
// write the state directory ([Context.runRoots]: in the shim, from the
// policy it makes next anyway).
func (s *outlineStore) usable() bool {
	s.once.Do(func() {
		roots, err := s.ctx.runRoots()
		s.ok = err == nil && !Within(filepath.Dir(s.dir), roots)
	})
	return s.ok
}

// binaryID names this executable, once per process.
var binaryID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
})

func (s *outlineStore) file(key string) string {
	id := binaryID()
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id + "\x00" + key))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16]))
}

// Outline returns the outline kept for key.
func (s *outlineStore) Outline(key string) ([]byte, bool) {
	file := s.file(key)
	if file == "" {
		return nil, false
	}
	// Looked for first: a script without one (most) costs no policy.
	data, ok := platform.ReadOwnFile(file, maxOutlineFile)
	if !ok || !s.usable() {
		return nil, false
	}
	head, rest, _ := strings.Cut(string(data), "\n")
	sumLine, body, _ := strings.Cut(rest, "\n")
	if head != outlineHeader || sumLine != fmt.Sprintf("crc %08x", crc32.ChecksumIEEE([]byte(body))) {
		return nil, false
	}
	return []byte(body), true
}

// KeepOutline keeps data as the outline for key.
func (s *outlineStore) KeepOutline(key string, data []byte) {
	file := s.file(key)
	if file == "" || !s.usable() || len(data) > maxOutlineFile/2 || os.MkdirAll(s.dir, 0o700) != nil {
		return
	}
	out := fmt.Appendf(nil, "%s\ncrc %08x\n", outlineHeader, crc32.ChecksumIEEE(data))
	if atomicfile.Write(file, append(out, data...)) == nil {
		s.trim()
	}
}

// trim removes the oldest outlines past [maxOutlines].
func (s *outlineStore) trim() {
	entries, err := os.ReadDir(s.dir)
	if err != nil || len(entries) <= maxOutlines {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			all = append(all, aged{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return int(min(max(a.mod-b.mod, -1), 1)) })
	for _, a := range all[:max(0, len(all)-maxOutlines)] {
		os.Remove(filepath.Join(s.dir, a.name))
	}
}
