package platform

import (
	"encoding/json"
	"os"
	"path/filepath"
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
