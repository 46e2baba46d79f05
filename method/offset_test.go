package method

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestOffsetChangesOnlyRounding: a large constant added to one feature of
// every frame (1e8, a sensor's offset or a feature left uncentred) moves
// no frame nearer another, so the pool's squared distances, its nn
// bandwidth, its divergences and nn-h's decisions are those of the frames
// without it, but for rounding. Computed as |x|² + |y|² − 2x·y on the
// frames as given, the distances of frames of unit spread lose their
// digits beside a norm of 1e16.
func TestOffsetChangesOnlyRounding(t *testing.T) {
	data := sixSetData(1.5)
	shifted := make([]*mat.Dense, len(data.Sets))
	for i, x := range data.Sets {
		y := mat.DenseCopyOf(x)
		n, _ := y.Dims()
		for r := range n {
			y.Set(r, 1, y.At(r, 1)+1e8)
		}
		shifted[i] = y
	}
	p, q := mustPool(t, data.Sets), mustPool(t, shifted)
	const tol = 1e-6 // relative: rounding of 1e8 is 1.5e-8 a value

	a, b := p.SqDist(), q.SqDist()
	n := p.Frames()
	bad := 0
	for i := range n {
		for j := range n {
			if u, v := a.At(i, j), b.At(i, j); math.Abs(u-v) > tol*(1+u) {
				if bad++; bad <= 3 {
					t.Errorf("squared distance (%d, %d): %v with the offset, %v without", i, j, v, u)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d squared distances moved with the offset", bad, n*n)
	}

	train := make([]int, len(data.Sets))
	for i := range train {
		train[i] = i
	}
	bw := Bandwidth{Mode: Global, Scale: 1}
	ha, err := p.FrameBandwidths(bw, train)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := q.FrameBandwidths(bw, train)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ha[0]-hb[0]) > tol*ha[0] {
		t.Errorf("nn bandwidth %v with the offset, %v without", hb[0], ha[0])
	}
	da, err := p.Divergences(ha)
	if err != nil {
		t.Fatal(err)
	}
	db, err := q.Divergences(ha) // the same bandwidths: the divergences alone
	if err != nil {
		t.Fatal(err)
	}
	bad = 0
	for i := range data.Sets {
		for j := range data.Sets {
			if u, v := da.H2.At(i, j), db.H2.At(i, j); math.Abs(u-v) > tol {
				if bad++; bad <= 3 {
					t.Errorf("H²(%d, %d) = %v with the offset, %v without", i, j, v, u)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d divergences moved with the offset", bad, len(data.Sets)*len(data.Sets))
	}

	sp := randomSplit(t, data, 3, 3, 5)
	labels := make([]int, len(sp.Gallery))
	for k, j := range sp.Gallery {
		labels[k] = data.Labels[j]
	}
	decide := func(pool *Pool) []int {
		t.Helper()
		task := &Task{Pool: pool, Train: sp.Gallery, Labels: labels, Test: sp.Probe, Classes: 3, Seed: 7}
		pred, err := Run(NNH, task, smallGrid())
		if err != nil {
			t.Fatal(err)
		}
		return pred.Labels
	}
	right := func(pred []int) int {
		k := 0
		for i, j := range sp.Probe {
			if pred[i] == data.Labels[j] {
				k++
			}
		}
		return k
	}
	if la, lb := decide(p), decide(q); !slices.Equal(la, lb) {
		t.Errorf("nn-h decides the probes %v (%d of %d right) with the offset, %v (%d right) without",
			lb, right(lb), len(sp.Probe), la, right(la))
	}
}

// TestFarSetCostsOnlyItsOwnDigits: one set far from the others (1e8 added
// to one feature of its frames alone, a camera's faulty burst) takes the
// digits of its own distances, but the squared distances between the
// frames of the other sets are those of a pool without it, but for
// rounding: the pool's centre is a median of the sets' means, which one
// set does not move, where the mean of all frames moved by 1e8/m and
// took every distance's digits.
func TestFarSetCostsOnlyItsOwnDigits(t *testing.T) {
	data := sixSetData(1.5)
	far := mat.DenseCopyOf(data.Sets[0])
	n, _ := far.Dims()
	for r := range n {
		far.Set(r, 1, far.At(r, 1)+1e8)
	}
	p := mustPool(t, data.Sets)
	q := mustPool(t, append([]*mat.Dense{far}, data.Sets[1:]...))
	const tol = 1e-6
	a, b := p.SqDist(), q.SqDist()
	skip := n // the frames of set 0 come first
	bad, all := 0, 0
	for i := skip; i < p.Frames(); i++ {
		for j := skip; j < p.Frames(); j++ {
			all++
			if u, v := a.At(i, j), b.At(i, j); math.Abs(u-v) > tol*(1+u) {
				if bad++; bad <= 3 {
					t.Errorf("squared distance (%d, %d): %v beside the far set, %v without it", i, j, v, u)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d squared distances between the other sets moved beside the far set", bad, all)
	}
}
