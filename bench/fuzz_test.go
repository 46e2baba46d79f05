package bench

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseSizes: --sizes is read or refused; every size read has
// positive fields and is written back as text that reads to it.
func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"100x2x18x944", "1x1x1x1,2x2x2x2", "", " 3x3x3x3 ,", "1x1x1", "0x1x1x1", "9999999999999999999x1x1x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sizes, err := ParseSizes(s)
		if err != nil {
			return
		}
		for _, sz := range sizes {
			if sz.Classes < 1 || sz.Sets < 1 || sz.Frames < 1 || sz.Dim < 1 {
				t.Fatalf("%q: %+v", s, sz)
			}
			back, err := ParseSizes(sz.String())
			if err != nil || len(back) != 1 || back[0] != sz {
				t.Fatalf("%q: %+v written %q reads as %v, %v", s, sz, sz.String(), back, err)
			}
		}
	})
}

// FuzzReadRuns: a file of records is read or refused; every record read
// is an outcome whose counts are at least 1 and whose times and memory
// are finite and not below 0, and the plot of them is drawn.
func FuzzReadRuns(f *testing.F) {
	f.Add(`{"kind":"lighting","classes":3,"training_sets":6,"frames_per_set":10,"dim":20,"finished":true,"wall_seconds":1.5,"user_seconds":2,"sys_seconds":0.1,"peak_rss_mib":100}`)
	f.Add(`{}`)
	f.Add(`{"kind":"x","classes":-3,"training_sets":6,"frames_per_set":10,"dim":20,"finished":true,"wall_seconds":-2,"user_seconds":0,"sys_seconds":0,"peak_rss_mib":1e308}`)
	f.Add("null\n[1]\n")
	f.Fuzz(func(t *testing.T, text string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "runs.jsonl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		runs, err := ReadRuns(path)
		if err != nil {
			return
		}
		for _, r := range runs {
			bad := r.PeakRSSMiB != nil && (!(*r.PeakRSSMiB >= 0) || math.IsInf(*r.PeakRSSMiB, 0))
			if bad || r.Classes < 1 || r.TrainSets < 1 || !(r.WallSeconds >= 0) || math.IsInf(r.WallSeconds, 0) {
				t.Fatalf("%q: read %+v", text, r)
			}
		}
		if len(runs) > 0 {
			if err := Plot(filepath.Join(dir, "plot.png"), runs); err != nil {
				t.Logf("plot: %v", err)
			}
		}
	})
}
