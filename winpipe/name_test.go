package winpipe

import (
	"regexp"
	"runtime"
	"testing"
)

// TestNewName: names are cordon's, random, and never the same twice.
func TestNewName(t *testing.T) {
	a, err := NewName()
	b, err2 := NewName()
	if err != nil || err2 != nil || a == b || !regexp.MustCompile(`^\\\\\.\\pipe\\cordon-[0-9a-f]{32}$`).MatchString(a) {
		t.Errorf("NewName: %q, %q, %v, %v", a, b, err, err2)
	}
	if runtime.GOOS != "windows" {
		if _, err := Listen(a, "S-1-5-21-1-2-3-4"); err != ErrUnsupported {
			t.Errorf("Listen outside Windows: %v", err)
		}
	}
}
