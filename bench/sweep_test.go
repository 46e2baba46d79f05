package bench

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/internal/testexec"
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

// TestSweepRecordsFailedTrain: a size whose setmatch train fails (here a
// stand-in that exits 1) is an outcome, not finished and saying why, and
// the sweep goes on to the next size instead of deciding held-out sets
// with a model that was never written.
func TestSweepRecordsFailedTrain(t *testing.T) {
	if testexec.Emulated() {
		t.Skip("child processes under qemu-user")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	keep := t.TempDir()
	exe := filepath.Join(t.TempDir(), "failing-setmatch")
	if err := os.WriteFile(exe, []byte("#!"+sh+"\necho cannot train >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sizes := []Size{{3, 1, 4, 4}, {4, 1, 4, 4}}
	runs, err := Sweep(SweepOptions{Exe: exe, Sizes: sizes, Kind: synth.Lighting, Probes: 1, Seed: 1, Keep: keep, Log: io.Discard})
	if err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	if len(runs) != len(sizes) {
		t.Fatalf("%d outcomes for %d sizes", len(runs), len(sizes))
	}
	for i, r := range runs {
		if r.Finished || !strings.Contains(r.Error, "train failed") || r.Accuracy != nil {
			t.Errorf("size %s: finished %v, error %q, accuracy %v; want not finished, train failed, no accuracy", sizes[i], r.Finished, r.Error, r.Accuracy)
		}
	}
	if kept, err := ReadRuns(filepath.Join(keep, "runs.jsonl")); err != nil || len(kept) != len(sizes) {
		t.Errorf("runs.jsonl: %d outcomes, %v; want %d", len(kept), err, len(sizes))
	}
}
