package platform

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The probe runs once; then its answer comes from the cache, as long as
// the cache is about the same binary, kernel, user and settings.
func TestProbeBwrapCache(t *testing.T) {
	path, err := FindBwrap()
	if err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	first, err := ProbeBwrap(path, dir)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "bwrap-probe.json")
	var saved BwrapProbe
	data, err := os.ReadFile(cache)
	if err != nil || json.Unmarshal(data, &saved) != nil || saved.Key != first.Key {
		t.Fatalf("no cache written: %v %s", err, data)
	}
	// A cached answer is used as it is...
	saved.Version = "from the cache"
	data, _ = json.Marshal(saved)
	os.WriteFile(cache, data, 0o600)
	if pr, _ := ProbeBwrap(path, dir); pr.Version != "from the cache" {
		t.Errorf("the cache was not used: %+v", pr)
	}
	// ...unless it is about something else.
	saved.Key = "another bwrap"
	data, _ = json.Marshal(saved)
	os.WriteFile(cache, data, 0o600)
	if pr, _ := ProbeBwrap(path, dir); pr.Version == "from the cache" || pr.Key != first.Key {
		t.Errorf("a stale cache was used: %+v", pr)
	}
	os.WriteFile(cache, []byte("{not json"), 0o600)
	if pr, _ := ProbeBwrap(path, dir); pr.Key != first.Key {
		t.Errorf("a broken cache was used: %+v", pr)
	}
}

// Without bwrap, the message says how to install it; a bwrap that anyone
// could replace is not used.
func TestFindBwrapMissing(t *testing.T) {
	saved := bwrapDirs
	defer func() { bwrapDirs = saved }()
	bwrapDirs = []string{t.TempDir()}
	if _, err := FindBwrap(); err == nil || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Errorf("FindBwrap without bwrap: %v", err)
	}
	dir := t.TempDir()
	bwrapDirs = []string{dir}
	os.WriteFile(filepath.Join(dir, "bwrap"), []byte("#!/bin/sh\n"), 0o777)
	os.Chmod(filepath.Join(dir, "bwrap"), 0o777)
	if _, err := FindBwrap(); err == nil || !strings.Contains(err.Error(), "will not trust it") {
		t.Errorf("FindBwrap with a world-writable bwrap: %v", err)
	}
}

// When no backend can run, the error names each reason and the way out,
// and says that nothing ran.
func TestSandboxErrorMessage(t *testing.T) {
	e := &SandboxError{Backend: "auto", Reasons: []string{"bubblewrap is not installed (apt-get install bubblewrap)", "Landlock is not available (kernel 5.4)"}}
	msg := e.Error()
	for _, want := range []string{"no sandbox (auto) can run here", "apt-get install bubblewrap", "Landlock is not available", "nothing was run unconfined", "backend: none"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	for _, stderr := range []string{"bwrap: setting up uid map: Permission denied", "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted",
		"bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces",
		"bwrap: Can't mount proc on /newroot/proc: Operation not permitted"} {
		if msg := explainBwrap(stderr, nil); !strings.Contains(msg, stderr) || len(msg) < len(stderr)+40 {
			t.Errorf("no explanation for %q: %s", stderr, msg)
		}
	}
}
