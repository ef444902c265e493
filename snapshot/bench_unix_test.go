//go:build unix

package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSaveBeforeLoss is what the shim adds to a command that
// overwrites one 4 KiB untracked file: plan, copy, manifest, eviction.
func BenchmarkSaveBeforeLoss(b *testing.B) {
	s := Open(b.TempDir(), Budgets{})
	ws := b.TempDir()
	f := filepath.Join(ws, "notes.txt")
	buf := make([]byte, 4096)
	for i := 0; b.Loop(); i++ {
		copy(buf, fmt.Sprint(i))
		os.WriteFile(f, buf, 0o644)
		if err := s.Save(&Manifest{Kind: KindBefore, Workspace: ws}, []string{f}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWaitPendingNone is what every command pays when no save is
// pending.
func BenchmarkWaitPendingNone(b *testing.B) {
	s := Open(b.TempDir(), Budgets{})
	ws := b.TempDir()
	os.MkdirAll(s.pendingDir(ws), 0o700)
	for b.Loop() {
		s.WaitPending(ws)
	}
}

// BenchmarkTrack20kUnchanged is a round of the continuous guard over
// 20000 untracked files of which none changed (stat only), and
// BenchmarkTrack20kOneChanged one where one did.
func BenchmarkTrack20kUnchanged(b *testing.B)  { benchTrack(b, false) }
func BenchmarkTrack20kOneChanged(b *testing.B) { benchTrack(b, true) }

func benchTrack(b *testing.B, change bool) {
	s := Open(b.TempDir(), Budgets{})
	ws := b.TempDir()
	var paths []string
	for i := range 20000 {
		p := filepath.Join(ws, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(p), 0o644)
	}
	for i := range 100 {
		paths = append(paths, filepath.Join(ws, fmt.Sprintf("d%02d", i)))
	}
	time.Sleep(2 * tick)
	if _, err := s.Track(ws, paths, &Manifest{Time: time.Now()}); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if change {
			os.WriteFile(filepath.Join(ws, "d00", "f00000.txt"), []byte(fmt.Sprint(i)), 0o644)
		}
		if _, err := s.Track(ws, paths, &Manifest{Time: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrackObjects1500 is the object pass of one round (and of the
// pre-round) in a repository of 1,500 loose objects over 256 fan-out
// directories and two packs, none changed: what every command's rounds
// pay in a repository that many commits made since its last gc.
func BenchmarkTrackObjects1500(b *testing.B) {
	s := Open(b.TempDir(), Budgets{})
	git := filepath.Join(b.TempDir(), "ws", ".git")
	for i := range 1500 {
		p := filepath.Join(git, "objects", fmt.Sprintf("%02x", i%256), fmt.Sprintf("%038x", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(p), 0o444)
	}
	os.MkdirAll(filepath.Join(git, "objects", "pack"), 0o755)
	for _, name := range []string{"pack-1.pack", "pack-1.idx", "pack-2.pack", "pack-2.idx"} {
		os.WriteFile(filepath.Join(git, "objects", "pack", name), []byte(name), 0o444)
	}
	time.Sleep(2 * tick)
	patterns := []string{"objects/??/*", "objects/pack/pack-*.pack", "objects/pack/pack-*.idx", "objects/pack/pack-*.keep"}
	if res, err := s.TrackObjects(git, git, patterns); err != nil || res.Copied != 1504 {
		b.Fatalf("first round: %+v, %v", res, err)
	}
	for b.Loop() {
		if res, err := s.TrackObjects(git, git, patterns); err != nil || res.Copied != 0 || len(res.Changed) != 0 {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}
