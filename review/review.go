// Package review asks a person's reviewer program about an ask.
//
// The reviewer is a command named in the settings (reviewer.command, an
// argv). It gets on standard input one JSON object,
//
//	{"decision": {...the decision.Decision...}, "git_status": "?? notes.txt\n M main.go\n"}
//
// and answers on standard output with one JSON object,
//
//	{"verdict": "allow" | "deny" | "ask", "reason": "..."}
//
// within the timeout (default 10 s). A timeout, a non-zero exit, or an
// answer that is not that object keeps the ask: a reviewer can only
// settle what the rules left to a person, and its failure never allows.
// It runs outside the sandbox, as the user, in the home directory, with
// a small environment (see [Reviewer.Run]); it is found on PATH past
// every directory sandboxed commands can write.
package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/cordonsh/cordon/decision"
)

// DefaultTimeout is how long a reviewer may take.
const DefaultTimeout = 10 * time.Second

// maxAnswer bounds what is read of the reviewer's output.
const maxAnswer = 64 << 10

// A Reviewer is the reviewer command, resolved.
type Reviewer struct {
	Argv    []string      // Argv[0] is an absolute path
	Timeout time.Duration // 0 means DefaultTimeout
	Env     []string      // the reviewer's whole environment
	Dir     string        // where it runs
}

// Request is what the reviewer reads.
type Request struct {
	Decision  *decision.Decision `json:"decision"`
	GitStatus string             `json:"git_status"`
}

// Run asks the reviewer about d. The answer's verdict is allow, deny or
// ask; on any failure it is ask, with Error saying why.
func (r *Reviewer) Run(d *decision.Decision, gitStatus string) *decision.Review {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	in, err := json.Marshal(Request{Decision: d, GitStatus: gitStatus})
	if err != nil {
		return failed(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Argv[0], r.Argv[1:]...)
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	var out limited
	cmd.Stdout = &out
	cmd.Env, cmd.Dir = r.Env, r.Dir
	cmd.WaitDelay = time.Second // a reviewer's children holding stdout open
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return failed(fmt.Sprintf("no answer within %v", timeout))
	case err != nil:
		return failed(fmt.Sprintf("%s failed: %v", r.Argv[0], err))
	}
	return parse(out.Bytes())
}

// parse reads the reviewer's answer.
func parse(out []byte) *decision.Review {
	var a struct {
		Verdict *string `json:"verdict"`
		Reason  string  `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return failed(fmt.Sprintf("the answer is not {\"verdict\", \"reason\"}: %v", err))
	}
	if dec.More() {
		return failed("the answer holds more than one JSON value")
	}
	if a.Verdict == nil {
		return failed("the answer has no verdict")
	}
	switch *a.Verdict {
	case decision.Allow, decision.Deny, decision.Ask:
	default:
		return failed(fmt.Sprintf("verdict %q: want allow, deny or ask", *a.Verdict))
	}
	return &decision.Review{Verdict: *a.Verdict, Reason: strings.TrimSpace(a.Reason)}
}

func failed(why string) *decision.Review {
	return &decision.Review{Verdict: decision.Ask, Error: why}
}

// limited keeps what is written to it, up to maxAnswer bytes; past
// that, writing fails (and so does the reviewer).
type limited struct{ buf bytes.Buffer }

var errTooLong = errors.New("the answer is longer than 64 KiB")

func (l *limited) Write(p []byte) (int, error) {
	if l.buf.Len()+len(p) > maxAnswer {
		return 0, errTooLong
	}
	return l.buf.Write(p)
}

// Bytes returns what was written.
func (l *limited) Bytes() []byte { return l.buf.Bytes() }
