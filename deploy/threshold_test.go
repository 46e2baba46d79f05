package deploy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/method"
	"setmatch/model"
)

// TestThresholdOneSetPerClass: with one training set per class (the
// pooled layout) --threshold auto is calibrated on the sets' frame
// halves, for nearest neighbour and for kFDA, says so, and accepts most
// sets of the known classes while rejecting a far-away one; a set too
// short to halve gets an error that says what to do.
func TestThresholdOneSetPerClass(t *testing.T) {
	sets, labels := data(5)
	var one []*mat.Dense
	var names, lab []string
	for i, s := range sets {
		if i%6 == 0 { // the first set of each class
			one, lab, names = append(one, s), append(lab, fmt.Sprint("c", labels[i])), append(names, fmt.Sprint(i))
		}
	}
	for _, name := range []method.Name{method.NNH, method.KFDAHG, method.CDL, method.KFDAMix} {
		res, err := Build(one, lab, names, Options{Method: name, Grid: grid(), Seed: 3, Workers: 1, Threshold: math.Inf(1), AutoThreshold: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		thr := res.Model.Threshold
		if !(thr > 0) || math.IsInf(thr, 0) || !strings.Contains(res.ThresholdSource, "frame halves") {
			t.Fatalf("%s: threshold %v (%s)", name, thr, res.ThresholdSource)
		}
		mt, err := res.Model.NewMatcher()
		if err != nil {
			t.Fatal(err)
		}
		accepted := 0
		for i, s := range sets {
			if i%6 == 0 {
				continue
			}
			r, err := mt.Match(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Decision.Known {
				accepted++
			}
		}
		far := farSet()
		r, err := mt.Match(far)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-8s %s; other sets of known classes accepted %d of 15; far set known %v", name, res.ThresholdSource, accepted, r.Decision.Known)
		if accepted < 12 {
			t.Errorf("%s: %d of 15 sets of known classes accepted", name, accepted)
		}
		// Halves of 12 frames are far apart under a kernel as narrow as
		// the one chosen here: the threshold then rejects nothing, and
		// train says so. NN's divergence still rejects the far set.
		if k := res.Model.Discriminant; k != nil {
			nothing := strings.Contains(res.ThresholdSource, "rejects nothing")
			if top, ok := largestDistance(k); ok && nothing != (thr >= top) {
				t.Errorf("%s: threshold %v, largest distance %v, but the source says %q", name, thr, top, res.ThresholdSource)
			}
		}
		if name == method.NNH && r.Decision.Known {
			t.Errorf("%s: a set far from every class accepted (score %v, threshold %v)", name, r.Decision.Score, thr)
		}
	}
	short := []*mat.Dense{one[0], one[1], one[2].Slice(0, 3, 0, 6).(*mat.Dense)}
	_, err := Build(short, lab, names, Options{Method: method.NNH, Grid: grid(), Seed: 3, Workers: 1, Threshold: math.Inf(1), AutoThreshold: true})
	if err == nil || !strings.Contains(err.Error(), "too few to halve") || !strings.Contains(err.Error(), "--threshold X") {
		t.Errorf("a 3-frame set: %v", err)
	} else if set := lab[2] + "/" + names[2]; !strings.Contains(err.Error(), "set "+set+" ") {
		t.Errorf("a 3-frame set: %q does not name set %s", err, set)
	}
}

// TestKFDARejectsFarSet: a kFDA model's open-set test is on the distance
// its kernel induces (model.OpenSetKernel), so a batch unlike every
// gallery set is unknown even where its latent point falls near a class,
// as it does here; batches of the known classes are accepted. (GDA and
// CDL compare how sets spread, not where they lie, which is all these
// classes differ in, and are left out.)
func TestKFDARejectsFarSet(t *testing.T) {
	sets, labels := data(5)
	g, lab, names := firstHalf(sets, labels)
	far := farSet()
	for _, name := range []method.Name{method.KFDAHG, method.KFDAMix} {
		res, err := Build(g, lab, names, Options{Method: name, Grid: grid(), Seed: 3, Workers: 1, Threshold: math.Inf(1), AutoThreshold: true})
		if err != nil {
			t.Fatal(err)
		}
		mt, err := res.Model.NewMatcher()
		if err != nil {
			t.Fatal(err)
		}
		accepted := acceptedRight(t, mt, sets, labels)
		r, err := mt.Match(far)
		if err != nil {
			t.Fatal(err)
		}
		latentNear := r.Distances[r.Decision.Best] <= maxLatentWithin(res)
		t.Logf("%-8s threshold %.4g; far set: kernel distance %.4g, latent distance %.4g (as near as a known set's: %v), known %v; probes of known classes accepted right %d of 9",
			name, res.Model.Threshold, r.Decision.Score, r.Distances[r.Decision.Best], latentNear, r.Decision.Known, accepted)
		if r.Decision.Known || !latentNear || accepted < 8 || len(r.KernelDistances) != len(res.Model.Sets) {
			t.Errorf("%s: far set known %v, %d of 9 known probes accepted right", name, r.Decision.Known, accepted)
		}
	}
}

// TestVoteRejectsFarSet: a vote model (format 6, as auto deployed it
// before: kfda-mix, nn-h-dr, kfda-hl, each built alone) with --threshold
// auto (each member calibrated on its own scores) rejects a set far from
// every class, whichever member decides, and accepts the probes of known
// classes.
func TestVoteRejectsFarSet(t *testing.T) {
	sets, labels := data(5)
	g, lab, names := firstHalf(sets, labels)
	m := buildFor(t, voteMethod, g, lab, names, "auto")
	if len(m.Voters) != 2 {
		t.Fatalf("built %s, want a vote of three", m.MethodName())
	}
	for _, v := range m.Members() {
		if !(v.Threshold > 0) || math.IsInf(v.Threshold, 0) {
			t.Errorf("%s: threshold %v, want a calibrated one", v.MethodName(), v.Threshold)
		}
	}
	mt, err := m.NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	accepted := acceptedRight(t, mt, sets, labels)
	r, err := mt.Match(farSet())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("far set: votes %q, member %d, score %.4g, known %v; probes of known classes accepted right %d of 9", r.Votes, r.Member, r.Decision.Score, r.Decision.Known, accepted)
	if r.Decision.Known || accepted < 8 {
		t.Errorf("far set known %v, %d of 9 known probes accepted right", r.Decision.Known, accepted)
	}
}

// firstHalf returns the gallery of data's sets (the first three of every
// six), with labels "c0", "c1", … and names.
func firstHalf(sets []*mat.Dense, labels []int) (g []*mat.Dense, lab, names []string) {
	for i, s := range sets {
		if i%6 < 3 {
			g, lab, names = append(g, s), append(lab, fmt.Sprint("c", labels[i])), append(names, fmt.Sprint(i))
		}
	}
	return g, lab, names
}

// acceptedRight counts the probes of data (the last three sets of every
// six) that mt accepts with their own label.
func acceptedRight(t *testing.T, mt *model.Matcher, sets []*mat.Dense, labels []int) int {
	t.Helper()
	n := 0
	for i, s := range sets {
		if i%6 < 3 {
			continue
		}
		r, err := mt.Match(s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Decision.Known && r.Decision.Label == fmt.Sprint("c", labels[i]) {
			n++
		}
	}
	return n
}

// maxLatentWithin is the largest latent distance between two gallery
// sets of one class.
func maxLatentWithin(res *Result) float64 {
	k := res.Model.Discriminant
	var top float64
	for i, a := range res.Model.Sets {
		for j, b := range res.Model.Sets {
			if i != j && a.Label == b.Label {
				top = math.Max(top, floats.Distance(k.Solution.Train.RawRowView(i), k.Solution.Train.RawRowView(j), 2))
			}
		}
	}
	return top
}

// farSet returns a 12×6 set far from every class of data (whose frames
// lie within a few units of the origin).
func farSet() *mat.Dense {
	far := mat.NewDense(12, 6, nil)
	for i := range 12 {
		for j := range 6 {
			far.Set(i, j, 40+float64((i*7+j*3)%5))
		}
	}
	return far
}

// TestThresholdBalanced: --threshold auto:balanced, on classes one unit
// apart with a stranger class among them (as a new person is among the
// known), keeps out more of the stranger's sets than --threshold auto,
// at a balanced accuracy at least as high, and says how it was set.
func TestThresholdBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	const stranger = 2
	var train, known, strangers []*mat.Dense
	var lab, names []string
	for c := range 6 {
		for s := range 6 {
			x := mat.NewDense(12, 6, nil)
			for i := range 12 {
				for j := range 6 {
					x.Set(i, j, rng.NormFloat64())
				}
				x.Set(i, 0, float64(c)+0.3*rng.NormFloat64())
			}
			switch {
			case c == stranger:
				strangers = append(strangers, x)
			case s < 4:
				train, lab, names = append(train, x), append(lab, fmt.Sprint("c", c)), append(names, fmt.Sprint(c, s))
			default:
				known = append(known, x)
			}
		}
	}
	for _, name := range []method.Name{method.NNH, method.KFDAHG, method.Auto} {
		var right, out [2]int
		for i, balanced := range []bool{false, true} {
			res, err := Build(train, lab, names, Options{Method: name, Grid: grid(), Seed: 3, Workers: 1, Threshold: math.Inf(1), AutoThreshold: true, AutoBalanced: balanced})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(res.Model.Voters) != 0 {
				t.Errorf("%s deployed %s, a vote", name, res.Model.MethodName())
			}
			if balanced != strings.Contains(res.ThresholdSource, "balanced") {
				t.Errorf("%s, balanced %v: the source says %q", name, balanced, res.ThresholdSource)
			}
			mt, err := res.Model.NewMatcher()
			if err != nil {
				t.Fatal(err)
			}
			in, rejected := 0, 0
			for _, s := range known {
				r, err := mt.Match(s)
				if err != nil {
					t.Fatal(err)
				}
				if r.Decision.Known {
					in++
				}
			}
			for _, s := range strangers {
				r, err := mt.Match(s)
				if err != nil {
					t.Fatal(err)
				}
				if !r.Decision.Known {
					rejected++
				}
			}
			right[i], out[i] = in+rejected, rejected
			t.Logf("%-8s balanced %-5v known accepted %2d of %d, strangers rejected %d of %d; %s", name, balanced, in, len(known), rejected, len(strangers), res.ThresholdSource)
			if balanced && (rejected < len(strangers)/2 || in < len(known)/2) {
				t.Errorf("%s: balanced: %d of %d known accepted, %d of %d strangers rejected", name, in, len(known), rejected, len(strangers))
			}
		}
		if out[1] <= out[0] {
			t.Errorf("%s: balanced rejects %d strangers' sets, auto %d", name, out[1], out[0])
		}
		// The balanced accuracy (known sets let in and strangers kept
		// out, each weighing half) is what auto:balanced aims at.
		bal := func(i int) float64 {
			return float64(right[i]-out[i])/float64(len(known)) + float64(out[i])/float64(len(strangers))
		}
		if bal(1) < bal(0) {
			t.Errorf("%s: balanced accuracy %.3f with auto:balanced, %.3f with auto", name, bal(1)/2, bal(0)/2)
		}
	}
}

// TestCopiesText: copies are the pairs of sets of different classes
// that the model's scores put at 0 (not those of one class); up to three
// are named, then how many more.
func TestCopiesText(t *testing.T) {
	var sets []model.Set
	for i, l := range []string{"a", "a", "b", "b", "c", "c"} {
		sets = append(sets, model.Set{Label: l, Name: fmt.Sprint(l, i)})
	}
	scores := mat.NewSymDense(len(sets), nil)
	for i := range len(sets) {
		for j := i + 1; j < len(sets); j++ {
			scores.SetSym(i, j, 1)
		}
	}
	if c := copiesText(sets, scores); c != "" {
		t.Errorf("no score 0: %q, want none", c)
	}
	scores.SetSym(0, 1, 0) // a/a0 and a/a1: one class
	scores.SetSym(0, 2, 0)
	if c, want := copiesText(sets, scores), "a set of one class is an exact copy of a set of another (a/a0 and b/b2)"; !strings.Contains(c, want) {
		t.Errorf("one pair: %q, want %q", c, want)
	}
	for _, ij := range [][2]int{{0, 4}, {1, 3}, {2, 5}, {3, 4}} {
		scores.SetSym(ij[0], ij[1], 0)
	}
	if c, want := copiesText(sets, scores), "sets of one class are exact copies of sets of another (5 pairs: a/a0 and b/b2, a/a0 and c/c4, a/a1 and b/b3, 2 more pairs)"; !strings.Contains(c, want) {
		t.Errorf("five pairs: %q, want %q", c, want)
	}
}
