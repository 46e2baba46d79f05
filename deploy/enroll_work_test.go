package deploy

import (
	"math"
	"strings"
	"testing"
	"time"

	"setmatch/match"
	"setmatch/method"
	"setmatch/model"
)

// TestEnrollComparesEachPairOnce: enrolling computes the divergences of
// a pair of the new gallery's sets at most once, and never those of a
// set with itself. A model whose threshold rule reads the gallery's
// scores (auto:balanced) computes them once, its kFDA kernel by the fit
// and the nearest-neighbour margins of the new sets read from its
// divergence matrix; with a fixed threshold each new set is compared
// with every other gallery set once. The margins are those of the
// divergences computed pair by pair.
func TestEnrollComparesEachPairOnce(t *testing.T) {
	all, labels, names := ringSets(5, 3, 2, 0.6, 9)
	n := len(all) - 2 // the last class's first set in the model, two enrolled
	sets := len(all)
	for _, c := range []struct {
		method method.Name
		rule   string
		pairs  int // of the new gallery's sets
	}{
		{method.NNH, "", sets * (sets - 1) / 2},
		{method.NNH, "0.05", 2 * (sets - 1)},
		{method.KFDAHL, "", sets * (sets - 1) / 2},
	} {
		m := buildFor(t, c.method, all[:n], labels[:n], names[:n], c.rule)
		var add []model.NewSet
		for i := n; i < len(all); i++ {
			add = append(add, model.NewSet{Label: labels[i], Name: names[i], Frames: all[i]})
		}
		pairs := 0
		pairsHook = func(s, p int) {
			if s == sets {
				pairs += p
			}
		}
		ch, err := Enroll(m, add, nil, 2, time.Unix(0, 0))
		pairsHook = nil
		if err != nil {
			t.Fatal(err)
		}
		if pairs != c.pairs {
			t.Errorf("%s, threshold %q: %d pairs of the %d gallery sets compared, want %d", c.method, c.rule, pairs, sets, c.pairs)
		}
		if c.method != method.NNH {
			continue
		}
		kdes := make([]*match.KDE, sets)
		for i, s := range m.Sets {
			if kdes[i], err = match.NewKDE(s.Samples, s.Bandwidth); err != nil {
				t.Fatal(err)
			}
		}
		for a, mg := range ch.Members[0].Margins {
			i := n + a
			own, other := math.Inf(1), math.Inf(1)
			for j, s := range m.Sets {
				if j == i {
					continue
				}
				d, err := match.Compare(kdes[j], kdes[i])
				if err != nil {
					t.Fatal(err)
				}
				if s.Label == m.Sets[i].Label {
					own = min(own, d.Of(m.Divergence))
				} else {
					other = min(other, d.Of(m.Divergence))
				}
			}
			if math.Abs(mg.Own-own) > 1e-9*own || math.Abs(mg.Other-other) > 1e-9*other {
				t.Errorf("%s, threshold %q: margin of %s: own %g other %g, pair by pair %g %g", c.method, c.rule, mg.Name, mg.Own, mg.Other, own, other)
			}
		}
	}
}

// TestEnrollKeptCalibrationComparesEachPairOnce: enrolling into a model
// whose W its training classes shaped, under a rule of stand-in
// strangers (keepCalibration), computes the divergences of each pair of
// the new gallery's sets once and no others: the scale of the gallery
// before the enrolment is read from its sets' block of the new gallery's
// divergences, not computed again. Under a second.
func TestEnrollKeptCalibrationComparesEachPairOnce(t *testing.T) {
	all, labels, names := ringSets(5, 3, 2, 0.6, 4)
	n := len(all) - 2
	m := buildFor(t, method.NNHDR, all[:n], labels[:n], names[:n], "auto:balanced")
	var add []model.NewSet
	for i := n; i < len(all); i++ {
		add = append(add, model.NewSet{Label: labels[i], Name: names[i], Frames: all[i]})
	}
	pairs := 0
	pairsHook = func(_, p int) { pairs += p }
	c, err := Enroll(m, add, nil, 1, time.Unix(0, 0))
	pairsHook = nil
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Threshold, "train's calibration kept as") {
		t.Fatalf("the calibration was not kept: %s", c.Threshold)
	}
	if sets := len(all); pairs != sets*(sets-1)/2 {
		t.Errorf("%d pairs of sets compared, want %d, those of the %d sets of the new gallery", pairs, sets*(sets-1)/2, sets)
	}
}
