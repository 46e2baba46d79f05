package match

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func mustKDE(t testing.TB, x *mat.Dense, h float64) *KDE {
	t.Helper()
	k, err := NewKDE(x, h)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// galleryCompare returns the divergences of q to each of sets, compared
// as a gallery (NewGallery, Compare), failing t on an error.
func galleryCompare(t testing.TB, sets []*KDE, q *KDE) []Divergences {
	t.Helper()
	g, err := NewGallery(sets)
	if err != nil {
		t.Fatal(err)
	}
	div, err := g.Compare(q, nil)
	if err != nil {
		t.Fatal(err)
	}
	return div
}

// naiveLogDensity evaluates log p(y) straight from the definition, one
// squared distance at a time, with its own log-sum-exp.
func naiveLogDensity(x *mat.Dense, h float64, y []float64) float64 {
	n, d := x.Dims()
	e := make([]float64, n)
	for i := range n {
		var s float64
		for j := range d {
			u := y[j] - x.At(i, j)
			s += u * u
		}
		e[i] = -s / (2 * h * h)
	}
	mx := math.Inf(-1)
	for _, v := range e {
		mx = math.Max(mx, v)
	}
	var s float64
	for _, v := range e {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s) - math.Log(float64(n)) - float64(d)/2*math.Log(2*math.Pi*h*h)
}

func close(got, want, rel, abs float64) bool {
	return math.Abs(got-want) <= abs+rel*math.Abs(want)
}
