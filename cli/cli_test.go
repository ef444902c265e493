package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Main(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestHelpShape walks the command tree: every command has a synopsis, a
// short line with no capital or period, and help that starts with usage.
func TestHelpShape(t *testing.T) {
	_, overview, _ := runMain("help")
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			if c.short == "" || strings.ToLower(c.short[:1]) != c.short[:1] || strings.HasSuffix(c.short, ".") {
				t.Errorf("short %q: want lowercase, no trailing period", c.short)
			}
			if !strings.Contains(overview, "  "+c.name+" ") {
				t.Errorf("cordon help does not list %s", c.name)
			}
			code, out, errOut := runMain("help", c.name)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: cordon "+c.name) {
				t.Errorf("cordon help %s = %d, %q, %q", c.name, code, out, errOut)
			}
		})
	}
}

func TestCheckWindowsJSON(t *testing.T) {
	code, out, errOut := runMain("check", "--json", "--platform", "windows", "--cwd", `C:\work\proj`, "--", "cmd", "/c", `rd /s /q C:\work\proj\src`)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got struct {
		Verdict    string            `json:"verdict"`
		Categories []string          `json:"categories"`
		Reasons    []json.RawMessage `json:"reasons"`
		Commands   []json.RawMessage `json:"commands"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if got.Verdict != "ask" || len(got.Categories) != 1 || len(got.Reasons) != 1 || len(got.Commands) != 1 {
		t.Fatalf("got %s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{},
		{"frobnicate"},
		{"check"},
		{"check", "--platform", "beos", "--", "ls"},
		{"check", "--cwd", "/no/such/dir/cordon", "--", "ls"},
		{"explain", "--json", "--", "ls"},
		{"version", "x"},
		{"help", "a", "b"},
	}
	for _, args := range tests {
		code, out, errOut := runMain(args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "usage: cordon") {
			t.Errorf("cordon %q = %d, stdout %q, stderr %q; want 2 and a usage message", args, code, out, errOut)
		}
	}
}

func ExampleMain() {
	Main([]string{"check", "--platform", "windows", "--cwd", `C:\work\proj`, "--", "cmd", "/c", "del /q src\\main.c & rd /s /q node_modules"}, os.Stdout, os.Stderr)
	// Output:
	// ask (destroy-ws)
	//   ask   delete-unseen: del would delete C:\work\proj\src\main.c; the workspace is not on this machine, so whether git could restore it is unknown [destroy-ws]
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"10m":                  now.Add(-10 * time.Minute),
		"2h":                   now.Add(-2 * time.Hour),
		"2026-04-30T10:00:00Z": time.Date(2026, 4, 30, 10, 0, 0, 0, time.UTC),
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"yesterday", "-", "10"} {
		if _, err := parseSince(in, now); err == nil {
			t.Errorf("parseSince(%q) succeeded", in)
		}
	}
}

func TestApproveUsage(t *testing.T) {
	var out, errb strings.Builder
	if code := Main([]string{"approve"}, &out, &errb); code != exitUsage {
		t.Errorf("approve without an id: exit %d", code)
	}
	if code := Main([]string{"approve", "--for", "1m", "--always-here", "0a1b2c3d"}, &out, &errb); code != exitUsage {
		t.Errorf("--for with --always-here: exit %d", code)
	}
	if code := Main([]string{"log", "--verdict", "maybe"}, &out, &errb); code != exitUsage {
		t.Errorf("log --verdict maybe: exit %d", code)
	}
}

// TestVersionStamped: a release build's stamp (.goreleaser.yaml's
// -ldflags -X) is what cordon version prints; without one, the module
// version or devel (testdata/script/cli_version.txtar).
func TestVersionStamped(t *testing.T) {
	defer func(v, c, d string) { releaseVersion, releaseCommit, releaseDate = v, c, d }(releaseVersion, releaseCommit, releaseDate)
	releaseVersion, releaseCommit, releaseDate = "1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T22:00:00Z"
	code, out, _ := runMain("version")
	if want := "cordon 1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-12-01T22:00:00Z)\n"; code != 0 || out != want {
		t.Errorf("cordon version: %d %q, want %q", code, out, want)
	}
	releaseVersion, releaseCommit, releaseDate = "", "", ""
	if _, out, _ := runMain("version"); out != "cordon devel\n" && !strings.HasPrefix(out, "cordon v") {
		t.Errorf("cordon version unstamped: %q", out)
	}
}
