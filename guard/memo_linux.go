package guard

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
)

// A long-lived process (a session's manager) opens the same ledger at
// every command's start and end, and decoding it (its JSON and the
// contents beside it, whose sums are checked) was most of the time the
// open took. With the memo on ([KeepLedgersInMemory]), what this
// process last wrote to a ledger is decoded again off the command's
// path, once the save is done, by the same code a read uses; an open
// that then reads the very same bytes, ledger and contents file both,
// takes a copy of that decoding instead of decoding them again. The
// files are read at every open all the same, under the ledger's lock:
// whatever changed them (another session, a shim, a `cordon` command, a
// person) makes their bytes differ, and the open decodes what it read.
// So the memo is by construction what a fresh read gives, and nothing is
// trusted by a file's metadata.

// memoOn is whether saves are remembered ([KeepLedgersInMemory]).
var memoOn atomic.Bool

// KeepLedgersInMemory makes this process remember the ledgers it writes
// (see above): for a long-lived process that opens them again and
// again; a short one would only decode each once more for nothing.
func KeepLedgersInMemory() { memoOn.Store(true) }

// A ledgerMemo is one ledger file's bytes as this process last wrote
// them, and, once decoded, what they decode to.
type ledgerMemo struct {
	ws       string
	data     []byte // the ledger file
	contents []byte // its contents file; nil when there is none
	ready    bool   // l and kept are decoded from data and contents
	l        ledger
	kept     map[[32]byte][]byte
}

// memos are the ledgers remembered, by file.
var memos struct {
	sync.Mutex
	by map[string]*ledgerMemo
}

// maxMemos bounds the ledgers remembered (a manager writes one or two).
const maxMemos = 8

// remember keeps what save wrote to ledger file of ws and decodes it
// in the background; a later save of the same file replaces it.
func remember(file, ws string, data, contents []byte) {
	if !memoOn.Load() {
		return
	}
	m := &ledgerMemo{ws: ws, data: bytes.Clone(data), contents: bytes.Clone(contents)}
	memos.Lock()
	if memos.by == nil || len(memos.by) >= maxMemos {
		memos.by = map[string]*ledgerMemo{}
	}
	memos.by[file] = m
	memos.Unlock()
	go func() {
		l, kept, ok := decodeLedger(ws, m.data, m.contents)
		if !ok {
			return
		}
		memos.Lock()
		defer memos.Unlock()
		if memos.by[file] == m {
			m.l, m.kept, m.ready = l, kept, true
		}
	}()
}

// forget drops what is remembered of ledger file.
func forget(file string) {
	memos.Lock()
	delete(memos.by, file)
	memos.Unlock()
}

// remembered returns a copy of the decoding of ledger file of ws when
// this process wrote exactly data and contents there and has decoded
// them since.
func remembered(file, ws string, data, contents []byte) (ledger, map[[32]byte][]byte, bool) {
	memos.Lock()
	defer memos.Unlock()
	m := memos.by[file]
	if m == nil || !m.ready || m.ws != ws || !bytes.Equal(m.data, data) ||
		(m.contents != nil) != (contents != nil) || !bytes.Equal(m.contents, contents) {
		return ledger{}, nil, false
	}
	kept := make(map[[32]byte][]byte, len(m.kept))
	for sum, content := range m.kept {
		kept[sum] = bytes.Clone(content)
	}
	return m.l.clone(), kept, true
}

// decodeLedger decodes the ledger of ws from data (its file) and
// contents (its contents file, nil when there is none); false when data
// is not such a ledger.
func decodeLedger(ws string, data, contents []byte) (ledger, map[[32]byte][]byte, bool) {
	l := ledger{Workspace: ws}
	if json.Unmarshal(data, &l) != nil || l.Workspace != ws {
		return ledger{}, nil, false
	}
	kept, _ := decodeContents(contents, &l)
	return l, kept, true
}

// clone returns a deep copy of l, sharing nothing with it that either
// could change.
func (l *ledger) clone() ledger {
	c := *l
	c.Patterns = slices.Clone(l.Patterns)
	c.Active = slices.Clone(l.Active)
	c.Configs = slices.Clone(l.Configs)
	c.Safe = slices.Clone(l.Safe)
	c.AgentRemotes = slices.Clone(l.AgentRemotes)
	c.Roots = slices.Clone(l.Roots)
	c.RootPatterns = slices.Clone(l.RootPatterns)
	c.Adopted = slices.Clone(l.Adopted)
	c.AdoptedBare = slices.Clone(l.AdoptedBare)
	c.RootConfigs = slices.Clone(l.RootConfigs)
	c.Made = slices.Clone(l.Made)
	c.MadeDirs = slices.Clone(l.MadeDirs)
	c.Reach = slices.Clone(l.Reach)
	c.Included = slices.Clone(l.Included)
	c.IncludesRead = slices.Clone(l.IncludesRead)
	c.Own = slices.Clone(l.Own)
	c.Trusted = l.Trusted.clone()
	c.TrustedConfigs = l.TrustedConfigs.clone()
	c.TrustedSteps = l.TrustedSteps.clone()
	return c
}

// clone returns a deep copy of st.
func (st state) clone() state {
	if st == nil {
		return nil
	}
	c := make(state, len(st))
	for path, e := range st {
		if e == nil {
			c[path] = nil
			continue
		}
		n := *e
		n.Names = slices.Clone(e.Names)
		n.Data = bytes.Clone(e.Data)
		n.Inline = bytes.Clone(e.Inline)
		c[path] = &n
	}
	return c
}
