package setkernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// BenchmarkGalleryMatrix times the kernel matrix between the gallery sets
// (Gallery.Matrix, what a kFDA model on a set kernel is fitted on) of 40
// and of 200 random sets of 41 frames in 400 dimensions, GDA's with p = 5
// and CDL's, the bases and spectra computed before.
func BenchmarkGalleryMatrix(b *testing.B) {
	for _, m := range []int{40, 200} {
		rng := rand.New(rand.NewPCG(1, 1))
		sets := make([]*mat.Dense, m)
		for i := range sets {
			sets[i] = testutil.RandSet(rng, 41, 400, 0, 1)
		}
		gd, err := NewGDAGallery(5, sets, 0)
		if err != nil {
			b.Fatal(err)
		}
		cd, err := NewCDLGallery(0.01, sets, 0)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			g    *Gallery
		}{{"gda", gd}, {"cdl", cd}} {
			b.Run(fmt.Sprintf("%s-%d", c.name, m), func(b *testing.B) {
				for b.Loop() {
					c.g.Matrix(0)
				}
			})
		}
	}
}
