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
