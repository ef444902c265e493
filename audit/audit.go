// Package audit keeps cordon's audit log: every decision, allowed ones
// included, one JSON object (a [decision.Decision]) per line in
// STATE/audit.log, where STATE is cordon's state directory, outside
// every directory a sandboxed command can write.
//
// Many shims append at once: each record is one write(2) to a file
// opened with O_APPEND, which the kernel does not interleave with other
// writes to a local regular file, so lines are never mixed or lost.
// When the file passes its size, the writer that sees it takes an
// exclusive lock on STATE/audit.lock and renames audit.log to
// audit.log.1 (audit.log.1 to .2, and so on, keeping Keep files); a
// writer that opened the old file a moment earlier finishes its line
// there, whole.
//
// A record can also go to the local syslog daemon or journald as an
// RFC 5424 message over the /dev/log datagram socket (see [Syslog]).
package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/filelock"
)

// Defaults of a [Log].
const (
	DefaultMaxSize = 10 << 20
	DefaultKeep    = 3
)

// A Log is the audit log in a state directory.
type Log struct {
	Dir     string // the state directory
	MaxSize int64  // rotate past this size; 0 means DefaultMaxSize
	Keep    int    // rotated files kept; 0 means DefaultKeep
	Syslog  bool   // also send each record to /dev/log
}

// File is the current log file.
func (l *Log) File() string { return filepath.Join(l.Dir, "audit.log") }

// Append writes d as one line. The error says why it could not be
// written; the caller decides what that means for the command.
func (l *Log) Append(d *decision.Decision) error {
	line, err := json.Marshal(d)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	f, err := l.open(int64(len(line)))
	if err != nil {
		return err
	}
	// Under the file's lock: another shim's record being appended must
	// not look like a torn line (nor this one's check race its write).
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return fmt.Errorf("cannot lock the audit log %s: %v", l.File(), err)
	}
	if tornEnd(f) {
		// A line cut short (a crash, a full disk) would swallow this
		// record: it starts a line of its own, and the torn one reads
		// as what it is, not a record.
		line = append([]byte{'\n'}, line...)
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot write the audit log %s: %v", l.File(), err)
	}
	if l.Syslog {
		if err := Syslog(d); err != nil {
			return fmt.Errorf("cannot send the decision to syslog: %v", err)
		}
	}
	return nil
}

// open opens the log for appending n bytes, rotating it first when it
// would pass its size.
func (l *Log) open(n int64) (*os.File, error) {
	for range 2 {
		f, err := os.OpenFile(l.File(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
		if os.IsNotExist(err) {
			if err := os.MkdirAll(l.Dir, 0o700); err != nil {
				return nil, fmt.Errorf("cannot make the state directory for the audit log: %v", err)
			}
			f, err = os.OpenFile(l.File(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot open the audit log: %v", err)
		}
		fi, err := f.Stat()
		if err != nil || fi.Size() == 0 || fi.Size()+n <= l.maxSize() {
			return f, nil
		}
		f.Close()
		if err := l.rotate(fi); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(l.File(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
}

// tornEnd reports whether the file f does not end with a newline: its
// last record was cut short.
func tornEnd(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	var b [1]byte
	_, err = f.ReadAt(b[:], fi.Size()-1)
	return err == nil && b[0] != '\n'
}

func (l *Log) maxSize() int64 {
	if l.MaxSize > 0 {
		return l.MaxSize
	}
	return DefaultMaxSize
}

func (l *Log) keep() int {
	if l.Keep > 0 {
		return l.Keep
	}
	return DefaultKeep
}

// rotate renames the full log aside, under the lock; when another writer
// rotated it meanwhile (the file is no longer seen), it does nothing.
func (l *Log) rotate(seen os.FileInfo) error {
	name, err := filelock.InDir(l.Dir, "audit.lock")
	if err != nil {
		return fmt.Errorf("cannot lock the audit log for rotation: %v", err)
	}
	unlock, err := filelock.Make(name)
	if err != nil {
		return fmt.Errorf("cannot lock the audit log for rotation: %v", err)
	}
	defer unlock()
	now, err := os.Stat(l.File())
	if err != nil || !os.SameFile(now, seen) {
		return nil
	}
	for i := l.keep() - 1; i >= 1; i-- {
		os.Rename(fmt.Sprintf("%s.%d", l.File(), i), fmt.Sprintf("%s.%d", l.File(), i+1))
	}
	if err := os.Rename(l.File(), l.File()+".1"); err != nil {
		return fmt.Errorf("cannot rotate the audit log: %v", err)
	}
	return nil
}

// Files are the log's files, oldest first.
func (l *Log) Files() []string {
	var out []string
	for i := l.keep(); i >= 1; i-- {
		out = append(out, fmt.Sprintf("%s.%d", l.File(), i))
	}
	return append(out, l.File())
}

// A Filter picks records.
type Filter struct {
	Since   time.Time // records at or after; zero for all
	Verdict string    // allow, ask or deny; "" for all
}

// Match reports whether d passes f.
func (f Filter) Match(d *decision.Decision) bool {
	return (f.Since.IsZero() || !d.Time.Before(f.Since)) && (f.Verdict == "" || d.Verdict == f.Verdict)
}

// Read calls fn with each record that passes f, oldest first. A line
// that is not a record is reported with its file and line number and
// skipped.
func (l *Log) Read(f Filter, fn func(d *decision.Decision), bad func(error)) error {
	for _, name := range l.Files() {
		file, err := os.Open(name)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = Scan(file, name, 1, f, fn, bad)
		file.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Scan reads records from r (named name, its first line numbered n) as
// Read does; it returns the bytes consumed, up to the last whole line.
func Scan(r io.Reader, name string, n int, f Filter, fn func(d *decision.Decision), bad func(error)) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var used int64
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return used, nil // a partial last line is left for later
		}
		if err != nil {
			return used, err
		}
		used += int64(len(line))
		var d decision.Decision
		if jerr := json.Unmarshal(bytes.TrimSpace(line), &d); jerr != nil {
			if bad != nil {
				bad(fmt.Errorf("%s:%d: not a record: %v", name, n, jerr))
			}
		} else if f.Match(&d) {
			fn(&d)
		}
		n++
	}
}
