package rules

import "encoding/json"

// Verdict is what to do with a command.
type Verdict uint8

// Verdicts, weakest first: combining judgements keeps the strongest.
const (
	Allow Verdict = iota // run it (in the sandbox)
	Ask                  // a person must approve it
	Deny                 // never run it
)

var verdictNames = [...]string{"allow", "ask", "deny"}

// String returns "allow", "ask" or "deny".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "unknown"
}

// MarshalText writes the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// ParseVerdict returns the verdict named s.
func ParseVerdict(s string) (Verdict, bool) {
	for i, n := range verdictNames {
		if n == s {
			return Verdict(i), true
		}
	}
	return Allow, false
}

// A Reason is one rule that matched, with its message filled in.
type Reason struct {
	Rule     string  `json:"rule"`
	Message  string  `json:"message"`
	Category string  `json:"category,omitempty"`
	Verdict  Verdict `json:"verdict"`
	// Command is the index in [Judgement.Commands] the reason is about,
	// or -1 for the script as a whole.
	Command int `json:"command"`
}

// A CommandReport describes one command found in the script, for people
// and the audit log.
type CommandReport struct {
	Line    string   `json:"line"`
	Via     []string `json:"via,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	Pos     string   `json:"pos,omitempty"`
	Effects []string `json:"effects,omitempty"`
}

// A Judgement is the verdict on a whole invocation with everything that
// led to it.
type Judgement struct {
	Verdict    Verdict         `json:"verdict"`
	Categories []string        `json:"categories"`
	Reasons    []Reason        `json:"reasons"`
	Commands   []CommandReport `json:"commands"`
	// Workspace is the workspace the command was judged against.
	Workspace string `json:"workspace,omitempty"`
	// Losses are the workspace content the command would destroy that a
	// snapshot can keep (see [Loss]).
	Losses []Loss `json:"losses,omitempty"`
}

// A Loss is workspace content git cannot restore that a command would
// delete, overwrite or throw away, found by an ask policy of category
// destroy-ws on a path the judge could resolve: untracked, modified and
// irreplaceable ignored files, a workspace that is no repository, the
// stash, a branch with unmerged commits. The shim saves it before the
// command runs (package snapshot); when every reason to ask is such a
// loss and all of it was saved, the command is allowed.
type Loss struct {
	// Path is the effect's target; for the stash and branches, "".
	Path string `json:"path,omitempty"`
	// Paths are the files and directories to save: what git reports
	// inside Path, filtered as the command filters (find -name).
	Paths []string `json:"paths,omitempty"`
	// Kind is what is lost: untracked, uncommitted, irreplaceable,
	// unversioned, stash or unmerged.
	Kind string `json:"kind"`
	// Effect is the command's effect (delete, overwrite, discard-changes,
	// git-clean, drop-stash, delete-branch).
	Effect string `json:"effect"`
	// Ref is the branch, for delete-branch.
	Ref  string `json:"ref,omitempty"`
	Rule string `json:"rule"`
	// Reason is the index in [Judgement.Reasons] this loss explains.
	Reason int `json:"reason"`
}

// Savable reports whether every reason the judgement does not allow is a
// [Loss]: saving Losses then removes every reason to ask.
func (j *Judgement) Savable() bool {
	if j.Verdict != Ask || len(j.Losses) == 0 {
		return false
	}
	covered := map[int]bool{}
	for _, l := range j.Losses {
		covered[l.Reason] = true
	}
	for i, r := range j.Reasons {
		if r.Verdict != Allow && !covered[i] {
			return false
		}
	}
	return true
}

// JSON returns the judgement as one JSON object, the `cordon check --json`
// contract.
func (j *Judgement) JSON() []byte {
	if j.Categories == nil {
		j.Categories = []string{}
	}
	if j.Reasons == nil {
		j.Reasons = []Reason{}
	}
	if j.Commands == nil {
		j.Commands = []CommandReport{}
	}
	b, _ := json.Marshal(j)
	return b
}
