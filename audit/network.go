package audit

import (
	"time"

	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/netproxy"
)

// NetworkRefusal is the record of a connection the network allowlist's
// proxy refused, for a sandbox of workspace ws run by backend.
func NetworkRefusal(ws, backend string, r *netproxy.Refusal) *decision.Decision {
	rule := "network-allowlist"
	if r.Never {
		rule = "network-never"
	}
	return &decision.Decision{
		Time: time.Now(), Mode: "network", Command: "connect " + r.Destination(),
		Dir: ws, Workspace: ws, Verdict: decision.Deny, Judged: decision.Deny,
		Categories: []string{"network-exfil"}, Rules: []string{rule}, Reasons: []string{r.Reason},
		Backend: backend,
	}
}
