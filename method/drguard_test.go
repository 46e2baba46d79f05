package method

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

// guardLearner is a stand-in for learn.Train whose learning goes wrong:
// a learned W picks the noise features 1..d, the start (p.Start) picks the
// informative feature 0. It records the sizes of the sets it was given.
type guardLearner struct{ frames []int }

func (l *guardLearner) learn(sets []*mat.Dense, _ []int, _ match.Measure, p LearnParams, _ int64) (*mat.Dense, []float64, error) {
	n, dim := sets[0].Dims()
	l.frames = append(l.frames, n)
	w := mat.NewDense(dim, p.Dim, nil)
	for j := range p.Dim {
		if p.Start {
			w.Set(j, j, 1)
		} else {
			w.Set(1+j, j, 1)
		}
	}
	return w, nil, nil
}

// TestDRGuard checks that with DRGuard the start of training is a
// candidate of the cross-validation and wins when learning makes held-out
// sets worse, also with two gallery sets per class (where W is learned on
// the halves of each fold's sets), and that without the guard the learned
// W is deployed.
func TestDRGuard(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	data := drData(rng)
	for _, gallery := range []int{3, 2} {
		sp, labels := drSplit(t, data, gallery)
		for _, guard := range []bool{true, false} {
			l := &guardLearner{}
			g := smallGrid()
			g.Learn = l.learn
			g.DRDims = []int{1}
			g.DRScales = []float64{1, 2}
			g.DRGuard = guard
			task := &Task{Pool: mustPool(t, sp.Sets), Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: 3, Seed: 7}
			pred, err := Run(NNHDR, task, g)
			if err != nil {
				t.Fatal(err)
			}
			right := 0
			for k, j := range sp.Probe {
				if pred.Labels[k] == sp.Labels[j] {
					right++
				}
			}
			acc := float64(right) / float64(len(sp.Probe))
			t.Logf("gallery %d, guard %v: %s, %.0f%%", gallery, guard, pred.Params, 100*acc)
			if !strings.Contains(pred.Params, "drcv=") {
				t.Errorf("gallery %d: params %q, want a cross-validated choice", gallery, pred.Params)
			}
			if guard && (!strings.Contains(pred.Params, " start") || acc < 0.99) {
				t.Errorf("gallery %d with guard: %q at %.0f%%, want the start at 100%%", gallery, pred.Params, 100*acc)
			}
			if !guard && strings.Contains(pred.Params, " start") {
				t.Errorf("gallery %d without guard: %q chose the start", gallery, pred.Params)
			}
			if gallery == 2 && l.frames[0] != 6 {
				t.Errorf("two gallery sets per class: fold W learned on sets of %d frames, want the halves (6)", l.frames[0])
			}
		}
	}
}
