package deploy

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/method"
	"setmatch/model"
)

// TestFarSetCostsOthersNoDigits: a gallery holding one set far from the
// others (a copy of a set with 1e12 added to one feature, as a camera's
// faulty burst) decides the other sets as the gallery without it does,
// with the same divergences to the sets both hold, in the model that
// training writes and after forget removes another set (which moves the
// model's centre onto the sets kept). The model subtracts one centre
// from every frame before the divergences, which do not depend on it; a
// centre the far set moves (the mean frame of every training frame)
// leaves the other sets' frames 1e12/m from 0 on that feature, and the
// divergences keep none of their digits.
func TestFarSetCostsOthersNoDigits(t *testing.T) {
	all, labels, names := separated(5, 4, 1)
	train, lab, nam, held, _ := splitTrainProbe(all, labels, names, 3, 1)
	far := mat.DenseCopyOf(train[0])
	r, _ := far.Dims()
	for i := range r {
		far.Set(i, 1, far.At(i, 1)+1e12)
	}
	withFar := append(append([]*mat.Dense(nil), train...), far)
	farLab, farNam := append(append([]string(nil), lab...), "far"), append(append([]string(nil), nam...), "far-0")
	for _, m := range []method.Name{method.NNH, method.NNJ} {
		build := func(sets []*mat.Dense, labels, names []string) *model.Model {
			g := grid()
			g.Bandwidths = []method.Bandwidth{{Mode: method.PerSet, Scale: 1}}
			opt := Options{Method: m, Grid: g, Seed: 3, Workers: 1}
			return buildRule(t, &opt, "none", sets, labels, names).Model
		}
		base, big := build(train, lab, nam), build(withFar, farLab, farNam)
		compare := func(when string, base, big *model.Model) {
			t.Helper()
			bm, gm := matchers(t, base, big)
			for i, x := range held {
				want, err := bm.Match(x)
				if err != nil {
					t.Fatal(err)
				}
				got, err := gm.Match(x)
				if err != nil {
					t.Fatalf("%s %s: held-out set %d: %v", m, when, i, err)
				}
				if wl, gl := bm.Labels()[want.Decision.Best], gm.Labels()[got.Decision.Best]; wl != gl {
					t.Errorf("%s %s: held-out set %d decided %s with the far set in the gallery, %s without it", m, when, i, gl, wl)
				}
				for j, w := range want.Divergences {
					if base.Sets[j].Name != big.Sets[j].Name {
						t.Fatalf("%s %s: gallery set %d is %s with the far set, %s without it", m, when, j, big.Sets[j].Name, base.Sets[j].Name)
					}
					g := got.Divergences[j]
					if !(math.Abs(g.Hellinger2-w.Hellinger2) <= 1e-9) || !(math.Abs(g.Jeffrey-w.Jeffrey) <= 1e-9*max(1, w.Jeffrey)) {
						t.Errorf("%s %s: held-out set %d against %s: H² %v J %v with the far set in the gallery, H² %v J %v without it", m, when, i, base.Sets[j].Name, g.Hellinger2, g.Jeffrey, w.Hellinger2, w.Jeffrey)
						break
					}
				}
			}
		}
		compare("as trained", base, big)
		for _, mm := range []*model.Model{base, big} {
			if _, err := Forget(mm, "c4", "4-0", nil, 1, time.Unix(0, 0)); err != nil {
				t.Fatalf("%s: forget c4/4-0: %v", m, err)
			}
		}
		compare("after forget", base, big)
	}
}
