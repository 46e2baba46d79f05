package devicetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/model"
)

// The benchmark gallery: 1000 sets of 100 frames in d = 20 (100 labels of 10
// sets), raw features D = 100; batches of 100 frames.
const (
	benchSets   = 1000
	benchLabels = 100
	benchFrames = 100
	benchd      = 20
	benchD      = 100
)

var benchModelOnce struct {
	sync.Once
	dir     string
	centers [][]float64
	err     error
}

// BenchModelFile writes the benchmark model once per test binary, into a
// directory that RemoveBenchModel removes, and returns its path and the
// centre of each label's sets (in the D raw features).
func BenchModelFile(b testing.TB) (string, [][]float64) {
	o := &benchModelOnce
	o.Do(func() {
		o.dir, o.err = os.MkdirTemp("", "setmatch-bench-")
		if o.err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(21, 22))
		w := mat.NewDense(benchD, benchd, nil)
		for j := range benchd {
			w.Set(j, j, 1)
		}
		m := &model.Model{Divergence: match.Hellinger, QueryBandwidth: match.BandwidthRule{Kind: match.Fixed, Fixed: 1},
			W: w, Mean: make([]float64, benchD), Threshold: 0.9, Meta: model.Meta{Tool: "device bench"}}
		for l := range benchLabels {
			c := make([]float64, benchD)
			for j := range benchd {
				c[j] = 4 * rng.NormFloat64()
			}
			o.centers = append(o.centers, c)
			for k := range benchSets / benchLabels {
				x := mat.NewDense(benchFrames, benchd, nil)
				for i := range benchFrames {
					for j := range benchd {
						x.Set(i, j, c[j]+rng.NormFloat64())
					}
				}
				m.Sets = append(m.Sets, model.Set{Label: fmt.Sprintf("L%03d", l), Name: fmt.Sprint(k), Samples: x, Bandwidth: 1})
			}
		}
		o.err = model.WriteFile(filepath.Join(o.dir, "model.smm"), m)
	})
	if o.err != nil {
		b.Fatal(o.err)
	}
	return filepath.Join(o.dir, "model.smm"), o.centers
}

// BenchFixture returns a fixture on the benchmark model (BenchModelFile),
// and the model's centres. Its configuration is NewFixture's with extra
// appended, the log at level and no label pin (the benchmark model has no
// label alice).
func BenchFixture(t testing.TB, level, extra string) (*Fixture, [][]float64) {
	t.Helper()
	path, centers := BenchModelFile(t)
	f := NewFixture(t, "")
	f.Model = path
	text := strings.Replace(f.ConfigText(extra), "alice = \"GPIO22\"\n", "", 1)
	text = strings.Replace(text, "level = \"debug\"\n", fmt.Sprintf("level = %q\n", level), 1)
	if err := os.WriteFile(f.Config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f, centers
}

// BenchBatch returns a batch of 100 frames around centre c.
func BenchBatch(rng *rand.Rand, c []float64) *mat.Dense {
	x := mat.NewDense(benchFrames, benchD, nil)
	for i := range benchFrames {
		for j := range benchD {
			x.Set(i, j, c[j]+rng.NormFloat64())
		}
	}
	return x
}

// RemoveBenchModel removes what BenchModelFile wrote (call it from
// TestMain after m.Run).
func RemoveBenchModel() {
	if benchModelOnce.dir != "" {
		os.RemoveAll(benchModelOnce.dir)
	}
}
