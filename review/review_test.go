package review

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/decision"
)

// TestMain is also the fake reviewer: with FAKE_REVIEWER set, the test
// binary reads the request and answers as told.
func TestMain(m *testing.M) {
	if mode := os.Getenv("FAKE_REVIEWER"); mode != "" {
		os.Exit(fakeReviewer(mode))
	}
	os.Exit(m.Run())
}

func fakeReviewer(mode string) int {
	var req Request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil || req.Decision == nil {
		fmt.Println(`{"verdict": "deny", "reason": "bad request"}`)
		return 0
	}
	switch mode {
	case "allow":
		reason, _ := json.Marshal(fmt.Sprintf("%s is fine; status %q", req.Decision.Command, strings.TrimSpace(req.GitStatus)))
		fmt.Printf(`{"verdict": "allow", "reason": %s}`+"\n", reason)
	case "deny":
		fmt.Println(`{"verdict": "deny", "reason": "no"}`)
	case "sleep":
		time.Sleep(time.Minute)
	case "garbage":
		fmt.Println(`allow`)
	case "unknown-verdict":
		fmt.Println(`{"verdict": "yes"}`)
	case "crash":
		fmt.Println(`{"verdict": "allow"}`)
		return 3
	case "huge":
		io.WriteString(os.Stdout, `{"verdict": "allow", "reason": "`+strings.Repeat("a", 1<<20)+`"}`)
	}
	return 0
}

func TestReviewer(t *testing.T) {
	d := &decision.Decision{Verdict: decision.Ask, Command: "git reset --hard"}
	tests := []struct {
		mode, verdict, reason, err string
	}{
		{"allow", "allow", `git reset --hard is fine; status "M a.go"`, ""},
		{"deny", "deny", "no", ""},
		{"sleep", "ask", "", "no answer within"},
		{"garbage", "ask", "", "the answer is not"},
		{"unknown-verdict", "ask", "", `verdict "yes"`},
		{"crash", "ask", "", "exit status 3"},
		{"huge", "ask", "", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			r := &Reviewer{Argv: []string{os.Args[0]}, Env: []string{"FAKE_REVIEWER=" + tt.mode}, Timeout: time.Second}
			start := time.Now()
			got := r.Run(d, " M a.go\n")
			if got.Verdict != tt.verdict || got.Reason != tt.reason || !strings.Contains(got.Error, tt.err) || (tt.err == "") != (got.Error == "") {
				t.Errorf("got verdict %s reason %.100q error %q; want verdict %s reason %q error containing %q", got.Verdict, got.Reason, got.Error, tt.verdict, tt.reason, tt.err)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v, past the timeout", time.Since(start))
			}
		})
	}
}
