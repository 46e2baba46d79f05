package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFinish: moving a claimed batch into done/, as the daemon does
// after each decision, without and with byte caps on done/ and failed/
// (with them, Finish measures the batch: a file's size, or the walk of a
// burst's frames). A burst is 16 frames of 93 KiB (a JPEG of 640 × 480);
// the batch is created and claimed with the timer stopped, and removed
// from done/ after, so that done/ does not grow with b.N.
func BenchmarkFinish(b *testing.B) {
	frame := make([]byte, 93<<10)
	for _, bc := range []struct {
		name   string
		frames int // 0: a feature file of one frame's bytes
		caps   bool
	}{
		{"file", 0, false}, {"file/byte-caps", 0, true},
		{"burst16", 16, false}, {"burst16/byte-caps", 16, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "spool")
			opt := Options{Dir: dir, KeepDone: true, DoneMaxFiles: 1000}
			if bc.caps {
				opt.DoneMaxBytes, opt.FailedMaxBytes = 1<<30, 256<<20
			}
			sp, err := Open(opt)
			if err != nil {
				b.Fatal(err)
			}
			defer sp.Close()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				name := fmt.Sprintf("b%06d", i)
				p := filepath.Join(dir, DirNew, name)
				if bc.frames == 0 {
					err = os.WriteFile(p, frame, 0o644)
				} else if err = os.Mkdir(p, 0o755); err == nil {
					for f := 0; f < bc.frames && err == nil; f++ {
						err = os.WriteFile(filepath.Join(p, fmt.Sprintf("%03d.jpg", f)), frame, 0o644)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sp.Claim(name); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := sp.Finish(name); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := os.RemoveAll(filepath.Join(dir, DirDone, name)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkPrune: one prune of a full spool that removes nothing, as the
// daemon's rescan makes one every few seconds: done/ holds 1000 bursts
// of 16 frames (the default cap in batches), failed/ nothing. With byte
// caps, the sizes come from the first prune (before the timer), as the
// running daemon's come from Finish.
func BenchmarkPrune(b *testing.B) {
	for _, caps := range []bool{false, true} {
		name := "1000-bursts"
		if caps {
			name += "/byte-caps"
		}
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "spool")
			opt := Options{Dir: dir, KeepDone: true, DoneMaxFiles: 1000, FailedMaxFiles: 1000}
			if caps {
				opt.DoneMaxBytes, opt.FailedMaxBytes = 1<<30, 256<<20
			}
			sp, err := Open(opt)
			if err != nil {
				b.Fatal(err)
			}
			defer sp.Close()
			for i := 0; i < 1000; i++ {
				p := filepath.Join(dir, DirDone, fmt.Sprintf("b%04d", i))
				if err := os.Mkdir(p, 0o755); err != nil {
					b.Fatal(err)
				}
				for f := 0; f < 16; f++ {
					if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("%03d.jpg", f)), []byte("x"), 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
			if n, err := sp.Prune(time.Now()); n != 0 || err != nil {
				b.Fatalf("first prune removed %d, err %v; want 0, nil", n, err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n, err := sp.Prune(time.Now()); n != 0 || err != nil {
					b.Fatalf("prune removed %d, err %v; want 0, nil", n, err)
				}
			}
		})
	}
}
