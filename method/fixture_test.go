package method

import (
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testData is labelled sets: Sets[i] is of class Labels[i], named
// Classes[Labels[i]].
type testData struct {
	Classes []string
	Sets    []*mat.Dense
	Labels  []int
}

// testSplit is one gallery/probe partition of a testData's sets (indices
// into Sets).
type testSplit struct {
	Sets           []*mat.Dense
	Labels         []int
	Gallery, Probe []int
}

// randomSplit draws gallery then probe sets of every class from the
// stream (seed, 1), as the harness's first random split of the protocol
// gallery=G,probe=P does.
func randomSplit(t *testing.T, d *testData, gallery, probe int, seed uint64) testSplit {
	t.Helper()
	byClass := make([][]int, len(d.Classes))
	for i, l := range d.Labels {
		byClass[l] = append(byClass[l], i)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	sp := testSplit{Sets: d.Sets, Labels: d.Labels}
	for c, idx := range byClass {
		if len(idx) < gallery+probe {
			t.Fatalf("class %d has %d sets, want %d", c, len(idx), gallery+probe)
		}
		for k, pi := range rng.Perm(len(idx)) {
			switch {
			case k < gallery:
				sp.Gallery = append(sp.Gallery, idx[pi])
			case k < gallery+probe:
				sp.Probe = append(sp.Probe, idx[pi])
			}
		}
	}
	sort.Ints(sp.Gallery)
	sort.Ints(sp.Probe)
	return sp
}

// smallGrid is the default grid with four bandwidths, two regularisers
// and two widths.
func smallGrid() Grid {
	g := DefaultGrid()
	g.Bandwidths = []Bandwidth{{Mode: Global, Scale: 0.5}, {Mode: Global, Scale: 1}, {Mode: Global, Scale: 2}, {Mode: PerSet, Scale: 1}}
	g.Regs = []float64{1e-2, 1}
	g.Widths = []float64{0.1, 1}
	return g
}

// mustPool returns the pool of sets with one worker.
func mustPool(t *testing.T, sets []*mat.Dense) *Pool {
	t.Helper()
	p, err := NewPool(sets, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// classSets draws per sets of each of classes classes, class by class
// (the per sets of class 0 first), set k of class c as draw(c, k), and
// returns them with their classes.
func classSets(classes, per int, draw func(c, k int) *mat.Dense) (sets []*mat.Dense, labels []int) {
	for c := range classes {
		for k := range per {
			sets, labels = append(sets, draw(c, k)), append(labels, c)
		}
	}
	return sets, labels
}
