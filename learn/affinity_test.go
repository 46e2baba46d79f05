package learn

import (
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestAffinity(t *testing.T) {
	// Sets 0,1,2 in class 0 and 3,4 in class 1. Divergences chosen so that
	// the nearest neighbours are known by hand.
	d := mat.NewSymDense(5, []float64{
		0, 1, 5, 2, 9,
		1, 0, 3, 8, 7,
		5, 3, 0, 6, 4,
		2, 8, 6, 0, 1,
		9, 7, 4, 1, 0,
	})
	labels := []int{0, 0, 0, 1, 1}
	if got := DefaultNuW(labels); got != 1 {
		t.Errorf("DefaultNuW = %d, want 1 (smallest class has 2 sets)", got)
	}
	got, err := Affinity(d, labels, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Within (ν_w = 1): 0→1, 1→0, 2→1, 3→4, 4→3: pairs (0,1), (1,2), (3,4).
	// Between (ν_b = 1): 0→3, 1→4, 2→4, 3→0, 4→2: pairs (0,3), (1,4), (2,4).
	want := []PairWeight{{0, 1, 1}, {0, 3, -1}, {1, 2, 1}, {1, 4, -1}, {2, 4, -1}, {3, 4, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pairs\n got %v\nwant %v", got, want)
	}
	// Symmetric "or" rule and no self pairs for larger ν.
	got, err = Affinity(d, labels, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Errorf("ν = 5: %d pairs, want all 10", len(got))
	}
	for _, p := range got {
		if p.I >= p.J {
			t.Errorf("pair %v not ordered", p)
		}
		if want := float64(1 - 2*affAbs(labels[p.I]-labels[p.J])); p.A != want {
			t.Errorf("pair %v: affinity %v, want %v", p, p.A, want)
		}
	}
	// Ties in divergence go to the lower set index: set 0 is as near to
	// set 1 as to set 2 within its class, and to set 3 as to set 4
	// between. Within, 0→1 (not 2), 1→2, 2→1, 3→4, 4→3; between,
	// 0→3 (not 4), 1→3, 2→4, 3→0, 4→0.
	tie := mat.NewSymDense(5, []float64{
		0, 1, 1, 2, 2,
		1, 0, 0.5, 3, 4,
		1, 0.5, 0, 4, 3,
		2, 3, 4, 0, 6,
		2, 4, 3, 6, 0,
	})
	got, err = Affinity(tie, labels, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	want = []PairWeight{{0, 1, 1}, {0, 3, -1}, {0, 4, -1}, {1, 2, 1}, {1, 3, -1}, {2, 4, -1}, {3, 4, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ties: pairs\n got %v\nwant %v", got, want)
	}
	if _, err := Affinity(d, []int{0, 1, 2, 3, 4}, 1, 1); err == nil {
		t.Error("no class with two sets: no error")
	}
	if _, err := Affinity(d, labels[:3], 1, 1); err == nil {
		t.Error("label count: no error")
	}
}

func affAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
