package features

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenSpecs are the pipelines whose burst features testdata/burst.golden.json
// records (written on linux/amd64 with go test -run TestBurstGolden -update).
var goldenSpecs = []string{"lbp:4x4@64x64", "lbp:2x2", "intensity:20x20", "intensity:8x6:norm", "hog:8@32x32", "hist:16", "intensity:8x6+pca:3"}

// goldenBurst returns the testdata burst (PNG, JPEG and PGM frames of one
// size) and the fitted pipeline with PCA, both written once by -update.
func goldenBurst(t *testing.T) (string, Fitted) {
	t.Helper()
	dir := filepath.Join("testdata", "burst")
	pcaFile := filepath.Join("testdata", "intensity-8x6-pca-3.smfp")
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string][]byte{
			"a.png": encodePNG(t, scene(48, 36, 0)),
			"b.jpg": encodeJPEG(t, scene(48, 36, 1)),
			"c.pgm": encodePGM(scene(48, 36, 2)),
			"d.jpg": encodeJPEG(t, scene(48, 36, 3)),
		})
		b, err := fittedPCA(t).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pcaFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(pcaFile)
	if err != nil {
		t.Fatal(err)
	}
	var f Fitted
	if err := f.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return dir, f
}

// The features of a fixed burst equal those recorded on linux/amd64 to
// 1e-12 (absolute; features are O(1)) on every architecture: the test runs
// under qemu for arm64, whose compiler fuses multiply-adds.
func TestBurstGolden(t *testing.T) {
	dir, pca := goldenBurst(t)
	root := openRoot(t, dir)
	got := map[string][][]float64{}
	for _, spec := range goldenSpecs {
		f := mustFitted(t, spec)
		if f.Pipeline.PCA > 0 {
			f = pca
		}
		x, err := f.ApplyBurst(root, ".", DefaultBurstLimits())
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		n, _ := x.Dims()
		for i := range n {
			got[spec] = append(got[spec], mat.Row(nil, i, x))
		}
	}
	golden := filepath.Join("testdata", "burst.golden.json")
	if *update {
		b, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][][]float64
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, spec := range goldenSpecs {
		w, g := want[spec], got[spec]
		if len(w) != len(g) || len(w) == 0 {
			t.Errorf("%s: %d frames, golden %d", spec, len(g), len(w))
			continue
		}
		worst, exact := 0.0, true
		for i := range w {
			if len(w[i]) != len(g[i]) {
				t.Fatalf("%s frame %d: %d features, golden %d", spec, i, len(g[i]), len(w[i]))
			}
			for j := range w[i] {
				worst = math.Max(worst, math.Abs(w[i][j]-g[i][j]))
				exact = exact && w[i][j] == g[i][j]
			}
		}
		if worst > 1e-12 {
			t.Errorf("%s: differs from the golden features by %g", spec, worst)
		}
		if !exact {
			t.Logf("%s: within %g of the golden features, not bit for bit", spec, worst)
		}
	}
}
