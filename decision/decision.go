// Package decision holds the record of one judgement: what was asked,
// what the rules said, what turned an ask into an allow (a snapshot, an
// approval, a reviewer), and, where known, how the command ended. The
// decision point makes one per command or statement of a piped shell
// (decide.Context.Decide), the audit log writes it as one JSON line, and
// a reviewer reads it.
//
// Other steps attach to the flow in package decide, never here: a step
// that runs after the judgement and before the command (snapshots:
// decide.BeforeRun) fills Saved and may set Verdict to allow; approvals
// fill Approval.
package decision

import (
	"time"

	"github.com/cordonsh/cordon/rules"
)

// Verdicts, as written in the record.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

// A Decision is one judgement and what came of it.
type Decision struct {
	Time time.Time `json:"time"`
	// ID is the ask's short id, the one `cordon approve ID` takes; ""
	// unless the verdict was ask at some point.
	ID string `json:"id,omitempty"`
	// Parent is the process that started the shell: the agent.
	Parent Process `json:"parent"`
	// Shell is argv[0]'s shell name ("bash", "cmd"), Mode how the code
	// came (command, file, stdin, exec, statement, windows, check).
	Shell string `json:"shell"`
	Mode  string `json:"mode"`
	// Command is the command text (the script, the statement, the argv
	// quoted), credential values masked.
	Command   string `json:"command"`
	Dir       string `json:"dir"`
	Workspace string `json:"workspace,omitempty"`
	// Verdict is allow, ask or deny: the final one; Judged is the
	// rules' verdict before approvals, reviewers and snapshots.
	Verdict    string   `json:"verdict"`
	Judged     string   `json:"judged"`
	Categories []string `json:"categories"`
	// Rules are the ids of the rules that did not allow; Reasons their
	// messages.
	Rules   []string `json:"rules"`
	Reasons []string `json:"reasons"`
	// Targets are the effects found ("delete -r /w/build"), when the
	// judgement reported them.
	Targets []string `json:"targets,omitempty"`
	// Backend is the sandbox the command runs in ("" when refused).
	Backend string `json:"backend,omitempty"`
	// Saved are the ids of the snapshots taken before the command ran.
	Saved []string `json:"saved,omitempty"`
	// Unsaved is why what the command would destroy could not be saved
	// first, when a step tried.
	Unsaved string `json:"unsaved,omitempty"`
	// Approval is the approval used ("" for none): an approval's id, or
	// "rule" for a person's approved rule entry.
	Approval string `json:"approval,omitempty"`
	// Reviewer is what the reviewer answered, when one was asked.
	Reviewer *Review `json:"reviewer,omitempty"`
	// Error is why the command could not be judged (the verdict is then
	// ask).
	Error string `json:"error,omitempty"`
	// Exit and Duration are the command's, where known (a piped
	// shell's whole run; a one-shot command replaces cordon and is not seen).
	Exit     *int    `json:"exit,omitempty"`
	Duration float64 `json:"duration_s,omitempty"`
	// Timings are what cordon spent, in milliseconds, by step.
	Timings map[string]float64 `json:"timings_ms,omitempty"`

	// Judgement is the rules' judgement itself, for steps in the flow.
	Judgement *rules.Judgement `json:"-"`
	// Key identifies the exact request (command, mode, directory) for
	// approvals.
	Key string `json:"-"`
}

// A Process is a process by id and name.
type Process struct {
	PID  int    `json:"pid"`
	Name string `json:"name,omitempty"`
}

// A Review is a reviewer's answer.
type Review struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// Error says why the answer was not taken (timeout, crash, garbage):
	// the verdict then stays ask.
	Error string `json:"error,omitempty"`
}

// Allowed reports whether the command runs.
func (d *Decision) Allowed() bool { return d.Verdict == Allow }

// Step records the time spent since start under name.
func (d *Decision) Step(name string, start time.Time) {
	if d.Timings == nil {
		d.Timings = map[string]float64{}
	}
	d.Timings[name] = float64(time.Since(start).Microseconds()) / 1000
}
