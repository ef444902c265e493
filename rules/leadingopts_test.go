package rules_test

import (
	"testing"

	"github.com/cordonsh/cordon/rules"
)

// TestLeadingOptions: npm reads its options anywhere, so a global
// install with the option before the subcommand is the same global
// install, asked about with what works instead; it was allowed, and
// then failed in the sandbox, which keeps the global prefix read-only.
func TestLeadingOptions(t *testing.T) {
	home := "/cordon-test-root/home"
	ws := home + "/ws"
	tests := []struct {
		script string
		want   rules.Verdict
	}{
		{"npm install -g typescript", rules.Ask},
		{"npm -g install typescript", rules.Ask},
		{"npm --global i typescript", rules.Ask},
		{"pnpm -g add typescript", rules.Ask},
		{"npm --prefix /cordon-test-root/elsewhere install x", rules.Ask},
		{"npm install typescript", rules.Allow},
		{"npm -D install typescript", rules.Allow},
		{"npm -g ls", rules.Allow},
		{"git -c core.pager=cat log -1", rules.Allow},
	}
	for _, tt := range tests {
		if j := judgeIn(t, home, ws, nil, tt.script); j.Verdict != tt.want {
			t.Errorf("%s: got %v, want %v; reasons %+v", tt.script, j.Verdict, tt.want, j.Reasons)
		}
	}
}
