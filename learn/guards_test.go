package learn

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
)

func TestTrainRefusesOneClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	sets := make([]*mat.Dense, 3)
	for i := range sets {
		sets[i] = randomSets(rng, 1, 10, 10, 5)[0]
	}
	_, err := Train(sets, []int{0, 0, 0}, TrainOptions{Dim: 2, MaxIter: 3})
	if err == nil || !strings.Contains(err.Error(), "two classes") {
		t.Errorf("one class: err = %v, want a between-class error", err)
	}
}

func TestDivergenceMatrixNilSet(t *testing.T) {
	if _, err := DivergenceMatrix([]*mat.Dense{nil, mat.NewDense(2, 2, nil)}, []float64{1, 1}, match.Hellinger, 1); err == nil {
		t.Error("a nil set was accepted")
	}
}
