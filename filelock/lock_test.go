package filelock

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Two holders of one lock never overlap.
func TestMakeExcludes(t *testing.T) {
	name := filepath.Join(t.TempDir(), "lock")
	var mu sync.Mutex
	inside, overlaps := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := Make(name)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			if inside > 1 {
				overlaps++
			}
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if overlaps > 0 {
		t.Errorf("%d holders overlapped", overlaps)
	}
}
