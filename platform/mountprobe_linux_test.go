package platform

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMountNamespaceProbeKept shows that a passed probe is remembered
// with what decided it, used while that holds, made again when the file
// says anything else, and that a failed one is never remembered.
func TestMountNamespaceProbeKept(t *testing.T) {
	key := mountProbeKey()
	if key == "" || !strings.Contains(key, "\nCapEff: ") || !strings.Contains(key, "mnt:[") {
		t.Fatalf("the probe's key lacks what decides it: %q", key)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "mount-probe")
	probes := 0
	result := error(nil)
	old := mountProbe
	t.Cleanup(func() { mountProbe = old })
	mountProbe = func() error { probes++; return result }

	result = errors.New("no mount namespace here")
	if err := mountNamespaceWorks(dir); err == nil || probes != 1 {
		t.Fatalf("a failed probe: err %v after %d probes", err, probes)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("a failed probe was remembered: %v", err)
	}
	result = nil
	if err := mountNamespaceWorks(dir); err != nil || probes != 2 {
		t.Fatalf("a passed probe: err %v after %d probes", err, probes)
	}
	if data, err := os.ReadFile(file); err != nil || string(data) != key {
		t.Fatalf("the passed probe was not kept with its key: %q, %v", data, err)
	}
	// Kept: a probe that would fail now is not made.
	result = errors.New("would fail")
	if err := mountNamespaceWorks(dir); err != nil || probes != 2 {
		t.Fatalf("the kept answer was not used: err %v after %d probes", err, probes)
	}
	// Anything else in the file (another user's, another namespace's,
	// a capability dropped since) is no answer: probed again.
	for _, other := range []string{strings.Replace(key, "CapEff: ", "CapEff: 0", 1), strings.Replace(key, "mnt:[", "mnt:[1", 1), "", key + "\n"} {
		if err := os.WriteFile(file, []byte(other), 0o600); err != nil {
			t.Fatal(err)
		}
		n := probes
		if err := mountNamespaceWorks(dir); err == nil || probes != n+1 {
			t.Fatalf("a file with another key was taken for the answer: err %v, %d probes", err, probes-n)
		}
	}
	// No state directory: probed every time.
	result = nil
	n := probes
	mountNamespaceWorks("")
	mountNamespaceWorks("")
	if probes != n+2 {
		t.Fatalf("without a state directory, %d probes for 2 starts", probes-n)
	}
}
