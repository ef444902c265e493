package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func ask(t *testing.T, s *Store, text string) *Ask {
	t.Helper()
	a := &Ask{Key: Key("command", text, "/w"), Mode: "command", Text: text, Shown: text, Dir: "/w", Time: time.Now()}
	if err := s.Record(a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestOnceRace: of 50 retries racing for an approval for once, exactly
// one gets it.
func TestOnceRace(t *testing.T) {
	s := New(t.TempDir())
	a := ask(t, s, "git reset --hard")
	got, err := s.Lookup(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Grant(got, 0); err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if id, ok := s.Use(a.Key); ok && id == a.ID {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d retries ran, want exactly 1", wins.Load())
	}
	if _, ok := s.Use(a.Key); ok {
		t.Fatal("an approval for once was used twice")
	}
	if _, err := s.Lookup(a.ID); err == nil {
		t.Error("the ask is still pending after its approval")
	}
}

func TestForAndExpiry(t *testing.T) {
	s := New(t.TempDir())
	a := ask(t, s, "rm notes.txt")
	if _, err := s.Grant(a, time.Hour); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, ok := s.Use(a.Key); !ok {
			t.Fatal("an approval --for 1h was not used again")
		}
	}
	if _, ok := s.Use(Key("command", "rm notes.txt", "/other")); ok {
		t.Fatal("an approval was used in another directory")
	}
	if _, ok := s.Use(Key("command", "rm notes.txt ", "/w")); ok {
		t.Fatal("an approval was used for another command text")
	}
	// Expired: rewrite its expiry into the past.
	var g Grant
	name := s.granted(a.Key)
	data, _ := os.ReadFile(name)
	json.Unmarshal(data, &g)
	g.Expires = time.Now().Add(-time.Second)
	writeJSON(name, &g)
	if _, ok := s.Use(a.Key); ok {
		t.Fatal("an expired approval was used")
	}
}

func TestLookupErrors(t *testing.T) {
	s := New(t.TempDir())
	for _, id := range []string{"", "../../etc", "zzzzzzzz", "0123456789", "01234567"} {
		if _, err := s.Lookup(id); err == nil {
			t.Errorf("Lookup(%q) succeeded", id)
		}
	}
	a := ask(t, s, "x")
	a.Time = time.Now().Add(-AskLife - time.Minute)
	s.Record(a)
	if _, err := s.Lookup(a.ID); err == nil {
		t.Error("an ask older than AskLife was approvable")
	}
}

func TestApproveHost(t *testing.T) {
	s := New(t.TempDir())
	if h := s.Hosts("/w"); len(h) != 0 {
		t.Fatalf("hosts before any approval: %v", h)
	}
	for _, h := range []string{"example.com", "example.com", "10.0.0.1"} {
		if err := s.ApproveHost("/w", h); err != nil {
			t.Fatal(err)
		}
	}
	if h := s.Hosts("/w"); len(h) != 2 || h[0] != "example.com" || h[1] != "10.0.0.1" {
		t.Errorf("hosts: %v", h)
	}
	if h := s.Hosts("/other"); len(h) != 0 {
		t.Errorf("another workspace got %v", h)
	}
	if had, err := s.RevokeHost("/w", "example.com"); !had || err != nil {
		t.Errorf("revoke: %v %v", had, err)
	}
	if had, _ := s.RevokeHost("/w", "example.com"); had {
		t.Error("revoked twice")
	}
	if h := s.Hosts("/w"); len(h) != 1 || h[0] != "10.0.0.1" {
		t.Errorf("hosts after revoke: %v", h)
	}
}

// TestDamagedPending: a pending ask's file cut short is listed as
// damaged, not taken for no ask.
func TestDamagedPending(t *testing.T) {
	s := New(t.TempDir())
	if err := s.Record(&Ask{Key: "0123456789abcdef0123", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "pending", "*.json"))
	if len(files) != 1 {
		t.Fatalf("pending files %v", files)
	}
	os.WriteFile(files[0], []byte(`{"key": "k", "ti`), 0o600)
	if asks, _ := s.Pending(); len(asks) != 0 {
		t.Errorf("a damaged ask read: %v", asks)
	}
	if d := s.Damaged(); len(d) != 1 || d[0] != files[0] {
		t.Errorf("Damaged = %v", d)
	}
}
