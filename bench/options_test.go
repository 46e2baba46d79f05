package bench

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"setmatch/synth"
)

// TestCheckNamesValuesNotFlags: Check's errors name the values at fault
// by their meaning, never by a flag of setmatch bench (a library knows
// no command line), and say which fields of the options they are
// (OptionError), for a command to name its flags.
func TestCheckNamesValuesNotFlags(t *testing.T) {
	match := MatchOptions{Gallery: 10, Frames: 10, Dim: 4, QueryFrames: 10, Queries: 3}
	train := TrainOptions{Classes: 3, Sets: 2, Frames: 4, InDim: 5, OutDim: 2, MaxIter: 1}
	sweep := SweepOptions{Sizes: []Size{{3, 1, 4, 4}}, Kind: synth.Lighting, Probes: 1}
	for _, tc := range []struct {
		name   string
		check  func() error
		fields []string
		want   string
	}{
		{"gallery 0", func() error { m := match; m.Gallery = 0; return m.Check() }, []string{"Gallery"}, "gallery sets must be at least 1, got 0"},
		{"query frames 1", func() error { m := match; m.QueryFrames = 1; return m.Check() }, []string{"QueryFrames"}, "sets need at least 2 frames: a query has 1"},
		{"frames 1", func() error { m := match; m.Frames = 1; return m.Check() }, []string{"Frames"}, "sets need at least 2 frames: a gallery set has 1"},
		{"too large", func() error { m := match; m.Dim = 1e9; return m.Check() }, []string{"Gallery", "Frames", "Queries", "QueryFrames", "Dim"},
			"would be 1.3e+11 numbers ((gallery sets × frames per set + queries × frames per query) × features per frame), more than the 268435456 (2 GiB)"},
		{"one class", func() error { o := train; o.Classes = 1; return o.Check() }, []string{"Classes"}, "needs ≥ 2 classes"},
		{"out-dim above in-dim", func() error { o := train; o.OutDim = 6; return o.Check() }, []string{"OutDim", "InDim"}, "a learned dimension from 1 to the input dimension"},
		{"max-iter 0", func() error { o := train; o.MaxIter = 0; return o.Check() }, []string{"MaxIter"}, "the iteration cap must be at least 1, got 0"},
		{"too many sets", func() error { o := train; o.Classes = 200000; return o.Check() }, []string{"Classes", "Sets"}, "200000 classes × 2 sets are more than"},
		{"no probes", func() error { o := sweep; o.Probes = 0; return o.Check() }, []string{"Probes"}, "held-out sets per class must be at least 1, got 0"},
		{"size", func() error { o := sweep; o.Sizes = []Size{{3, 1, 4, 5000}}; return o.Check() }, []string{"Sizes"}, "size 3x1x4x5000, with 1 more held-out per class: "},
	} {
		err := tc.check()
		var e *OptionError
		if err == nil || strings.Contains(err.Error(), "--") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q and naming no flag", tc.name, err, tc.want)
		} else if !errors.As(err, &e) || !slices.Equal(e.Fields, tc.fields) {
			t.Errorf("%s: %#v, want an OptionError of the fields %v", tc.name, err, tc.fields)
		}
	}
}

// TestReadRunsNoOutcomes: a file of no outcomes is ErrNoRuns, said
// without a flag of setmatch bench train (the command adds its own).
func TestReadRunsNoOutcomes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRuns(path); !errors.Is(err, ErrNoRuns) || strings.Contains(err.Error(), "--") {
		t.Errorf("ReadRuns of an empty file: %v, want ErrNoRuns naming no flag", err)
	}
}
