package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/synth"
)

// TestSweepRefusesSizesUpFront: a size synth cannot generate is refused
// before any size is generated or trained, so that a sweep does not end
// in the middle and lose the outcomes of the sizes before it.
func TestSweepRefusesSizesUpFront(t *testing.T) {
	for _, tc := range []struct {
		sizes []Size
		kind  synth.Kind
		want  string
	}{
		{[]Size{{3, 1, 4, 4}, {100000000, 2, 12, 64}}, synth.Lighting, "size 100000000x2x12x64, with 1 more held-out per class: 100000000×3×12×64 values are more than the limit"},
		{[]Size{{3, 1, 4, 4}, {3, 1, 4, 5000}}, synth.Lighting, "dim 5000 is more than the 4096 features"},
		{[]Size{{3, 1, 8, 4}, {3, 1, 4, 4}}, synth.BeyondGauss, "size 3x1x4x4, with 1 more held-out per class: beyond-gauss whitens every set"},
	} {
		keep := t.TempDir()
		var log bytes.Buffer
		// The executable is never run: nothing may get that far.
		_, err := Sweep(SweepOptions{Exe: filepath.Join(keep, "no-setmatch"), Sizes: tc.sizes, Kind: tc.kind, Probes: 1, Seed: 1, Keep: keep, Log: &log})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.sizes, err, tc.want)
		}
		if entries, _ := os.ReadDir(keep); len(entries) != 0 || log.Len() != 0 {
			t.Errorf("%v: the sweep began before it refused the size: %d entries in its folder, log %q", tc.sizes, len(entries), log.String())
		}
	}
}
