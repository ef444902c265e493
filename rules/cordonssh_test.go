package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/rules"
)

// TestCordonSSHAssigned: cordon's own GIT_SSH_COMMAND (ssh through its
// forwarder in the state directory), assigned again by a script as an
// agent's shell snapshot does, is no network command that feeds the
// unknown code after it: an ask stays an ask (Codex's snapshot made it a
// deny). Any other ssh, or a forwarder elsewhere, still counts.
func TestCordonSSHAssigned(t *testing.T) {
	home := "/cordon-test-root/home"
	ws := home + "/ws"
	fwd := home + "/.local/state/cordon/keeper/7bbd29efe1e793f8/cordon-netfwd"
	const eval = `; read -r x < /dev/null; eval "echo $x"`
	tests := []struct {
		name, script string
		want         rules.Verdict
	}{
		{"none", `read -r x < /dev/null; eval "echo $x"`, rules.Ask},
		{"cordons", `export GIT_SSH_COMMAND="ssh -o 'ProxyCommand=` + fwd + ` connect %h %p'"` + eval, rules.Ask},
		{"elsewhere", `export GIT_SSH_COMMAND="ssh -o 'ProxyCommand=` + ws + `/cordon-netfwd connect %h %p'"` + eval, rules.Deny},
		{"another-ssh", `export GIT_SSH_COMMAND="ssh -i key"` + eval, rules.Deny},
		{"and-a-fetch", `export GIT_SSH_COMMAND="ssh -o 'ProxyCommand=` + fwd + ` connect %h %p'"; git fetch` + eval, rules.Deny},
	}
	// Codex sources its snapshot (export -p of the sandbox's shell).
	snap := filepath.Join(t.TempDir(), "snapshot.sh")
	if err := os.WriteFile(snap, []byte(`declare -x GIT_SSH_COMMAND="ssh -o 'ProxyCommand=`+fwd+` connect %h %p'"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name, script string
		want         rules.Verdict
	}{"sourced", ". " + snap + eval, rules.Ask})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if j := judgeIn(t, home, ws, nil, tt.script); j.Verdict != tt.want {
				t.Errorf("%s: got %v, want %v; reasons %+v", tt.script, j.Verdict, tt.want, j.Reasons)
			}
		})
	}
}
