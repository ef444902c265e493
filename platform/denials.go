package platform

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// macOS writes each operation Seatbelt refuses to the system log, where
// `log stream` reads it as it happens. cordon reads it only when asked
// (cordon run --explain-denials): starting `log` costs a second or so,
// and reading the log needs no privilege but is no business of an
// ordinary command.

// A Denial is one operation Seatbelt refused, as the system log says.
type Denial struct {
	Process   string `json:"process"`
	PID       int    `json:"pid"`
	Operation string `json:"operation"` // file-write-create, network-outbound, mach-lookup...
	Target    string `json:"target"`    // the path, address or service
}

func (d Denial) String() string {
	return fmt.Sprintf("%s(%d) %s %s", d.Process, d.PID, d.Operation, d.Target)
}

// DenialPredicate selects Seatbelt's reports in the system log: the
// kernel's messages from the Sandbox extension, and the sandbox
// reporting subsystem's.
const DenialPredicate = `((processID == 0) AND (senderImagePath CONTAINS "/Sandbox")) OR (subsystem == "com.apple.sandbox.reporting")`

// logPath is macOS's log tool, by absolute path as sandbox-exec.
const logPath = "/usr/bin/log"

// denialLine is a report's text: "Sandbox: zsh(4242) deny(1)
// file-write-create /Users/dev/.zshrc", the profile's message (the tag)
// after it when there is one.
var denialLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Sandbox:\s*(.+?)\((\d+)\)\s+deny\(\d+\)\s+(\S+)\s*(.*)$`)
})

// ParseDenial reads one line of `log stream --style ndjson`. It reports
// false for a line that is no denial, or one from another sandbox than
// the one whose profile carries tag (see [NewSeatbeltProfile]) or whose
// first process is pid.
func ParseDenial(line []byte, tag string, pid int) (Denial, bool) {
	var ev struct {
		EventMessage string `json:"eventMessage"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return Denial{}, false
	}
	m := denialLine().FindStringSubmatch(strings.TrimSpace(ev.EventMessage))
	if m == nil {
		return Denial{}, false
	}
	d := Denial{Process: m[1], Operation: m[3], Target: m[4]}
	d.PID, _ = strconv.Atoi(m[2])
	tagged := tag != "" && (d.Target == tag || strings.HasSuffix(d.Target, " "+tag))
	d.Target = strings.TrimSpace(strings.TrimSuffix(d.Target, tag))
	return d, tagged || pid > 0 && d.PID == pid
}

// A DenialWatch reads the system log while a confined program runs.
type DenialWatch struct {
	cmd  *exec.Cmd
	tag  string
	mu   sync.Mutex
	seen [][]byte
	done chan struct{}
}

// WatchDenials starts reading Seatbelt's reports, and returns once `log`
// says it is reading (within 3 s): denials from then on are seen. The
// error says why the log cannot be read; nothing is left running then.
func WatchDenials(tag string) (*DenialWatch, error) {
	w := &DenialWatch{tag: tag, done: make(chan struct{})}
	w.cmd = exec.Command(logPath, "stream", "--style", "ndjson", "--predicate", DenialPredicate)
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.cmd.Stderr = w.cmd.Stdout
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot read the system log: %w", err)
	}
	ready := make(chan struct{})
	go func() {
		defer close(w.done)
		r := bufio.NewScanner(out)
		r.Buffer(make([]byte, 64<<10), 1<<20)
		once := sync.OnceFunc(func() { close(ready) })
		for r.Scan() {
			line := r.Bytes()
			if strings.HasPrefix(string(line), "Filtering the log data") {
				once()
				continue
			}
			w.mu.Lock()
			w.seen = append(w.seen, slices.Clone(line))
			w.mu.Unlock()
		}
	}()
	select {
	case <-ready:
		return w, nil
	case <-w.done:
	case <-time.After(3 * time.Second):
	}
	w.cmd.Process.Kill()
	w.cmd.Wait()
	return nil, errors.New("cannot read the system log: `log stream` did not start reading within 3 s")
}

// Stop waits a moment for the log to catch up with a program that has
// ended, stops reading, and returns the denials of its sandbox (the
// watch's tag, or the program's own pid), each once, in order.
func (w *DenialWatch) Stop(pid int) []Denial {
	time.Sleep(200 * time.Millisecond)
	w.cmd.Process.Kill()
	<-w.done
	w.cmd.Wait()
	var out []Denial
	for _, line := range w.seen {
		if d, ok := ParseDenial(line, w.tag, pid); ok && !slices.ContainsFunc(out, func(o Denial) bool {
			return o.Operation == d.Operation && o.Target == d.Target && o.Process == d.Process
		}) {
			out = append(out, d)
		}
	}
	return out
}
