package deploy

import (
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
	"setmatch/method"
	"setmatch/model"
	"setmatch/synth"
)

// benchClasses is the size of the benchmarks' model: 100 classes of
// three 16-frame sets, plus the person to enrol (two 16-frame sets).
const benchClasses = 100

var benchModels sync.Map // method → *benchModel

type benchModel struct {
	m       *model.Model
	newSets []model.NewSet
	err     error
}

// benchModelFor builds (once per method, for every benchmark of this
// file) a 100-class model of synthetic sets (synth, subspace: D = 20, 16
// frames a set, 3 sets a class) with Build and the default threshold
// (auto:balanced, on stand-in strangers), and the two 16-frame sets of a
// 101st class to enrol. The build is not timed.
func benchModelFor(b *testing.B, name method.Name) *benchModel {
	b.Helper()
	v, _ := benchModels.LoadOrStore(name, &sync.Once{})
	if bm, ok := v.(*benchModel); ok {
		return bm
	}
	once := v.(*sync.Once)
	once.Do(func() {
		bm := &benchModel{}
		defer func() { benchModels.Store(name, bm) }()
		ds, err := synth.Generate(synth.Options{Kind: synth.Subspace, Classes: benchClasses + 1, Sets: 3, Frames: 16, Dim: 20, Seed: 7})
		if err != nil {
			bm.err = err
			return
		}
		var sets []*mat.Dense
		var labels, names []string
		for _, s := range ds.Sets {
			if s.Class == ds.Classes[benchClasses] {
				if len(bm.newSets) < 2 {
					bm.newSets = append(bm.newSets, model.NewSet{Label: "newcomer", Name: "burst-" + s.Name, Frames: s.Frames})
				}
				continue
			}
			sets, labels, names = append(sets, s.Frames), append(labels, s.Class), append(names, s.Name)
		}
		methods := []method.Name{name}
		if name == voteMethod {
			methods = []method.Name{method.KFDAMix, method.NNHDR, method.KFDAHL} // as auto deployed it before
		}
		t0 := time.Now()
		for _, meth := range methods {
			g := grid()
			g.Widths, g.Regs = []float64{1}, []float64{1}
			opt := Options{Method: meth, Grid: g, Seed: 1}
			if meth == method.NNHDR {
				opt.Dim = 5
			}
			if err := ParseThreshold("", &opt); err != nil {
				bm.err = err
				return
			}
			res, err := Build(sets, labels, names, opt)
			if err != nil {
				bm.err = err
				return
			}
			if bm.m == nil {
				bm.m = res.Model
			} else {
				bm.m.Voters = append(bm.m.Voters, res.Model)
			}
		}
		b.Logf("built %s on %d sets in %.1fs", name, len(sets), time.Since(t0).Seconds())
	})
	v, _ = benchModels.Load(name)
	bm, _ := v.(*benchModel)
	if bm == nil || bm.err != nil {
		b.Fatalf("building the %s model: %v", name, bm.err)
	}
	return bm
}

// BenchmarkEnroll: one person, two 16-frame sets, enrolled into a
// 100-class model (the gallery changed, kFDA fitted again, the threshold
// recalibrated on stand-in strangers), as setmatch enroll does it: nn-h,
// kfda-mix, and a vote as auto deployed it before (kfda-mix, nn-h-dr
// with d = 5, kfda-hl).
func BenchmarkEnroll(b *testing.B) {
	for _, name := range []method.Name{method.NNH, method.KFDAMix, voteMethod} {
		b.Run(string(name), func(b *testing.B) {
			bm := benchModelFor(b, name)
			cpu := testutil.CPUTime()
			for b.Loop() {
				m := *bm.m
				if _, err := Enroll(&m, bm.newSets, nil, 0, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkForget: one class (three sets) forgotten from a 100-class
// model, as setmatch forget does it.
func BenchmarkForget(b *testing.B) {
	for _, name := range []method.Name{method.NNH, method.KFDAMix, voteMethod} {
		b.Run(string(name), func(b *testing.B) {
			bm := benchModelFor(b, name)
			label := bm.m.Sets[0].Label
			cpu := testutil.CPUTime()
			for b.Loop() {
				m := *bm.m
				if _, err := Forget(&m, label, "", nil, 0, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// reportCPU reports the CPU seconds per operation since start: on a
// shared machine, where the wall time depends on the other processes,
// the work itself (on an idle 2-core machine the wall time is about half
// of it where both cores are busy, as in the divergence matrices).
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((testutil.CPUTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}
