package features

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// BenchmarkBurst times ApplyBurst on a burst of 16 camera frames of 640×480
// JPEG (quality 90): listing, reading, decoding, grey conversion and feature
// extraction, frames one after the other. The decode sub-benchmark times
// only reading and decoding the 16 frames. Besides the wall time, each
// reports cpu-ms/op, the process's CPU time per burst: the work runs on one
// goroutine, so on an idle machine it equals the wall time, and on a busy
// one it is the better figure.
func BenchmarkBurst(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "burst")
	files := map[string][]byte{}
	size := 0
	for k := range 16 {
		jpg := encodeJPEG(b, scene(640, 480, k))
		files[fmt.Sprintf("frame%02d.jpg", k)] = jpg
		size += len(jpg)
	}
	writeFiles(b, dir, files)
	root := openRoot(b, dir)
	for _, spec := range []string{"lbp:4x4@64x64", "intensity:20x20"} {
		f := mustFitted(b, spec)
		b.Run(spec, func(b *testing.B) {
			b.SetBytes(int64(size))
			c0 := testutil.CPUTime()
			for b.Loop() {
				x, err := f.ApplyBurst(root, ".", DefaultBurstLimits())
				if err != nil {
					b.Fatal(err)
				}
				if r, _ := x.Dims(); r != 16 {
					b.Fatalf("%d rows", r)
				}
			}
			reportCPU(b, c0)
		})
	}
	b.Run("decode-only", func(b *testing.B) {
		b.SetBytes(int64(size))
		lim := DefaultBurstLimits()
		c0 := testutil.CPUTime()
		for b.Loop() {
			burst, err := OpenBurst(root, ".", lim)
			if err != nil {
				b.Fatal(err)
			}
			burst.Close()
			for _, fr := range burst.Frames {
				if _, err := decodeBytes(files[fr.Name], fr.Name, lim.MaxPixels); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportCPU(b, c0)
	})
}

func reportCPU(b *testing.B, since time.Duration) {
	if c := testutil.CPUTime(); c > 0 && b.N > 0 {
		b.ReportMetric(float64(c-since)/1e6/float64(b.N), "cpu-ms/op")
	}
}
