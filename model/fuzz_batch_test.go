package model

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/match"
	"setmatch/method"
	"setmatch/setfile"
)

// fuzzBatchModels are the models a fuzzed batch is matched against, one
// of each way of deciding: nearest neighbour under the Hellinger distance
// after a 6×3 W (with an open-set threshold and one class's factor), and
// under Jeffrey's with a fixed bandwidth; kFDA on a kernel of divergences
// (hg); a vote of kFDA on a mix of kernels, nearest neighbour and kFDA-hl
// (goldenModel); kFDA on each set kernel (gda, cdl).
func fuzzBatchModels(tb testing.TB) []*Model {
	nn := mfModel(51, 6, 3, []int{5, 4, 6, 5})
	nn.Threshold = 0.5
	nn.Spread = &Spread{Exponent: 1, Factors: map[string]float64{"b": 2}}
	jf := mfModel(52, 6, 3, []int{4, 6, 5})
	jf.Divergence = match.Jeffrey
	jf.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: 0.75}
	jf.Threshold = 3
	return []*Model{nn, jf, hgModel(tb), goldenModel(tb),
		setKernelModel(tb, string(method.KernelGDA)), setKernelModel(tb, string(method.KernelCDL))}
}

// FuzzMatchBatch: any bytes handed in as a batch, read as setmatchd reads
// one (setfile.Read by the name's extension, at the model's width), are
// decided by the matcher of each kind of model, or refused with an error
// that says something: never a panic. A decision is of the batch's
// frames; it names a gallery set of the deciding member, and the label
// of that set where it is known; its score is no NaN and, where the
// batch is known, within the threshold; and the bandwidth the journal
// records is a finite number (the journal's JSON has no NaN or Inf).
func FuzzMatchBatch(f *testing.F) {
	models := fuzzBatchModels(f)
	matchers := make([]*Matcher, len(models))
	for i, m := range models {
		mt, err := m.NewMatcherWorkers(1)
		if err != nil {
			f.Fatalf("model %d: %v", i, err)
		}
		matchers[i] = mt
	}
	rng := rand.New(rand.NewPCG(53, 1))
	for i, m := range models {
		// Frames near the model's first gallery set, in the raw space
		// (the mean plus W times the samples), as a camera sends them;
		// and frames far from every set.
		x := rawBatch(m, m.Sets[0].Samples)
		n, bigD := x.Dims()
		for r := range n {
			for j := range bigD {
				x.Set(r, j, x.At(r, j)+0.01*rng.NormFloat64())
			}
		}
		var csv, npy bytes.Buffer
		if err := setfile.WriteCSV(&csv, x); err != nil {
			f.Fatal(err)
		}
		if err := setfile.WriteNPY(&npy, x); err != nil {
			f.Fatal(err)
		}
		f.Add(csv.Bytes(), true, uint8(i))
		f.Add(npy.Bytes(), false, uint8(i))
		var farCSV bytes.Buffer
		if err := setfile.WriteCSV(&farCSV, testutil.RandSet(rng, 5, m.InputDim(), 40, 3)); err != nil {
			f.Fatal(err)
		}
		f.Add(farCSV.Bytes(), true, uint8(i))
	}
	row := strings.TrimSuffix(strings.Repeat("1,", 6), ",") + "\n"
	f.Add([]byte(strings.Repeat(row, 4)), true, uint8(0))                    // every frame the same
	f.Add([]byte(row+strings.Replace(row, "1", "1e150", 1)), true, uint8(1)) // a value of 1e150
	f.Add([]byte("1,2,3,4,5\n5,4,3,2,1\n0,0,0,0,1e-300\n"), true, uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, csv bool, which uint8) {
		i := int(which) % len(models)
		m, mt := models[i], matchers[i]
		name := "batch.npy"
		if csv {
			name = "batch.csv"
		}
		lim := setfile.Limits{MaxBytes: 1 << 16, MaxRows: 64, MaxCols: 64, Cols: m.InputDim()}
		x, err := setfile.Read(bytes.NewReader(data), name, lim)
		if err != nil {
			return
		}
		res, err := mt.Match(x)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error")
			}
			return
		}
		checkBatchResult(t, m, x, res)
	})
}

// checkBatchResult checks the Result of matching x with m's matcher.
func checkBatchResult(t *testing.T, m *Model, x *mat.Dense, res Result) {
	t.Helper()
	n, _ := x.Dims()
	g := m // the member whose decision it is
	if len(m.Voters) > 0 {
		if res.Member < 0 || res.Member > len(m.Voters) || len(res.Votes) != len(m.Voters)+1 {
			t.Fatalf("vote of %d members: member %d, votes %q", len(m.Voters)+1, res.Member, res.Votes)
		}
		if res.Member > 0 {
			g = m.Voters[res.Member-1]
		}
	}
	d := res.Decision
	what := fmt.Sprintf("a batch of %d frames (%s): decision %+v, threshold %v", n, g.MethodName(), d, res.Threshold)
	switch {
	case res.Frames != n:
		t.Fatalf("%s: %d frames in the result", what, res.Frames)
	case d.Best < 0 || d.Best >= len(g.Sets):
		t.Fatalf("%s: no gallery set of %d", what, len(g.Sets))
	case math.IsNaN(d.Score) || math.IsNaN(res.Threshold):
		t.Fatalf("%s: not a number", what)
	case d.Known && (d.Label != g.Sets[d.Best].Label || !(d.Score <= res.Threshold)):
		t.Fatalf("%s: known, but not as its nearest set %q within the threshold", what, g.Sets[d.Best].Label)
	case !d.Known && d.Label != "":
		t.Fatalf("%s: unknown, with a label", what)
	case d.RunnerUp >= 0 && (d.RunnerUp >= len(g.Sets) || g.Sets[d.RunnerUp].Label == g.Sets[d.Best].Label):
		t.Fatalf("%s: runner-up of the same label, or of no set", what)
	case math.IsNaN(res.Bandwidth) || math.IsInf(res.Bandwidth, 0) || res.Bandwidth < 0:
		t.Fatalf("%s: bandwidth %v", what, res.Bandwidth)
	}
}
