package guard

import (
	"os"
	"path/filepath"
	"testing"
)

// TestConfigsTakenByStamp: a ticket's new trusted state takes a git
// configuration file unchanged since the last one (the same stamp) from
// there instead of reading it, as it does the guarded files; one
// written since, even to the same size and with its times set back
// (its change time moves on, which no process can set back), is read.
func TestConfigsTakenByStamp(t *testing.T) {
	ws, _, p := benchWorkspace(t)
	config := filepath.Join(ws, ".git", "config")
	old := snapshotConfigs(p.GitConfig)
	e := old[config]
	if e == nil || e.Stamp == "" {
		t.Fatalf("no stamp taken of %s: %+v", config, e)
	}
	// Taken from the hint: what it holds, not what the file does.
	hint := old.clone()
	marked := []byte(string(e.Data))
	marked[0] ^= 1
	hint[config].Data = marked
	if got := snapshotConfigsFrom(p.GitConfig, hint)[config]; got == nil || string(got.Data) != string(marked) {
		t.Fatalf("an unchanged configuration was read again, not taken from the last trusted state")
	}

	// Written since, the same size, times set back: read.
	fi, err := os.Stat(config)
	if err != nil {
		t.Fatal(err)
	}
	changed := []byte(string(e.Data))
	changed[len(changed)-2] ^= 1
	if err := os.WriteFile(config, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(config, fi.ModTime(), fi.ModTime())
	if got := snapshotConfigsFrom(p.GitConfig, old)[config]; got == nil || string(got.Data) != string(changed) {
		t.Fatalf("a configuration written since the last trusted state was taken from it: %q", got.Data)
	}
}

// TestHoldTakesChangedConfig: a person's edit to .git/config between two
// commands (the same size, its times set back) is what the next ticket
// trusts.
func TestHoldTakesChangedConfig(t *testing.T) {
	ws, state, p := benchWorkspace(t)
	config := filepath.Join(ws, ".git", "config")
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Release(state, ws); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(config)
	data[len(data)-2] ^= 1
	if err := os.WriteFile(config, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(config, fi.ModTime(), fi.ModTime())
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	defer Release(state, ws)
	got, ok := TrustedContent(state, ws, config)
	if !ok || string(got) != string(data) {
		t.Fatalf("the trusted configuration is %q, want the person's edit %q", got, data)
	}
}
