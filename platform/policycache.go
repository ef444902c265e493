package platform

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/internal/filestamp"
	"github.com/cordonsh/cordon/internal/smallfile"
)

// The policy cache. Resolving a policy looks at a few hundred paths and
// lists the directories where sockets are made; most of it gives the
// same answer from one command to the next. So what does not depend on
// the places commands can write (the hidden, missing, visible and socket
// paths, see [hostPaths]) is kept in a file per workspace in cordon's
// state directory, with:
//
//   - a key: this binary, the effective user, the mount namespace, the spec, the variables
//     its entries name, the home directory, the workspace and the
//     writable directories, resolved afresh every time;
//   - the witnesses: every file and directory whose state the answers
//     depended on (each directory a name was looked up in, links
//     followed, each directory listed, /etc/passwd), with its device,
//     inode and change and modification times. Adding, removing or
//     renaming an entry changes its directory's times, and replacing a
//     directory its inode: any change that could change an answer
//     changes a witness. A witness changed less than [racyMargin] before
//     the resolution started could change again within the same clock
//     tick unseen: then nothing is kept.
//
// The listings of the scratch directories and of the socket search are
// kept per directory, each with its own witness, so that a busy /tmp
// costs one listing, not all of them.
//
// Only the state directory can hold the cache, and only when the policy
// (whose writable part is never taken from the cache) does not let
// commands write there: the same rule as for the approvals and the
// audit log kept beside it. A file not owned by the user, readable or
// writable by others, not whole (its checksum) or not well formed is
// ignored and replaced. Whenever in doubt, the policy is resolved again.

// racyMargin is how recent a witness's times may be for the cache to be
// kept: more than the coarsest file system clock tick and the lag of
// the kernel's coarse clock.
var racyMargin = filestamp.Margin

// maxCacheSize bounds the cache file read.
const maxCacheSize = 8 << 20

// cacheFormat is the first line of a cache file; a new format gets a
// new line.
const cacheFormat = "cordon-policy-cache 1"

// A stamp is what a witness looks like: a file's identity and times, or
// its absence.
type stamp struct {
	Exists       bool
	Dev, Ino     uint64
	Mtime, Ctime int64 // nanoseconds
}

// racy reports whether st changed so recently before t0 that a later
// change might not show.
func (st stamp) racy(t0 time.Time) bool {
	limit := t0.Add(-racyMargin).UnixNano()
	return st.Exists && (st.Mtime >= limit || st.Ctime >= limit)
}

// A dirEntry is a subdirectory or a socket in a directory listing.
type dirEntry struct {
	Name   string
	Socket bool
}

// readDirPlain lists dir's subdirectories and sockets; one that cannot
// be listed lists none.
func readDirPlain(dir string) []dirEntry {
	entries, _, _ := listDir(dir)
	return entries
}

// listDir is [readDirPlain] that also says how many entries dir has
// (what listing it cost), and why a directory that is there could not
// be listed (a directory gone, or not one, lists nothing, with no
// error). The subdirectories and sockets come sorted by name.
func listDir(dir string) (out []dirEntry, n int, err error) {
	out, n, _, err = listDirStamped(dir)
	return out, n, err
}

// listDirStamped is [listDir] that also gives the stamp of the directory
// it read, taken from its descriptor before its entries (not of whatever
// its path names: a parent renamed meanwhile puts another directory
// there); st.Exists is false where there are no stamps.
func listDirStamped(dir string) (out []dirEntry, n int, st stamp, err error) {
	n, err = smallfile.ReadDirTypes(dir, func(name []byte, typ smallfile.Type) {
		switch typ {
		case smallfile.Dir:
			out = append(out, dirEntry{Name: string(name)})
		case smallfile.Socket:
			out = append(out, dirEntry{Name: string(name), Socket: true})
		}
	}, func(fd int) { st = fdStamp(fd) })
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			err = nil
		}
		return nil, 0, stamp{}, err
	}
	slices.SortFunc(out, func(a, b dirEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, n, st, nil
}

// A recorder collects the witnesses of one resolution.
type recorder struct {
	t0    time.Time
	dirs  map[string]*dirWitness
	files map[string]stamp
	// bad is set when a witness cannot be trusted (a file changed too
	// recently, or an answer that is neither a file nor its absence):
	// nothing is kept.
	bad bool
}

// A dirWitness is what answers in one directory depended on: the names
// looked up in it and what they were, and, when it was listed, its
// names. Its stamp unchanged (and not too recent), they are the same;
// else they are looked at again.
type dirWitness struct {
	stamp  stamp
	racy   bool
	names  map[string]answer
	listed bool
	list   string // a hash of the names, when listed
}

// An answer is what a name was: its inode, its type and, for a link,
// what it points to (an inode number is soon used again); or its
// absence.
type answer struct {
	Exists bool
	Ino    uint64
	Type   uint32
	Target string
}

func (rec *recorder) dir(d string) *dirWitness {
	d = filepath.Clean(d)
	if w := rec.dirs[d]; w != nil {
		return w
	}
	st, ok := statStamp(d)
	if !ok {
		rec.bad = true
	}
	w := &dirWitness{stamp: st, racy: st.racy(rec.t0), names: map[string]answer{}}
	rec.dirs[d] = w
	return w
}

// lookup records what lstat(p) answered.
func (rec *recorder) lookup(p string, fi os.FileInfo, err error) {
	p = filepath.Clean(p)
	if p == "/" {
		return
	}
	a, ok := answerOf(p, fi, err)
	if !ok {
		rec.bad = true
	}
	rec.dir(filepath.Dir(p)).names[filepath.Base(p)] = a
}

// listed records that d was listed, with these names.
func (rec *recorder) listed(d string, names []string) {
	w := rec.dir(d)
	w.listed, w.list = true, hashNames(names)
}

// file records that a file's content was read.
func (rec *recorder) file(p string) {
	st, ok := statStamp(p)
	if !ok || st.racy(rec.t0) {
		rec.bad = true
	}
	rec.files[p] = st
}

// answerOf is the answer of an lstat; ok is false for an error that is
// not the file's absence.
func answerOf(p string, fi os.FileInfo, err error) (answer, bool) {
	if err != nil {
		return answer{}, errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	a := answer{Exists: true, Ino: inode(fi), Type: uint32(fi.Mode().Type())}
	if fi.Mode()&os.ModeSymlink != 0 {
		if a.Target, err = os.Readlink(p); err != nil || a.Target == "" {
			return a, false
		}
	}
	return a, true
}

func hashNames(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// listNames returns the names in d.
func listNames(d string) ([]string, error) {
	f, err := os.Open(d)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// valid reports whether the witnesses still hold, looking again at the
// answers of a directory whose stamp changed. Directories that held are
// given their new stamps, and refreshed is set.
func (rec *recorder) valid(t0 time.Time) (ok, refreshed bool) {
	for p, want := range rec.files {
		if st, ok := statStamp(p); !ok || st != want {
			return false, false
		}
	}
	for d, w := range rec.dirs {
		st, ok := statStamp(d)
		if !ok {
			return false, false
		}
		if !w.racy && st == w.stamp {
			continue
		}
		if w.listed {
			names, err := listNames(d)
			if err != nil || hashNames(names) != w.list {
				return false, false
			}
		}
		for name, want := range w.names {
			p := filepath.Join(d, name)
			fi, err := os.Lstat(p)
			a, ok := answerOf(p, fi, err)
			if !ok || a != want {
				return false, false
			}
		}
		// The new stamp is worth writing down only when a later start can
		// trust it (a directory that keeps changing, a home directory with
		// a shell's history, is checked by its names every time anyway).
		w.stamp, w.racy = st, st.racy(t0)
		refreshed = refreshed || !w.racy
	}
	return true, refreshed
}

// ResolveLinks resolves the absolute path p component by component,
// following symbolic links (40 at most), with lookup (an lstat): what
// each link met is, lookup is told.
func ResolveLinks(p string, lookup func(string) (os.FileInfo, error)) {
	todo, done := filepath.Clean(p), "/"
	for links := 0; todo != "" && links < 40; {
		var elem string
		elem, todo, _ = strings.Cut(strings.TrimLeft(todo, "/"), "/")
		switch elem {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, elem)
		fi, err := lookup(next)
		if err != nil {
			return
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			return
		}
		links++
		if filepath.IsAbs(target) {
			done = "/"
		}
		todo = target + "/" + todo
	}
}

// glob is [filepath.Glob], each directory it reads told to the
// recorder.
func (r *resolver) glob(pattern string) []string {
	if before, after, ok := strings.Cut(pattern, "/**"); ok && (after == "" || after[0] == '/') {
		// Not recorded: "**" is for the workspace's places, which are
		// resolved afresh every time.
		return globDeep(before, after)
	}
	if r.rec == nil {
		matches, _ := filepath.Glob(pattern)
		return matches
	}
	if !hasGlob(pattern) {
		if _, err := r.lstatFile(pattern); err != nil {
			return nil
		}
		return []string{pattern}
	}
	dir, file := filepath.Split(pattern)
	dir = filepath.Clean(dir)
	dirs := []string{dir}
	if hasGlob(dir) && dir != pattern {
		dirs = r.glob(dir)
	}
	var out []string
	for _, d := range dirs {
		// filepath.Glob looks only in directories.
		r.realPath(d)
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		names, err := listNames(d)
		if err != nil {
			r.rec.bad = true
			continue
		}
		r.rec.listed(d, names)
		sort.Strings(names)
		for _, n := range names {
			if ok, err := filepath.Match(file, n); err != nil {
				return out
			} else if ok {
				out = append(out, filepath.Join(d, n))
			}
		}
	}
	return out
}

// A policyCache is the cache file of one workspace: what was read from
// it and what will be written back.
type policyCache struct {
	file string
	t0   time.Time
	key  string
	old  cacheData
	new  cacheData
	// changed is set when the host paths or their witnesses differ
	// from what the file holds.
	changed bool
	// relisted counts the listings that differ, relistedEntries the
	// entries those that could be kept had.
	relisted, relistedEntries int
}

// cacheData is a cache file's content.
type cacheData struct {
	key       string
	witnesses *recorder
	host      *hostPaths
	listings  map[string]*listing
}

// A listing is a directory's subdirectories and sockets, and its stamp.
type listing struct {
	stamp   stamp
	entries []dirEntry
}

// openPolicyCache returns the cache for p's workspace in dir, or nil when
// dir is "": the caller passes only a directory [keepable] for p (no
// witnesses on this system, or a dir that p lets commands write, is
// none).
func openPolicyCache(dir string, p *Policy) *policyCache {
	if dir == "" {
		return nil
	}
	return openCacheFile(cacheFile(dir, p.Workspace, p.Home))
}

// openCacheFile returns the cache kept in file.
func openCacheFile(file string) *policyCache {
	c := &policyCache{
		file: file,
		t0:   time.Now(),
		new:  cacheData{listings: map[string]*listing{}},
	}
	c.old = readCache(c.file)
	return c
}

// keepListingsIn makes the state directory dir keep the listings of p's
// search for sockets, when p lets no command write there ([keepable]).
func (p *Policy) keepListingsIn(dir string) {
	if keepable(dir, p) {
		p.listingsIn = dir
	}
}

// listingsFile is the file in dir that keeps the socket search's
// listings for a home directory (one for every workspace: the search
// reads the same scratch directories, /run and home directory from all).
// A file of the policy cache's form with listings only: read by the
// manager of a new session, not by every command as the policy cache is.
func listingsFile(dir, home string) string {
	sum := sha256.Sum256([]byte("sockets\x00" + home))
	return filepath.Join(dir, "policy", "sockets-"+hex.EncodeToString(sum[:12]))
}

// keepable reports whether directory dir may hold what a policy's
// making keeps for the next (the cache, the index's gitlinks): it is
// outside every directory a sandbox made from p lets commands write, and
// files can be stamped here.
func keepable(dir string, p *Policy) bool {
	if dir == "" || !filepath.IsAbs(dir) || !canStamp {
		return false
	}
	real := realPath(dir)
	return !slices.ContainsFunc(p.WritableRoots(), func(w string) bool { return Within(real, w) })
}

// cacheFile is the cache file in dir for a workspace and a home.
func cacheFile(dir, ws, home string) string {
	sum := sha256.Sum256([]byte(ws + "\x00" + home))
	return filepath.Join(dir, "policy", hex.EncodeToString(sum[:12]))
}

// hostPaths returns the cached host paths for s, env and p, or nil when
// there are none or something they were made from has changed.
func (c *policyCache) hostPaths(s *Spec, env []string, p *Policy) *hostPaths {
	c.key = cacheKey(s, env, p)
	if c.old.host == nil || c.old.key != c.key {
		return nil
	}
	ok, refreshed := c.old.witnesses.valid(c.t0)
	if !ok {
		return nil
	}
	c.changed = c.changed || refreshed
	c.new.key, c.new.host, c.new.witnesses = c.key, c.old.host, c.old.witnesses
	return c.old.host
}

// recorder returns a recorder for a resolution whose result c may keep,
// or nil without a cache.
func (c *policyCache) recorder() *recorder {
	if c == nil {
		return nil
	}
	return &recorder{t0: c.t0, dirs: map[string]*dirWitness{}, files: map[string]stamp{}}
}

// keep makes hp, resolved with rec's witnesses, the cached host paths.
func (c *policyCache) keep(hp *hostPaths, rec *recorder) {
	if c == nil {
		return
	}
	c.changed = true
	if rec.bad {
		return
	}
	c.new.key, c.new.host, c.new.witnesses = c.key, hp, rec
}

// readDir lists dir's subdirectories and sockets, from the cache when
// dir has not changed since; err says why a directory that is there
// could not be listed (its listing is then never kept).
func (c *policyCache) readDir(dir string) ([]dirEntry, error) {
	if c == nil {
		entries, _, err := listDir(dir)
		return entries, err
	}
	if l, ok := c.new.listings[dir]; ok {
		return l.entries, nil
	}
	st, ok := statStamp(dir)
	if !ok || !st.Exists {
		if c.old.listings[dir] != nil {
			c.relisted++
		}
		entries, _, err := listDir(dir)
		return entries, err
	}
	if l := c.old.listings[dir]; l != nil && l.stamp == st {
		c.new.listings[dir] = l
		return l.entries, nil
	}
	// A directory changed too recently (a busy /tmp) is listed every
	// time: the file is rewritten only when it gains or loses one. A
	// listing is kept only under the stamp of the directory it was read
	// from: found by its path twice (stamped, then listed), it could be
	// two directories (a parent swapped with another between the two, by
	// a command of a sandbox that can write the parent's parent), and a
	// listing kept under the other's stamp would stand for the directory
	// as long as that stamp holds (found by an attacker).
	if beforeListing != nil {
		beforeListing(dir)
	}
	entries, n, read, err := listDirStamped(dir)
	if err != nil {
		return nil, err
	}
	if read == st && !st.racy(c.t0) {
		c.new.listings[dir] = &listing{stamp: st, entries: entries}
		c.relisted++
		c.relistedEntries += n
	} else if c.old.listings[dir] != nil {
		c.relisted++
	}
	return entries, nil
}

// beforeListing, when set (by tests), runs between a directory's stamp
// and its listing in [policyCache.readDir].
var beforeListing func(dir string)

// maxRelisted is how many directories may be listed again, their
// listings in the file out of date, before the file is written: writing
// it costs more than a few listings. maxRelistedEntries is the same
// bound in entries read: a large directory (a /tmp of a few hundred
// entries) costs more to list than the file to write, and was listed at
// every command once it had changed after the file was last written.
const (
	maxRelisted        = 8
	maxRelistedEntries = 128
)

// save writes the cache when it changed; a cache that cannot be
// written only costs the next command the resolution.
func (c *policyCache) save() {
	if c == nil || !c.changed && c.relisted <= maxRelisted && c.relistedEntries <= maxRelistedEntries {
		return
	}
	body := c.new.encode()
	out := fmt.Appendf(nil, "%s\ncrc %08x\n", cacheFormat, crc32.ChecksumIEEE(body))
	writeFileAtomic(c.file, append(out, body...))
}

// writeFileAtomic writes data to file (mode 0600, its directory made
// 0700) through a temporary file renamed over it.
func writeFileAtomic(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(file, data)
}

// cacheKey identifies what the host paths are made from besides the
// witnessed files.
func cacheKey(s *Spec, env []string, p *Policy) string {
	h := sha256.New()
	field := func(name string, values ...string) {
		fmt.Fprintf(h, "%s %d\n", name, len(values))
		for _, v := range values {
			h.Write([]byte(v))
			h.Write([]byte{0})
		}
	}
	self, _ := os.Executable()
	st, _ := statStamp(self)
	field("binary", self, fmt.Sprint(st))
	field("euid", strconv.Itoa(os.Geteuid()))
	// Mounts change answers without changing a directory: a sandbox
	// (another mount namespace) never takes the host's entries, nor
	// the other way round.
	mnt, _ := os.Readlink("/proc/self/ns/mnt")
	field("mounts", mnt)
	field("home", p.Home)
	field("workspace", p.Workspace)
	field("roots", p.WritableRoots()...)
	lists := [][]string{s.Scratch, s.ScratchPrivate, s.Writable, s.ReadOnly, s.Hidden, s.Visible, s.Sockets, s.Caches, s.Filtered}
	for i, l := range lists {
		field("spec"+strconv.Itoa(i), l...)
	}
	field("private-tmp", strconv.FormatBool(s.PrivateTmp))
	getenv := envLookup(env)
	var vars []string
	for _, l := range lists {
		for _, e := range l {
			if name, ok := strings.CutPrefix(e, "$"); ok {
				name, _, _ = strings.Cut(name, "/")
				vars = append(vars, name+"="+getenv(name))
			}
		}
	}
	field("env", append(vars, "HOME="+getenv("HOME"))...)
	return hex.EncodeToString(h.Sum(nil))
}

// encode writes d in the cache's line format: one record a line, a
// letter and fields separated by spaces, the last field (a path or a
// name) the rest of the line, quoted when it holds a line break.
func (d *cacheData) encode() []byte {
	var b []byte
	line := func(tag string, fields ...uint64) {
		b = append(b, tag...)
		for _, f := range fields {
			b = append(b, ' ')
			b = strconv.AppendUint(b, f, 10)
		}
	}
	end := func(last string) {
		b = append(b, ' ')
		b = append(b, encodeField(last)...)
		b = append(b, '\n')
	}
	stamp := func(tag string, st stamp) {
		line(tag, st.Dev, st.Ino)
		b = append(b, ' ')
		b = strconv.AppendInt(b, st.Mtime, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, st.Ctime, 10)
	}
	if d.host != nil {
		b = append(b, "k "+d.key+"\n"...)
		for _, p := range slices.Sorted(maps.Keys(d.witnesses.files)) {
			stamp("f", d.witnesses.files[p])
			end(p)
		}
		for _, dir := range slices.Sorted(maps.Keys(d.witnesses.dirs)) {
			w := d.witnesses.dirs[dir]
			stamp("w", w.stamp)
			b = append(b, " -"...)
			if w.stamp.Exists {
				b = append(b, 'e')
			}
			if w.racy {
				b = append(b, 'r')
			}
			end(dir)
			if w.listed {
				b = append(b, "l "+w.list+"\n"...)
			}
			for _, name := range slices.Sorted(maps.Keys(w.names)) {
				a := w.names[name]
				exists := uint64(0)
				if a.Exists {
					exists = 1
				}
				line("n", exists, a.Ino, uint64(a.Type))
				end(name)
				if a.Target != "" {
					b = append(b, 't')
					end(a.Target)
				}
			}
		}
		for _, l := range []struct {
			tag   string
			paths []string
		}{{"h", d.host.Hidden}, {"m", d.host.Missing}, {"s", d.host.Sockets}, {"v", d.host.Visible}} {
			for _, p := range l.paths {
				b = append(b, l.tag...)
				end(p)
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(d.listings)) {
		l := d.listings[dir]
		stamp("d", l.stamp)
		end(dir)
		for _, e := range l.entries {
			if e.Socket {
				b = append(b, "e S"...)
			} else {
				b = append(b, "e D"...)
			}
			end(e.Name)
		}
	}
	return b
}

func encodeField(s string) string {
	if strings.ContainsAny(s, "\n\r") || strings.HasPrefix(s, `"`) {
		return strconv.Quote(s)
	}
	return s
}

func decodeField(s string) (string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return s, s != ""
	}
	u, err := strconv.Unquote(s)
	return u, err == nil && u != ""
}

// readCache reads the cache file, or returns an empty one when it is
// missing, not the user's own, not whole or not well formed.
func readCache(file string) cacheData {
	empty := cacheData{listings: map[string]*listing{}}
	data, ok := readOwnFile(file, maxCacheSize)
	if !ok {
		return empty
	}
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	sumLine, body, _ := bytes.Cut(rest, []byte("\n"))
	if string(head) != cacheFormat || string(sumLine) != fmt.Sprintf("crc %08x", crc32.ChecksumIEEE(body)) {
		return empty
	}
	d, ok := parseCache(body)
	if !ok {
		return empty
	}
	return d
}

// parseCache parses a cache file's body (see [cacheData.encode]).
func parseCache(body []byte) (cacheData, bool) {
	d := cacheData{witnesses: &recorder{dirs: map[string]*dirWitness{}, files: map[string]stamp{}}, host: &hostPaths{}, listings: map[string]*listing{}}
	var cur *listing
	var w *dirWitness
	var lastName string
	absolute := func(p string) bool { return filepath.IsAbs(p) && filepath.Clean(p) == p }
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, maxCacheSize)
	for sc.Scan() {
		tag, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return d, false
		}
		switch tag {
		case "k":
			d.key = rest
		case "f":
			st, path, ok := parseStamp(rest)
			path, pok := decodeField(path)
			if !ok || !pok || !absolute(path) {
				return d, false
			}
			st.Exists = true
			d.witnesses.files[path] = st
		case "w":
			st, rest, ok := parseStamp(rest)
			flags, path, _ := strings.Cut(rest, " ")
			path, pok := decodeField(path)
			if !ok || !pok || !absolute(path) || !strings.HasPrefix(flags, "-") {
				return d, false
			}
			st.Exists = strings.Contains(flags, "e")
			w = &dirWitness{stamp: st, racy: strings.Contains(flags, "r"), names: map[string]answer{}}
			d.witnesses.dirs[path] = w
		case "l":
			if w == nil || len(rest) != 32 {
				return d, false
			}
			w.listed, w.list = true, rest
		case "n":
			f := strings.SplitN(rest, " ", 4)
			if w == nil || len(f) != 4 || f[0] != "0" && f[0] != "1" {
				return d, false
			}
			ino, err1 := strconv.ParseUint(f[1], 10, 64)
			typ, err2 := strconv.ParseUint(f[2], 10, 32)
			name, ok := decodeField(f[3])
			if err1 != nil || err2 != nil || !ok || strings.Contains(name, "/") {
				return d, false
			}
			w.names[name] = answer{Exists: f[0] == "1", Ino: ino, Type: uint32(typ)}
			lastName = name
		case "t":
			if w == nil {
				return d, false
			}
			target, ok := decodeField(rest)
			a, found := w.names[lastName]
			if !ok || !found {
				return d, false
			}
			a.Target = target
			w.names[lastName] = a
		case "h", "m", "s", "v":
			p, ok := decodeField(rest)
			if !ok || !absolute(p) {
				return d, false
			}
			switch tag {
			case "h":
				d.host.Hidden = append(d.host.Hidden, p)
			case "m":
				d.host.Missing = append(d.host.Missing, p)
			case "s":
				d.host.Sockets = append(d.host.Sockets, p)
			case "v":
				d.host.Visible = append(d.host.Visible, p)
			}
		case "d":
			st, dir, ok := parseStamp(rest)
			dir, dok := decodeField(dir)
			if !ok || !dok || !absolute(dir) {
				return d, false
			}
			st.Exists = true
			cur = &listing{stamp: st}
			d.listings[dir] = cur
		case "e":
			kind, name, _ := strings.Cut(rest, " ")
			name, ok := decodeField(name)
			if cur == nil || !ok || kind != "D" && kind != "S" || strings.Contains(name, "/") || name == "." || name == ".." {
				return d, false
			}
			cur.entries = append(cur.entries, dirEntry{Name: name, Socket: kind == "S"})
		default:
			return d, false
		}
	}
	if sc.Err() != nil {
		return d, false
	}
	if d.key == "" || len(d.witnesses.dirs) == 0 {
		d.key, d.host, d.witnesses = "", nil, nil
	}
	return d, true
}

// parseStamp parses "dev ino mtime ctime path".
func parseStamp(s string) (stamp, string, bool) {
	f := strings.SplitN(s, " ", 5)
	if len(f) != 5 {
		return stamp{}, "", false
	}
	var st stamp
	var err [4]error
	st.Dev, err[0] = strconv.ParseUint(f[0], 10, 64)
	st.Ino, err[1] = strconv.ParseUint(f[1], 10, 64)
	st.Mtime, err[2] = strconv.ParseInt(f[2], 10, 64)
	st.Ctime, err[3] = strconv.ParseInt(f[3], 10, 64)
	path, ok := f[4], f[4] != ""
	for _, e := range err {
		ok = ok && e == nil
	}
	return st, path, ok
}

// maxDeep bounds how many directory levels "**" goes down.
const maxDeep = 64

// globDeep matches the pattern before + "/**" + after: after (a pattern
// of its own, "" for the directories themselves) in each directory that
// before matches and in every directory below, down to maxDeep levels,
// links not followed. Below a git directory (one holding HEAD, a
// submodule's in .git/modules/lib/dep) it goes on only into modules/,
// where its own submodules' git directories are: its objects, refs and
// logs hold nothing a pattern names, and walking them would cost with
// their size. The guard walks "**" the same way.
func globDeep(before, after string) []string {
	var out []string
	var down func(dir string, depth int)
	down = func(dir string, depth int) {
		if after == "" {
			out = append(out, dir)
		} else {
			m, _ := filepath.Glob(dir + after)
			out = append(out, m...)
		}
		if depth == 0 {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		gitDir := isGitDir(dir)
		for _, e := range entries {
			if e.IsDir() && (!gitDir || e.Name() == "modules") {
				down(filepath.Join(dir, e.Name()), depth-1)
			}
		}
	}
	roots, _ := filepath.Glob(before)
	for _, root := range roots {
		if fi, err := os.Lstat(root); err == nil && fi.IsDir() {
			down(root, maxDeep)
		}
	}
	return out
}
