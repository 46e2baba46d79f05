package model

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/features"
	"setmatch/internal/testutil"
	"setmatch/method"
)

var update = flag.Bool("update", false, "rewrite the golden model file of the current format version and its expected results in testdata/")

// A golden model file is kept for every format version this package reads:
// testdata/format-vN.smm, with testdata/format-vN.json holding batches and
// what matching them with the file's model gave when it was written. Files
// of older versions are never rewritten: that they still decode, and match
// as they did, is the compatibility promise of docs/FORMATS.md.

// goldenFile is the content of testdata/format-vN.json.
type goldenFile struct {
	Version   uint32        `json:"version"`
	InputDim  int           `json:"input_dim"`
	Dim       int           `json:"dim"`
	Labels    []string      `json:"labels"`
	Threshold jsonFloat     `json:"threshold"`
	Batches   []goldenBatch `json:"batches"`
}

type goldenBatch struct {
	Frames      [][]float64 `json:"frames"` // n×D, raw features
	Best        int         `json:"best"`
	Label       string      `json:"label"`
	Score       float64     `json:"score"`
	RunnerUp    int         `json:"runner_up"`
	RunnerLabel string      `json:"runner_label"`
	RunnerScore jsonFloat   `json:"runner_score"`
	Known       bool        `json:"known"`
	Bandwidth   float64     `json:"bandwidth"`
	Hellinger2  []float64   `json:"hellinger2"` // to every gallery set
	Jeffrey     []float64   `json:"jeffrey"`
	Latent      []float64   `json:"latent,omitempty"`    // kFDA models (format ≥ 2)
	Distances   []float64   `json:"distances,omitempty"` // latent distances to every gallery set
	// Distances the kernel induces to every gallery set (format ≥ 4).
	KernelDistances []float64 `json:"kernel_distances,omitempty"`
	// The members' labels and the member whose result this is, for a
	// model with voters (format ≥ 6).
	Votes  []string `json:"votes,omitempty"`
	Member int      `json:"member,omitempty"`
	// The factor of the nearest class's threshold (format ≥ 7; absent:
	// 1).
	Factor float64 `json:"factor,omitempty"`
}

func goldenPaths(v uint32) (model, results string) {
	base := filepath.Join("testdata", fmt.Sprintf("format-v%d", v))
	return base + ".smm", base + ".json"
}

// goldenModel returns the model of the current format version's golden
// file: a small deterministic kFDA model on the sum of three kernels (hg,
// width relative to the median; gda, p = 2; cdl, λ = 0.05: format 4;
// format 3's file holds CDL's kernel alone, format 2's hg alone) in the
// full space, its projection the identity (format 5; format 4's file
// has a 6×3 W), with a recorded feature pipeline (intensity:4x4+pca:6), a
// selection table and an open-set threshold; and two voters (format 6;
// format 5's file has none): nearest neighbour after a 6×3 W, and kFDA
// on the Hellinger distance in the full space, each with a threshold of
// its own; and a threshold for each class (format 7; format 6's file
// has one for all), in the model and in its first voter.
func goldenModel(t testing.TB) *Model {
	m := goldenMix(t)
	m.Spread = &Spread{Exponent: 0.5, Factors: map[string]float64{"a": 1.5, "b": 0.25}}
	dr := mfModel(201, 6, 3, []int{5, 4, 6, 5, 4, 6})
	dr.Threshold = 2
	dr.Selection = Selection{Method: "nn-h-dr", Params: map[string]string{"dim": "3"}, CVAccuracy: math.NaN()}
	dr.Spread = &Spread{Exponent: 1, Factors: map[string]float64{"c": 2}}
	hl := mfModel(301, 6, 6, []int{5, 4, 6, 5, 4, 6})
	hl.W, hl.Identity = nil, true
	hl.Threshold = 1.2
	if _, err := fitKFDA(hl, string(method.KernelHL), 1, "median", 1e-2, 0, 1); err != nil {
		t.Fatal(err)
	}
	m.Voters = []*Model{dr, hl}
	return m
}

// goldenMix is the model of format 5's golden file: goldenModel
// without voters.
func goldenMix(t testing.TB) *Model {
	m := mfModel(101, 6, 6, []int{5, 4, 6, 5, 4, 6})
	m.W, m.Identity = nil, true
	m.Threshold = 1.65 // a distance the kernel induces (Discriminant.OpenSet): the batch near b is known, the others not
	terms := []Term{
		{Kernel: string(method.KernelHG), Width: 1, Scale: 1, WidthScale: "median"},
		{Kernel: string(method.KernelGDA), Width: 1, Scale: 1, WidthScale: "raw", P: 2},
		{Kernel: string(method.KernelCDL), Width: 1, Scale: 1, WidthScale: "raw", Lambda: 0.05},
	}
	if _, err := fitTerms(m, terms, 1e-2, 0, 1); err != nil {
		t.Fatal(err)
	}
	m.Selection = Selection{
		Method: "kfda-mix", Params: map[string]string{"reg": "0.01", "dim": "2"}, CVAccuracy: 0.75,
		Candidates: []Candidate{{"nn-h", "", 0.5, 0.25}, {"kfda-mix", "hg+gda+cdl reg=0.01 dim=2", 0.75, 1.5}, {"kfda-j", "", math.NaN(), 0}},
	}
	withPipeline(t, m)
	return m
}

// hgModel is goldenModel with kernel hg alone (width relative to the
// median): the model of format 2's golden file.
func hgModel(t testing.TB) *Model {
	m := mfModel(101, 6, 3, []int{5, 4, 6, 5, 4, 6})
	m.Threshold = 10 // a latent distance
	if _, err := fitKFDA(m, string(method.KernelHG), 1, "median", 1e-2, 0, 1); err != nil {
		t.Fatal(err)
	}
	m.Selection = Selection{
		Method: "kfda-hg", Params: map[string]string{"width": "1/median", "reg": "0.01", "dim": "2"}, CVAccuracy: 0.75,
		Candidates: []Candidate{{"nn-h", "", 0.5, 0.25}, {"kfda-hg", "s=1/median reg=0.01 dim=2", 0.75, 1.5}, {"kfda-j", "", math.NaN(), 0}},
	}
	withPipeline(t, m)
	return m
}

// withPipeline records a fitted feature pipeline (intensity:4x4+pca:6)
// in m.
func withPipeline(t testing.TB, m *Model) {
	p, err := features.Parse("intensity:4x4+pca:6")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(103, 1))
	f, err := features.FitPipeline(p, []*mat.Dense{testutil.RandSet(rng, 12, 16, 0, 1), testutil.RandSet(rng, 9, 16, 1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	m.Features = &f
}

// writeGolden writes the golden model file of the current format version
// (goldenModel) and records three batches: near class a, near class b,
// and far from every class.
func writeGolden(t *testing.T) {
	m := goldenModel(t)
	var b bytes.Buffer
	if err := Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	modelPath, resultsPath := goldenPaths(FormatVersion)
	if err := os.WriteFile(modelPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(102, 1))
	g := goldenFile{}
	for _, shift := range []float64{0, 3, 40} {
		x := mfBatch(rng, m, 7, shift)
		r, _ := x.Dims()
		fb := goldenBatch{Frames: make([][]float64, r)}
		for i := range r {
			fb.Frames[i] = append([]float64(nil), x.RawRowView(i)...)
		}
		g.Batches = append(g.Batches, fb)
	}
	// The results are those of the model read back from the file.
	dec, err := DecodeBytes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	mt := mustMatcher(t, dec)
	g.Version, g.InputDim, g.Dim, g.Labels, g.Threshold = FormatVersion, dec.InputDim(), dec.Dim(), dec.Labels(), jsonFloat(dec.Threshold)
	for i := range g.Batches {
		res, err := mt.Match(goldenFrames(t, g.Batches[i].Frames))
		if err != nil {
			t.Fatal(err)
		}
		fb := &g.Batches[i]
		d := res.Decision
		fb.Best, fb.Label, fb.Score, fb.Known = d.Best, d.Label, d.Score, d.Known
		fb.RunnerUp, fb.RunnerLabel, fb.RunnerScore = d.RunnerUp, d.RunnerLabel, jsonFloat(d.RunnerScore)
		fb.Bandwidth = res.Bandwidth
		for _, v := range res.Divergences {
			fb.Hellinger2 = append(fb.Hellinger2, v.Hellinger2)
			fb.Jeffrey = append(fb.Jeffrey, v.Jeffrey)
		}
		fb.Latent, fb.Distances, fb.KernelDistances = res.Latent, res.Distances, res.KernelDistances
		fb.Votes, fb.Member = res.Votes, res.Member
		if res.Factor != 1 {
			fb.Factor = res.Factor
		}
	}
	js, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resultsPath, append(js, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func goldenFrames(t *testing.T, rows [][]float64) *mat.Dense {
	t.Helper()
	if len(rows) == 0 {
		t.Fatal("golden batch has no frames")
	}
	x := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		if len(r) != len(rows[0]) {
			t.Fatalf("golden batch row %d has %d values, row 0 has %d", i, len(r), len(rows[0]))
		}
		x.SetRow(i, r)
	}
	return x
}

// goldenAgree is the tolerance across architectures: 1e-9 relative, 1e-12
// absolute near zero.
func goldenAgree(got, want float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= 1e-12+1e-9*math.Abs(want)
}

func TestGoldenModelFiles(t *testing.T) {
	if *update {
		writeGolden(t)
	}
	for v := uint32(1); v <= FormatVersion; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			modelPath, resultsPath := goldenPaths(v)
			raw, err := os.ReadFile(modelPath)
			if err != nil {
				t.Fatalf("golden model file of format %d: %v (go test -run TestGoldenModelFiles -update writes the current version's)", v, err)
			}
			js, err := os.ReadFile(resultsPath)
			if err != nil {
				t.Fatalf("expected results of format %d: %v", v, err)
			}
			var g goldenFile
			if err := json.Unmarshal(js, &g); err != nil {
				t.Fatalf("%s: %v", resultsPath, err)
			}
			m, info, err := ReadFile(modelPath)
			if err != nil {
				t.Fatal(err)
			}
			if info.Version != v || g.Version != v {
				t.Errorf("format version %d in the file, %d in %s; want %d", info.Version, g.Version, resultsPath, v)
			}
			if m.InputDim() != g.InputDim || m.Dim() != g.Dim || fmt.Sprint(m.Labels()) != fmt.Sprint(g.Labels) || m.Threshold != float64(g.Threshold) {
				t.Errorf("model %d→%d, labels %v, threshold %v; recorded %d→%d, %v, %v",
					m.InputDim(), m.Dim(), m.Labels(), m.Threshold, g.InputDim, g.Dim, g.Labels, float64(g.Threshold))
			}
			if v == FormatVersion {
				// The writer of the current version reproduces the file.
				var b bytes.Buffer
				if err := Encode(&b, m); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b.Bytes(), raw) {
					t.Errorf("encoding the decoded model gives %d bytes that differ from the golden file's %d", b.Len(), len(raw))
				}
			}
			mt := mustMatcher(t, m)
			if len(g.Batches) == 0 {
				t.Fatal("no golden batches")
			}
			known := 0
			for i, want := range g.Batches {
				res, err := mt.Match(goldenFrames(t, want.Frames))
				if err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				d := res.Decision
				if d.Best != want.Best || d.Label != want.Label || d.Known != want.Known || d.RunnerUp != want.RunnerUp || d.RunnerLabel != want.RunnerLabel {
					t.Errorf("batch %d: decision %+v; recorded best %d %q known %v, runner-up %d %q",
						i, d, want.Best, want.Label, want.Known, want.RunnerUp, want.RunnerLabel)
				}
				if !goldenAgree(d.Score, want.Score) || !goldenAgree(d.RunnerScore, float64(want.RunnerScore)) || !goldenAgree(res.Bandwidth, want.Bandwidth) {
					t.Errorf("batch %d: score %.17g, runner-up %.17g, bandwidth %.17g; recorded %.17g, %.17g, %.17g",
						i, d.Score, d.RunnerScore, res.Bandwidth, want.Score, float64(want.RunnerScore), want.Bandwidth)
				}
				if len(res.Divergences) != len(want.Hellinger2) || len(res.Divergences) != len(want.Jeffrey) {
					t.Fatalf("batch %d: %d divergences, recorded %d and %d", i, len(res.Divergences), len(want.Hellinger2), len(want.Jeffrey))
				}
				for k, dv := range res.Divergences {
					if !goldenAgree(dv.Hellinger2, want.Hellinger2[k]) || !goldenAgree(dv.Jeffrey, want.Jeffrey[k]) {
						t.Errorf("batch %d, gallery set %d: H2 %.17g, J %.17g; recorded %.17g, %.17g",
							i, k, dv.Hellinger2, dv.Jeffrey, want.Hellinger2[k], want.Jeffrey[k])
					}
				}
				if len(res.Latent) != len(want.Latent) || len(res.Distances) != len(want.Distances) {
					t.Fatalf("batch %d: latent point of %d and %d distances, recorded %d and %d", i, len(res.Latent), len(res.Distances), len(want.Latent), len(want.Distances))
				}
				for k := range want.Latent {
					if !goldenAgree(res.Latent[k], want.Latent[k]) {
						t.Errorf("batch %d: latent[%d] %.17g, recorded %.17g", i, k, res.Latent[k], want.Latent[k])
					}
				}
				for k := range want.Distances {
					if !goldenAgree(res.Distances[k], want.Distances[k]) {
						t.Errorf("batch %d: latent distance to set %d %.17g, recorded %.17g", i, k, res.Distances[k], want.Distances[k])
					}
				}
				if len(res.KernelDistances) != len(want.KernelDistances) {
					t.Fatalf("batch %d: %d kernel distances, recorded %d", i, len(res.KernelDistances), len(want.KernelDistances))
				}
				for k := range want.KernelDistances {
					if !goldenAgree(res.KernelDistances[k], want.KernelDistances[k]) {
						t.Errorf("batch %d: kernel distance to set %d %.17g, recorded %.17g", i, k, res.KernelDistances[k], want.KernelDistances[k])
					}
				}
				if fmt.Sprint(res.Votes) != fmt.Sprint(want.Votes) || res.Member != want.Member {
					t.Errorf("batch %d: votes %q decided by member %d, recorded %q by %d", i, res.Votes, res.Member, want.Votes, want.Member)
				}
				wantFactor := want.Factor
				if wantFactor == 0 {
					wantFactor = 1
				}
				if res.Factor != wantFactor {
					t.Errorf("batch %d: threshold factor %v, recorded %v", i, res.Factor, wantFactor)
				}
				if d.Known {
					known++
				}
			}
			if known == 0 || known == len(g.Batches) {
				t.Errorf("%d of %d golden batches are known: the batches should test both sides of the threshold", known, len(g.Batches))
			}
		})
	}
}
