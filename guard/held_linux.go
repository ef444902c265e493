package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/filelock"
	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/platform"
)

// Sandboxed commands write outside their workspace too: in scratch space
// (/tmp, $TMPDIR) and in the directories the settings make writable. A
// repository made there (git init /tmp/x, remotes of the command's
// choosing) is no workspace's, and no ledger sees it made; once the
// agent's shell is in it (cd /tmp/x), its remotes would count as the
// person's, and get the person's credential. So the guard keeps, per
// state directory, when commands could write where: one interval per
// run of tickets of a workspace (from the first ticket to the last one's
// end; open while any is held), with the places its commands could
// write. A repository outside its workspace whose git directory was
// born within such an interval, in such a place (on a file system
// that keeps no birth time: in such a place), is taken for a command's
// ([madeWhileHeld]): its remotes are the command's, as if a
// ledger had seen it made. Birth times are set by the kernel and cannot
// be set back; a rename keeps them, so a repository made in the
// workspace and moved to /tmp is caught too. The person's own
// repository made in such a place while an agent's command runs there
// is taken for a command's as well: they push from it themselves.

// heldFile is where the intervals are kept, beside the ledgers: a log
// of JSON lines, one when a workspace's first ticket is taken (To zero)
// and one when its last ends, compacted when it grows.
func heldFile(stateDir string) string { return filepath.Join(stateDir, "guard", "held.log") }

// A heldInterval is a time commands of Workspace ran (To zero: they
// still may), with the places outside it they could write.
type heldInterval struct {
	Workspace string    `json:"w"`
	Roots     []string  `json:"r"`
	From      time.Time `json:"f"`
	To        time.Time `json:"t,omitzero"`
}

// maxHeld bounds the intervals a compacted log keeps; beyond it, the two
// with the shortest time between them become one that covers both (more
// is then taken for a command's, never less).
const maxHeld = 64

// heldGap is the time between two runs of a workspace's commands below
// which they count as one interval: an agent's commands come in bursts,
// and one interval per command would soon be merged with others far
// apart.
const heldGap = 10 * time.Minute

// compactAt is the size past which the log is compacted.
const compactAt = 32 << 10

// noteHeld records that commands of ws, able to write roots, run from
// from on (to zero: the first ticket was taken), or ran until to (the
// last one's end). One line appended, under a shared lock (a
// compaction takes it exclusive): no read, no rename on a command's way.
func noteHeld(stateDir, ws string, roots []string, from, to time.Time) {
	if stateDir == "" || from.IsZero() {
		return
	}
	roots = slices.DeleteFunc(slices.Clone(roots), func(r string) bool { return platform.Within(r, ws) })
	if len(roots) == 0 {
		return
	}
	line, err := json.Marshal(heldInterval{Workspace: ws, Roots: roots, From: from, To: to})
	if err != nil {
		return
	}
	file := heldFile(stateDir)
	if appendLine(stateDir, file, line) > compactAt {
		compactHeld(stateDir, file)
	}
}

// appendLine appends line to the log file of stateDir, under a shared
// lock (a compaction takes it exclusive), and returns the file's size
// after.
func appendLine(stateDir, file string, line []byte) int64 {
	if os.MkdirAll(filepath.Dir(file), 0o700) != nil {
		return 0
	}
	unlock, err := lockLog(stateDir, file, unix.LOCK_SH)
	if err != nil {
		return 0
	}
	defer unlock()
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return 0
	}
	defer f.Close()
	f.Write(append(line, '\n'))
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// lockLog takes the lock of the log file with how (unix.LOCK_SH or
// LOCK_EX): a file of its own in the state directory's locks directory,
// which no sandboxed command can open ([filelock.Dir]), not the log,
// which they can read.
func lockLog(stateDir, file string, how int) (unlock func(), err error) {
	name, err := filelock.InDir(stateDir, "guard-"+filepath.Base(file)+".lock")
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, errors.New("cannot lock " + name)
	}
	return func() { f.Close() }, nil
}

// compactHeld rewrites the log as the intervals it holds, merged
// ([foldHeld]) and bounded by maxHeld.
func compactHeld(stateDir, file string) {
	unlock, err := lockLog(stateDir, file, unix.LOCK_EX)
	if err != nil {
		return
	}
	defer unlock()
	data, err := smallfile.ReadFile(file)
	if err != nil {
		return
	}
	all := foldHeld(data)
	for len(all) > maxHeld {
		slices.SortFunc(all, func(a, b heldInterval) int { return a.From.Compare(b.From) })
		j := 0
		for k := 1; k+1 < len(all); k++ {
			if all[k+1].From.Sub(all[k].To) < all[j+1].From.Sub(all[j].To) {
				j = k
			}
		}
		a, b := all[j], all[j+1]
		m := heldInterval{Roots: append(slices.Clone(a.Roots), b.Roots...), From: a.From, To: b.To}
		if a.To.IsZero() || b.To.IsZero() {
			m.To = time.Time{}
		} else if a.To.After(m.To) {
			m.To = a.To
		}
		all = slices.Replace(all, j, j+2, m)
	}
	var out bytes.Buffer
	for _, h := range all {
		line, err := json.Marshal(h)
		if err != nil {
			return
		}
		out.Write(append(line, '\n'))
	}
	atomicfile.WriteMode(file, out.Bytes(), 0o600)
}

// readHeld returns the intervals kept in stateDir.
func readHeld(stateDir string) []heldInterval {
	data, _ := smallfile.ReadFile(heldFile(stateDir))
	return foldHeld(data)
}

// foldHeld returns the intervals of a log read as data: a line that
// ends one updates the line that began it, and a workspace's intervals
// less than heldGap apart are one. A line that cannot be read (but a
// last one still being written) makes every repository outside a
// workspace a command's: an interval over all time, everywhere.
func foldHeld(data []byte) []heldInterval {
	type key struct {
		ws   string
		from int64
	}
	var all []heldInterval
	index := map[key]int{}
	names := interned{}
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if !complete {
			break
		}
		h, ok := parseHeldLine(line, names)
		if !ok {
			h = heldInterval{}
			ok = json.Unmarshal(line, &h) == nil
		}
		if !ok || h.From.IsZero() {
			return []heldInterval{{Roots: []string{"/"}}}
		}
		k := key{h.Workspace, h.From.UnixNano()}
		i, ok := index[k]
		if !ok {
			index[k] = len(all)
			all = append(all, h)
			continue
		}
		all[i].absorb(h)
	}
	slices.SortStableFunc(all, func(a, b heldInterval) int { return a.From.Compare(b.From) })
	var out []heldInterval
	for _, h := range all {
		j := slices.IndexFunc(out, func(o heldInterval) bool {
			return o.Workspace != "" && o.Workspace == h.Workspace && !o.To.IsZero() && h.From.Sub(o.To) < heldGap
		})
		if j < 0 {
			out = append(out, h)
			continue
		}
		out[j].absorb(h)
	}
	return out
}

// parseHeldLine reads a line as [noteHeld] and [compactHeld] write it
// (json.Marshal of a heldInterval: the keys in order, no spaces, strings
// without escapes) without encoding/json, which took most of a command's
// time in this package (every command reads the log, up to compactAt).
// It reports false for any other line, which json.Unmarshal then reads:
// what it accepts, it reads as json.Unmarshal would. The paths are made
// once each (names): a log repeats the same few.
func parseHeldLine(line []byte, names interned) (heldInterval, bool) {
	var h heldInterval
	rest, ok := bytes.CutPrefix(line, []byte(`{"w":`))
	if !ok {
		return h, false
	}
	if h.Workspace, rest, ok = plainString(rest, names); !ok {
		return h, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"r":[`)); !ok {
		return h, false
	}
	h.Roots = []string{}
	for len(rest) > 0 && rest[0] != ']' {
		if len(h.Roots) > 0 {
			if rest, ok = bytes.CutPrefix(rest, []byte(",")); !ok {
				return h, false
			}
		}
		var r string
		if r, rest, ok = plainString(rest, names); !ok {
			return h, false
		}
		h.Roots = append(h.Roots, r)
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`],"f":`)); !ok {
		return h, false
	}
	var t string
	if t, rest, ok = plainString(rest, nil); !ok || h.From.UnmarshalText([]byte(t)) != nil {
		return h, false
	}
	if after, found := bytes.CutPrefix(rest, []byte(`,"t":`)); found {
		if t, rest, ok = plainString(after, nil); !ok || h.To.UnmarshalText([]byte(t)) != nil {
			return h, false
		}
	}
	return h, string(rest) == "}"
}

// plainString reads the JSON string at the start of b when it holds no
// escape, no control character and only valid UTF-8 (then its value is
// its bytes), and returns it (from names, when not nil) and what
// follows; ok is false otherwise.
func plainString(b []byte, names interned) (s string, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if !utf8.Valid(b[1:i]) {
				return "", nil, false
			}
			return names.get(b[1:i]), b[i+1:], true
		case c == '\\' || c < 0x20:
			return "", nil, false
		}
	}
	return "", nil, false
}

// interned holds each string once, by its bytes.
type interned map[string]string

// get is the string of b, from m when m is not nil.
func (m interned) get(b []byte) string {
	if m == nil {
		return string(b)
	}
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := string(b)
	m[s] = s
	return s
}

// absorb makes h end where o, a later record of the same workspace's
// commands, ends, with o's places too.
func (h *heldInterval) absorb(o heldInterval) {
	for _, r := range o.Roots {
		if !slices.Contains(h.Roots, r) {
			h.Roots = append(h.Roots, r)
		}
	}
	h.To = o.To
}

// mayHold reports whether the log data may hold an interval that
// gitDir lies in, outside the interval's workspace: one of its roots is
// one of gitDir's directories and its workspace is none of them (as
// [noteHeld] writes them, by json.Marshal; [foldHeld] merges only a
// workspace's own lines), or a line is not as noteHeld writes them (a
// damaged log makes every repository a command's: foldHeld decides), or
// a name in it was not UTF-8 ([lossy]).
// False spares a judgement the log's parse (up to [compactAt]): a
// person's repository in the home directory lies in no interval's
// places, and a workspace's own repository is not taken for its
// commands'.
func mayHold(data []byte, gitDir string) bool {
	dirs := map[string]bool{}
	for d := gitDir; ; d = filepath.Dir(d) {
		name, err := json.Marshal(d)
		if err != nil {
			return true
		}
		dirs[string(name)] = true
		if d == "/" || d == "." {
			break
		}
	}
	if lossy(data) {
		return true // (names compared by their JSON are not the ones read back)
	}
	for line := range bytes.Lines(data) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			break // (being written: foldHeld reads no more either)
		}
		for _, c := range line[:len(line)-1] {
			if c < 0x20 {
				return true
			}
		}
		ws, roots, ok := jsonString(bytes.TrimPrefix(line, []byte(`{"w":`)))
		if !ok || !bytes.HasPrefix(line, []byte(`{"w":"`)) || !bytes.HasSuffix(line, []byte("}\n")) {
			return true
		}
		if roots, ok = bytes.CutPrefix(roots, []byte(`,"r":[`)); !ok {
			return true
		}
		if len(ws) > 2 && dirs[string(ws)] {
			continue // (gitDir is in the interval's own workspace)
		}
		for len(roots) > 0 && roots[0] != ']' {
			root, rest, ok := jsonString(roots)
			if !ok || dirs[string(root)] {
				return true
			}
			roots, _ = bytes.CutPrefix(rest, []byte(","))
		}
		if len(roots) == 0 {
			return true
		}
	}
	return false
}

// lossy reports whether data holds \ufffd (in any case), as
// json.Marshal writes each byte of a name that is not UTF-8: two such
// names are written alike, and neither is the name read back (a
// replacement character, written as itself), so the JSON of a name
// tells it from others only in a log without one ([mayHold] compares
// names by their JSON).
func lossy(data []byte) bool {
	for {
		i := bytes.Index(data, []byte(`\u`))
		if i < 0 {
			return false
		}
		if len(data) >= i+6 && bytes.EqualFold(data[i+2:i+6], []byte("fffd")) {
			return true
		}
		data = data[i+2:]
	}
}

// jsonString cuts the JSON string at the start of b, quotes included,
// from what follows.
func jsonString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[:i+1], b[i+1:], true
		}
	}
	return nil, nil, false
}

// madeWhileHeld returns the workspace of an interval within which the
// git directory gitDir of a repository outside that workspace was born,
// in a place its commands could write, and whether there is one. A git
// directory whose birth time the file system does not keep is taken as
// born within every interval.
func madeWhileHeld(stateDir, gitDir string) (string, bool) {
	if stateDir == "" || gitDir == "" {
		return "", false
	}
	data, _ := smallfile.ReadFile(heldFile(stateDir))
	if !mayHold(data, gitDir) {
		return "", false
	}
	return heldWithin(foldHeld(data), gitDir)
}

// heldWithin is [madeWhileHeld] for the intervals all, the log parsed.
func heldWithin(all []heldInterval, gitDir string) (string, bool) {
	if len(all) == 0 {
		return "", false
	}
	var born time.Time // zero: not known, and within every interval
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, gitDir, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &stx) == nil && stx.Mask&unix.STATX_BTIME != 0 {
		born = time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec))
	}
	for _, h := range all {
		if h.Workspace != "" && platform.Within(gitDir, h.Workspace) {
			continue
		}
		if !slices.ContainsFunc(h.Roots, func(r string) bool { return platform.Within(gitDir, r) }) {
			continue
		}
		if !born.IsZero() && (born.Before(h.From.Add(-belowTick)) || !h.To.IsZero() && born.After(h.To.Add(belowTick))) {
			continue
		}
		if h.Workspace == "" {
			return "a workspace", true
		}
		return h.Workspace, true
	}
	return "", false
}
