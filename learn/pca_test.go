package learn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"setmatch/grassmann"
	"setmatch/grassmann/grassmanntest"
	"setmatch/internal/stats"
	"setmatch/pca"
)

// Frames with a large variance in a known 3-dimensional subspace: PCA finds it.
func TestPCABasisFindsDominantSubspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const D, d = 15, 3
	q := grassmanntest.RandomPoint(rng, D, D)
	truth := q.Slice(0, D, 0, d).(*mat.Dense)
	sets := make([]*mat.Dense, 5)
	for s := range sets {
		n := 40
		z := mat.NewDense(n, D, nil)
		for i := range n {
			for j := range D {
				sd := 0.1
				if j < d {
					sd = 5
				}
				z.Set(i, j, 3+sd*rng.NormFloat64()) // offset: the mean must be removed
			}
		}
		sets[s] = new(mat.Dense)
		sets[s].Mul(z, q.T())
	}
	w, mean, err := PCABasis(sets, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(mean) != D {
		t.Fatalf("mean has %d entries", len(mean))
	}
	ang, _ := grassmann.PrincipalAngles(w, truth)
	if ang[d-1] > 0.05 {
		t.Errorf("largest angle %g rad", ang[d-1])
	}
	if e := orthoError(w); e > 1e-12 {
		t.Errorf("|WᵀW − I| = %g", e)
	}
}

func TestPCABasisRejectsBadInput(t *testing.T) {
	good := mat.NewDense(3, 4, []float64{1, 2, 3, 4, 2, 3, 4, 5, 0, 1, 0, 1})
	if _, _, err := PCABasis(nil, 2, 0); err == nil {
		t.Error("no sets: no error")
	}
	if _, _, err := PCABasis([]*mat.Dense{good}, 5, 0); err == nil {
		t.Error("d > D: no error")
	}
	if _, _, err := PCABasis([]*mat.Dense{good, mat.NewDense(2, 3, nil)}, 2, 0); err == nil {
		t.Error("mixed D: no error")
	}
}

// TestPCACache: the cached basis equals PCABasis for several d, computed
// once for the same sets.
func TestPCACache(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sets := make([]*mat.Dense, 4)
	for i := range sets {
		x := mat.NewDense(15, 7, nil)
		for r := range 15 {
			for c := range 7 {
				x.Set(r, c, float64(c+1)*rng.NormFloat64())
			}
		}
		sets[i] = x
	}
	var c PCACache
	for _, d := range []int{1, 3, 7, 3} {
		w, mean, err := c.Basis(sets, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		w0, mean0, _ := PCABasis(sets, d, 1)
		if !mat.EqualApprox(w, w0, 1e-12) || !floats.EqualApprox(mean, mean0, 1e-12) {
			t.Errorf("d = %d: cached basis differs from PCABasis", d)
		}
	}
	if c.c.len() != 1 {
		t.Errorf("%d cache entries for one collection of sets", c.c.len())
	}
	if _, _, err := c.Basis(sets, 8, 1); err == nil {
		t.Error("d > D accepted")
	}
}

// TestPCACacheKeys: an entry serves only what it holds. A d above the
// directions an entry of smaller d keeps (pcaCacheDirs) is PCABasis's at
// that d, and above pca.CovarianceMaxDim features, where the seed
// matters, another seed is PCABasis's at that seed.
func TestPCACacheKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	randSets := func(n, dim int) []*mat.Dense {
		sets := make([]*mat.Dense, 3)
		for i := range sets {
			sets[i] = mat.NewDense(n, dim, nil)
			for r := range n {
				for c := range dim {
					sets[i].Set(r, c, float64(dim-c)*rng.NormFloat64())
				}
			}
		}
		return sets
	}
	var c PCACache
	wide := randSets(40, pcaCacheDirs+16) // N ≥ D: every direction
	for _, d := range []int{3, pcaCacheDirs + 6, pcaCacheDirs + 10} {
		w, _, err := c.Basis(wide, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		w0, _, _ := PCABasis(wide, d, 1)
		if !mat.EqualApprox(w, w0, 1e-12) {
			t.Errorf("%d features, d = %d: cached basis differs from PCABasis", pcaCacheDirs+16, d)
		}
	}
	big := randSets(8, pca.CovarianceMaxDim+50)
	for _, seed := range []int64{1, 2} {
		w, _, err := c.Basis(big, 3, seed)
		if err != nil {
			t.Fatal(err)
		}
		w0, _, _ := PCABasis(big, 3, seed)
		if !mat.Equal(w, w0) {
			t.Errorf("%d features, seed %d: cached basis differs from PCABasis", pca.CovarianceMaxDim+50, seed)
		}
	}
}

// TestPCABasisFewFramesMatchesCovariance checks PCABasis when there are
// fewer frames than features (pca.Leading's Gram matrix path): the same
// subspace as the exact principal directions (pca.All), orthonormal
// columns, the same mean; and with d above the frames' rank (the Gram
// path refuses it) the scatter's path, whose first directions are still
// the frames' own. A PCACache gives the same bases, from one
// decomposition for every d up to the rank.
func TestPCABasisFewFramesMatchesCovariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const D = 120
	sets := make([]*mat.Dense, 4)
	for s := range sets {
		x := mat.NewDense(10, D, nil) // 40 frames in all, rank ≤ 39
		for i := range 10 {
			for j := range D {
				x.Set(i, j, 2+rng.NormFloat64()*float64(D-j)/D)
			}
		}
		sets[s] = x
	}
	stacked, _ := stackFrames(sets)
	centred := mat.DenseCopyOf(stacked)
	mean := stats.MeanFrame(centred)
	stats.SubtractFrame(centred, mean)
	var cache PCACache
	for _, d := range []int{1, 10, 39, 45} {
		w, m, err := PCABasis(sets, d, 1)
		if err != nil {
			t.Fatalf("d = %d: %v", d, err)
		}
		cw, cm, err := cache.Basis(sets, d, 1)
		if err != nil {
			t.Fatalf("d = %d, cached: %v", d, err)
		}
		if !mat.Equal(cw, w) || !floats.Equal(cm, m) {
			t.Errorf("d = %d: the cached basis differs from PCABasis", d)
		}
		if r, c := w.Dims(); r != D || c != d {
			t.Fatalf("d = %d: W is %d×%d", d, r, c)
		}
		for j := range D {
			if math.Abs(m[j]-mean[j]) > 1e-12 {
				t.Fatalf("d = %d: mean[%d] = %v, want %v", d, j, m[j], mean[j])
			}
		}
		if e := grassmann.OrthoError(w); !(e <= 1e-10) {
			t.Fatalf("d = %d: max |WᵀW − I| = %v", d, e)
		}
		cov, _, err := pca.All(centred)
		if err != nil {
			t.Fatal(err)
		}
		k := min(d, 39) // beyond the rank, any directions of no variance will do
		ang, _ := grassmann.PrincipalAngles(w.Slice(0, D, 0, k).(*mat.Dense), cov.Slice(0, D, 0, k).(*mat.Dense))
		if ang[k-1] > 1e-6 {
			t.Errorf("d = %d: largest angle to the exact directions %g rad", d, ang[k-1])
		}
	}
	if cache.c.len() != 1 {
		t.Errorf("%d cache entries for one collection of sets, want 1 (d = 45 is computed on its own)", cache.c.len())
	}
}

// BenchmarkPCABasisFewFrames: the PCA start of one -dr fold with LBP
// features, 160 frames of D = 944, d = 40 (docs/PERFORMANCE.md, "Training").
func BenchmarkPCABasisFewFrames(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const D = 944
	sets := make([]*mat.Dense, 20)
	for s := range sets {
		x := mat.NewDense(8, D, nil)
		for i := range 8 {
			for j := range D {
				x.Set(i, j, rng.Float64())
			}
		}
		sets[s] = x
	}
	for b.Loop() {
		if _, _, err := PCABasis(sets, 40, 1); err != nil {
			b.Fatal(err)
		}
	}
}
