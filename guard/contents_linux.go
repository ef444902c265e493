package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"slices"

	"github.com/cordonsh/cordon/internal/atomicfile"
)

// The contents a ledger keeps (the trusted bytes of guarded files, git's
// sample hooks among them: most of its size) are kept beside it, in
// FILE.data, not in its JSON: every reader of the ledger (the shim twice
// per command, the session's manager at each command's start and end,
// the remotes' check) would otherwise scan them as base64 strings, and
// only putting a file back or reading a trusted configuration needs
// them. An entry whose content is kept says so (Kept) and names it by
// its SHA-256 (Sum). The file is a header line, then per content its
// 32-byte sum, its length (8 bytes, big-endian) and its bytes, in the
// order of the sums. A content that is missing, or whose bytes do not
// match its sum, is not kept: the entry is one whose content was too
// large to keep (a change to it is moved aside, not undone); the others
// are read all the same. The file is written before the ledger and holds
// the contents of the ledger it replaces too (dropped at the save after):
// a crash between the two writes, or a reader between them, finds what
// the older ledger names.

const contentsHeader = "cordon guard contents 1\n"

// contentsFile is the file beside ledger file that keeps its contents.
func contentsFile(ledger string) string { return ledger + ".data" }

// states are the ledger's trusted states, whose entries keep contents.
func (l *ledger) states() []state { return []state{l.Trusted, l.TrustedConfigs, l.TrustedSteps} }

// encodeContents marks the entries of l whose content is kept (Kept) and
// returns the contents file for them and for also (the contents of the
// ledger l replaces, by sum); nil when there is none.
func encodeContents(l *ledger, also map[[32]byte][]byte) []byte {
	byKey := map[[32]byte][]byte{}
	for k, v := range also {
		byKey[k] = v
	}
	for _, st := range l.states() {
		for _, e := range st {
			if e == nil {
				continue
			}
			e.Inline = nil
			// (Larger ones are not kept: a file that grew while it was
			// read can come back longer than maxFile.)
			e.Kept = e.Kind == 'f' && len(e.Data) > 0 && len(e.Data) <= maxFile
			if !e.Kept {
				continue
			}
			// Sum was taken from Data (a wrong one would only make the
			// content missing when read: it is checked there).
			var sum [32]byte
			if len(e.Sum) != 2*len(sum) {
				e.Kept = false
				continue
			}
			if _, err := hex.Decode(sum[:], []byte(e.Sum)); err != nil {
				e.Kept = false
				continue
			}
			byKey[sum] = e.Data
		}
	}
	if len(byKey) == 0 {
		return nil
	}
	keys := make([][32]byte, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
	out := []byte(contentsHeader)
	for _, k := range keys {
		out = append(out, k[:]...)
		out = binary.BigEndian.AppendUint64(out, uint64(len(byKey[k])))
		out = append(out, byKey[k]...)
	}
	return out
}

// decodeContents gives the entries of l their kept contents from data
// (a contents file; nil when there is none), and takes those that
// ledgers written before kept in their JSON. It returns the contents l
// names, by sum, and an error when data is damaged: a content that does
// not match its sum is skipped, a length past the end stops the reading;
// the entries it could not fill keep no content.
func decodeContents(data []byte, l *ledger) (map[[32]byte][]byte, error) {
	byKey := map[[32]byte][]byte{}
	var bad error
	if data != nil {
		rest, ok := bytes.CutPrefix(data, []byte(contentsHeader))
		if !ok {
			bad = fmt.Errorf("not a contents file")
			rest = nil
		}
		for len(rest) > 0 {
			if len(rest) < 40 {
				bad = fmt.Errorf("cut short")
				break
			}
			n := binary.BigEndian.Uint64(rest[32:40])
			if n > uint64(len(rest)-40) {
				bad = fmt.Errorf("a content's length runs past the end")
				break
			}
			content := rest[40 : 40+n]
			if sha256.Sum256(content) == [32]byte(rest[:32]) {
				byKey[[32]byte(rest[:32])] = content
			} else {
				bad = fmt.Errorf("a content does not match its sum")
			}
			rest = rest[40+n:]
		}
	}
	named := map[[32]byte][]byte{}
	for _, st := range l.states() {
		for _, e := range st {
			if e == nil {
				continue
			}
			switch {
			case e.Inline != nil:
				e.Data, e.Inline = e.Inline, nil
				if sum := sha256.Sum256(e.Data); hex.EncodeToString(sum[:]) == e.Sum {
					named[sum] = e.Data
				}
			case e.Kept:
				var sum [32]byte
				e.Data = nil // not kept, unless found
				if len(e.Sum) == 2*len(sum) {
					if _, err := hex.Decode(sum[:], []byte(e.Sum)); err == nil && byKey[sum] != nil {
						e.Data = byKey[sum]
						named[sum] = e.Data
					}
				}
			}
			e.Kept = false
		}
	}
	return named, bad
}

// readContents reads the contents file of ledger file into l's entries.
// A missing file keeps none; a damaged one keeps what it could. It
// returns the file as read and the contents l names.
func readContents(file string, l *ledger) ([]byte, map[[32]byte][]byte) {
	data, err := os.ReadFile(contentsFile(file))
	if err != nil {
		data = nil
	}
	named, _ := decodeContents(data, l)
	return data, named
}

// writeContents writes the contents file of ledger file, atomically,
// unless it is old; with none kept, it is removed.
func writeContents(file string, data, old []byte) error {
	if bytes.Equal(data, old) && (data != nil) == (old != nil) {
		return nil
	}
	name := contentsFile(file)
	if data == nil {
		if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	return atomicfile.WriteOrdered(name, data)
}
