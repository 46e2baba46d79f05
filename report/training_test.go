package report

import (
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

func TestTrainingWrite(t *testing.T) {
	labels := []string{"a", "a", "b"}
	div := mat.NewSymDense(3, []float64{0, 1, 2, 1, 0, 3, 2, 3, 0})
	dir := filepath.Join(t.TempDir(), "nn")
	if err := (Training{Labels: labels, Gallery: div, GalleryTitle: "g"}).Write(dir); err != nil {
		t.Fatal(err)
	}
	if got := testutil.Names(t, dir); !slices.Equal(got, []string{"divergence-after.png"}) {
		t.Errorf("without a learned W: %v", got)
	}
	dir = filepath.Join(t.TempDir(), "learned")
	tr := Training{Labels: labels, Gallery: div, GalleryTitle: "g", Cost: []float64{3, 2, 1}, CostTitle: "c", Before: div, BeforeTitle: "b"}
	if err := tr.Write(dir); err != nil {
		t.Fatal(err)
	}
	if got := testutil.Names(t, dir); !slices.Equal(got, []string{"cost.png", "divergence-after.png", "divergence-before.png"}) {
		t.Errorf("with a learned W: %v", got)
	}
}
