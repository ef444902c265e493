package rules_test

import (
	"strings"
	"testing"

	"github.com/cordonsh/cordon/rules"
)

// TestEnvFilterNamesCredentials: a dump of the environment piped into a
// filter asks when the filter passes on a credential set there, and names
// it; a word in the pattern is not a credential (env | grep
// ^GIT_CONFIG_KEY_ was asked about as "the credential variable grep
// ^GIT_CONFIG_KEY_", seen under Gemini CLI, which sets those).
func TestEnvFilterNamesCredentials(t *testing.T) {
	home := "/cordon-test-root/home"
	ws := home + "/ws"
	withKey := map[string]string{"GEMINI_API_KEY": "mock-key", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager"}
	tests := []struct {
		script string
		env    map[string]string
		want   rules.Verdict
		names  string // the credential the reason names
	}{
		{`env | grep -c "^GIT_CONFIG_KEY_"`, withKey, rules.Allow, ""},
		{`env | grep "^GIT_CONFIG_KEY_0="`, withKey, rules.Allow, ""},
		{`env | grep TOKEN`, nil, rules.Allow, ""},
		{`env | grep KEY`, withKey, rules.Ask, "GEMINI_API_KEY"},
		{`env | grep -i api_key`, withKey, rules.Ask, "GEMINI_API_KEY"},
		{`printenv | grep -vi path`, withKey, rules.Ask, "GEMINI_API_KEY"},
		{`env | rg -v PATH`, withKey, rules.Ask, "GEMINI_API_KEY"},
		{`env | grep -F 'API_KEY'`, withKey, rules.Ask, "GEMINI_API_KEY"},
		{`env | grep '(KEY'`, withKey, rules.Ask, "GEMINI_API_KEY"},
		{`env | awk '/KEY/'`, withKey, rules.Ask, "GEMINI_API_KEY"},
	}
	for _, tt := range tests {
		j := judgeIn(t, home, ws, tt.env, tt.script)
		if j.Verdict != tt.want {
			t.Errorf("%s: got %v, want %v; reasons %+v", tt.script, j.Verdict, tt.want, j.Reasons)
			continue
		}
		for _, r := range j.Reasons {
			if r.Rule == "secret-env" && !strings.Contains(r.Message, "variable "+tt.names) {
				t.Errorf("%s: the reason does not name %s: %s", tt.script, tt.names, r.Message)
			}
		}
	}
}
