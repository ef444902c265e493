package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cordonsh/cordon/audit"
	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/internal/printable"
)

func logCommand() *command {
	return &command{
		name:  "log",
		args:  "[--follow] [--since D] [--verdict allow|ask|deny] [--json]",
		short: "show the audit log: every decision, allowed ones included",
		long: `The log is kept in the state directory (~/.local/state/cordon/audit.log,
rotated by size into audit.log.1, .2, ...), one JSON object per decision.
--since takes a duration back from now (10m, 2h) or a time (2026-05-01,
2026-05-01T10:00:00Z). --follow prints records as they are written,
until interrupted. --json prints the records as they are stored.`,
		run: runLog,
	}
}

// followEvery is how often --follow looks for new records.
var followEvery = 200 * time.Millisecond

func runLog(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	var follow, asJSON bool
	var since, verdict string
	fs.BoolVar(&follow, "follow", false, "keep printing records as they are written")
	fs.StringVar(&since, "since", "", "only records since `D`: a duration back from now, or a date or time")
	fs.StringVar(&verdict, "verdict", "", "only records with this verdict: allow, ask or deny")
	fs.BoolVar(&asJSON, "json", false, "print the records as JSON lines")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	var f audit.Filter
	switch verdict {
	case "", decision.Allow, decision.Ask, decision.Deny:
		f.Verdict = verdict
	default:
		return c.usageError(stderr, "--verdict %q: want allow, ask or deny", verdict)
	}
	if since != "" {
		t, err := parseSince(since, time.Now())
		if err != nil {
			return c.usageError(stderr, "--since %q: %v", since, err)
		}
		f.Since = t
	}
	state := config.StateDir(os.Getenv)
	if state == "" {
		fmt.Fprintln(stderr, "cordon log: there is no state directory (set HOME or XDG_STATE_HOME)")
		return exitError
	}
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "cordon log: %v\n", err)
		return exitError
	}
	l := &audit.Log{Dir: state, Keep: cfg.Log.Keep}
	print := func(d *decision.Decision) {
		if asJSON {
			b, _ := json.Marshal(d)
			fmt.Fprintf(stdout, "%s\n", b)
			return
		}
		fmt.Fprintln(stdout, tableRow(d))
	}
	bad := func(err error) { fmt.Fprintf(stderr, "cordon log: %v\n", err) }
	if !asJSON {
		fmt.Fprintln(stdout, tableRow(nil))
	}
	if !follow {
		if err := l.Read(f, print, bad); err != nil {
			fmt.Fprintf(stderr, "cordon log: %v\n", err)
			return exitError
		}
		return exitOK
	}
	return followLog(l, f, print, bad, stderr)
}

// followLog prints the current file's records, then those appended,
// across rotations, until the process is interrupted.
func followLog(l *audit.Log, f audit.Filter, print func(*decision.Decision), bad func(error), stderr io.Writer) int {
	var file *os.File
	var pos int64
	defer func() {
		if file != nil {
			file.Close()
		}
	}()
	for {
		if fi, err := os.Stat(l.File()); err == nil && (file == nil || !sameFile(file, fi)) {
			if file != nil {
				// Rotated: finish the old file, then start the new one.
				if _, err := file.Seek(pos, io.SeekStart); err == nil {
					audit.Scan(file, l.File(), 0, f, print, bad)
				}
				file.Close()
			}
			if file, err = os.Open(l.File()); err != nil {
				fmt.Fprintf(stderr, "cordon log: %v\n", err)
				return exitError
			}
			pos = 0
		}
		if file != nil {
			if _, err := file.Seek(pos, io.SeekStart); err == nil {
				n, _ := audit.Scan(file, l.File(), 0, f, print, bad)
				pos += n
			}
		}
		time.Sleep(followEvery)
	}
}

func sameFile(f *os.File, fi os.FileInfo) bool {
	cur, err := f.Stat()
	return err == nil && os.SameFile(cur, fi)
}

// parseSince reads --since: a duration back from now, or a date or time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("want a duration (10m, 2h) or a date or time (2026-05-01, 2026-05-01T10:00:00Z)")
}

// tableRow is one record as a line of the table; nil gives the header.
func tableRow(d *decision.Decision) string {
	const format = "%-19s  %-5s  %-22s  %-10s  %-28s  %s"
	if d == nil {
		return fmt.Sprintf(format, "TIME", "VERD", "RULES", "BY", "DIRECTORY", "COMMAND")
	}
	by := ""
	switch {
	case d.Approval != "":
		by = "approval:" + d.Approval
	case d.Reviewer != nil && d.Reviewer.Error == "":
		by = "reviewer"
	case len(d.Saved) > 0:
		by = "snapshot"
	case d.ID != "":
		by = "id:" + d.ID
	}
	rules := strings.Join(d.Rules, ",")
	if d.Error != "" {
		rules = "error"
	}
	cmd := strings.ReplaceAll(d.Command, "\n", "⏎")
	return fmt.Sprintf(format, d.Time.Local().Format("2006-01-02 15:04:05"), d.Verdict, cut(rules, 22), by, cutLeft(printable.String(d.Dir), 28), cut(printable.String(cmd), 100))
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// cutLeft shortens s to n runes by its start, keeping its end (the
// directory's last names).
func cutLeft(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}
