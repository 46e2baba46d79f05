package method

import (
	"fmt"

	"setmatch/match"
)

// runNN runs nearest neighbour (nn-h, nn-j) on t under measure m, with
// the KDE bandwidth chosen by cross-validation over g.Bandwidths.
func runNN(t *Task, g Grid, m match.Measure) (Prediction, error) {
	bws := g.Bandwidths
	if len(bws) == 0 {
		bws = []Bandwidth{{Mode: Global, Scale: 1}}
	}
	cvTrain, cvLabels, fold := t.cv(max(g.Folds, 2))
	bestI, best := 0, score{acc: -1}
	mats := make([]Divs, len(bws))
	if fold == nil {
		t.progress().count("bandwidths", 1)
	} else {
		t.progress().count("bandwidths", len(bws))
	}
	sets := t.divSets()
	if fold != nil {
		t.Pool.prefetch(bws, []divRequest{{t.Train, sets}})
	}
	for i, b := range bws {
		dm, err := t.Pool.divMatrix(b, t.Train, sets)
		if err != nil {
			return Prediction{}, fmt.Errorf("bandwidth %v: %w", b, err)
		}
		mats[i] = dm.Of(m)
		if fold == nil {
			t.progress().inc()
			break
		}
		s := cvNN(mats[i], cvTrain, cvLabels, fold)
		if s.better(best) {
			bestI, best = i, s
		}
		t.progress().inc()
	}
	d := mats[bestI]
	pred := make([]int, len(t.Test))
	for k, q := range t.Test {
		pred[k], _ = nnOutcome(func(j int) float64 { return d.At(q, j) }, t.Train, t.Labels, -1)
	}
	params := fmt.Sprintf("bw=%v", bws[bestI])
	if best.acc >= 0 {
		params += fmt.Sprintf(" cv=%.1f%%", 100*best.acc)
	}
	fit := &Fitted{Method: NNH, Divergence: m, Bandwidth: bws[bestI], CV: best.acc}
	if m == match.Jeffrey {
		fit.Method = NNJ
	}
	if err := fit.setBandwidths(t); err != nil {
		return Prediction{}, err
	}
	return Prediction{Labels: pred, Params: params, Fit: fit}, nil
}

// cvNN scores 1-NN on the divergence matrix d by the folds of the sets
// train (pool indices) with their labels.
func cvNN(d Divs, train, labels, fold []int) score {
	var s score
	var n int
	nf := 0
	for _, f := range fold {
		nf = max(nf, f+1)
	}
	for f := range nf {
		var tr, lab []int
		for k, j := range train {
			if fold[k] != f {
				tr = append(tr, j)
				lab = append(lab, labels[k])
			}
		}
		for k, q := range train {
			if fold[k] != f {
				continue
			}
			p, mg := nnOutcome(func(j int) float64 { return d.At(q, j) }, tr, lab, labels[k])
			s.add(p == labels[k], mg)
			n++
		}
	}
	if n > 0 {
		s = s.mean(n)
	}
	return s
}
