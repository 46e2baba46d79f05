package setkernel

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// TestGallery: the gallery's kernel matrix, its diagonal and a batch's
// kernel vector equal the kernels computed pair by pair (Projection of
// Basis for GDA, LogEuclidean of NewSpectrum for CDL).
func TestGallery(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	var sets []*mat.Dense
	for i := range 9 {
		sets = append(sets, testutil.RandSet(rng, 12, 5, float64(i%3), 1+float64(i%3)))
	}
	const p, lambda = 2, 0.01
	pairs := map[string]func(a, b *mat.Dense) float64{
		gda: func(a, b *mat.Dense) float64 {
			ba, _ := Basis(a, p)
			bb, _ := Basis(b, p)
			return Projection(ba, bb)
		},
		cdl: func(a, b *mat.Dense) float64 {
			sa, _ := NewSpectrum(a)
			sb, _ := NewSpectrum(b)
			return LogEuclidean(sa, sb, lambda)
		},
	}
	galleries := map[string]func() (*Gallery, error){
		gda: func() (*Gallery, error) { return NewGDAGallery(p, sets, 3) },
		cdl: func() (*Gallery, error) { return NewCDLGallery(lambda, sets, 3) },
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	for kind, pair := range pairs {
		t.Run(kind, func(t *testing.T) {
			g, err := galleries[kind]()
			if err != nil {
				t.Fatal(err)
			}
			km, diag := g.Matrix(3), g.Diag(2)
			for i, a := range sets {
				if want := pair(a, a); !near(diag[i], want) {
					t.Errorf("kernel of set %d with itself = %v, pairwise %v", i, diag[i], want)
				}
				for j, b := range sets {
					if want := pair(a, b); !near(km.At(i, j), want) {
						t.Errorf("gallery kernel (%d, %d) = %v, pairwise %v", i, j, km.At(i, j), want)
					}
				}
			}
			batch := testutil.RandSet(rng, 10, 5, 1, 2)
			k, self, err := g.Vector(context.Background(), batch, 2)
			if err != nil {
				t.Fatal(err)
			}
			for j, s := range sets {
				if want := pair(batch, s); !near(k[j], want) {
					t.Errorf("kernel of the batch and set %d = %v, pairwise %v", j, k[j], want)
				}
			}
			if want := pair(batch, batch); !near(self, want) {
				t.Errorf("kernel of the batch with itself = %v, pairwise %v", self, want)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, _, err := g.Vector(ctx, batch, 2); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled: %v", err)
			}
			if _, _, err := g.Vector(context.Background(), mat.NewDense(3, 4, nil), 2); err == nil {
				t.Error("a batch of 4 features against a gallery of 5 accepted")
			}
		})
	}
	if _, err := NewGDAGallery(p, nil, 1); err == nil {
		t.Error("a gallery of no sets accepted")
	}
}

// checkGDAVector fails t where the kernel vector of batch against the
// GDA gallery of sets at subspace dimension p (workers goroutines)
// differs by more than 1e-9 from Projection of the two bases taken pair
// by pair, each of min(p, its frames) dimensions; it returns the batch's
// kernel with itself.
func checkGDAVector(t *testing.T, p int, sets []*mat.Dense, batch *mat.Dense, workers int) float64 {
	t.Helper()
	g, err := NewGDAGallery(p, sets, workers)
	if err != nil {
		t.Fatal(err)
	}
	k, self, err := g.Vector(context.Background(), batch, workers)
	if err != nil {
		t.Fatal(err)
	}
	frames := func(x *mat.Dense) int { n, _ := x.Dims(); return n }
	bb, _ := Basis(batch, min(p, frames(batch)))
	for j, s := range sets {
		bs, _ := Basis(s, min(p, frames(s)))
		if want := Projection(bb, bs); math.Abs(k[j]-want) > 1e-9 {
			t.Errorf("kernel of the batch and set %d = %v, pairwise %v", j, k[j], want)
		}
	}
	return self
}

// TestGalleryVectorBeyondOneTile: a batch's kernel vector covers every
// gallery set when they are more than one tile of sets checked between two
// looks at the context.
func TestGalleryVectorBeyondOneTile(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	sets := make([]*mat.Dense, tile+1)
	for i := range sets {
		sets[i] = testutil.RandSet(rng, 4, 3, 0, 1)
	}
	checkGDAVector(t, 1, sets, testutil.RandSet(rng, 5, 3, 0, 1), 2)
}

// TestGDAGalleryClipsP: a gallery set or a batch of fewer frames than p
// is taken at the subspace its frames span (p = its frames).
func TestGDAGalleryClipsP(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	sets := []*mat.Dense{testutil.RandSet(rng, 2, 4, 0, 1), testutil.RandSet(rng, 5, 4, 0, 1)}
	self := checkGDAVector(t, 3, sets, testutil.RandSet(rng, 2, 4, 0, 1), 1)
	if math.Abs(self-2) > 1e-9 {
		t.Errorf("kernel of a 2-frame batch with itself = %v, want 2", self)
	}
}

// TestVectorRefusesNonFiniteKernel: a kernel that is not finite (here of
// a CDL gallery regularised by λ = 0, whose log λ is −Inf, which
// NewCDLGallery refuses and only newGallery makes) is an error of Vector,
// not a value.
func TestVectorRefusesNonFiniteKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	g, err := newGallery(cdl, 0, 0, []*mat.Dense{testutil.RandSet(rng, 4, 3, 0, 1)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if k, _, err := g.Vector(context.Background(), testutil.RandSet(rng, 4, 3, 0, 1), 1); err == nil || !strings.Contains(err.Error(), "cdl kernel against gallery set 0 is") {
		t.Errorf("Vector = %v, %v; want an error", k, err)
	}
}

// TestNewCDLGalleryRefusesLambda: λ must be a finite number > 0; at 0 the
// log of a covariance's null directions is −Inf and Matrix gave NaN.
func TestNewCDLGalleryRefusesLambda(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 6))
	sets := []*mat.Dense{testutil.RandSet(rng, 4, 3, 0, 1)}
	for _, l := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := NewCDLGallery(l, sets, 1); err == nil || !strings.Contains(err.Error(), "want a finite number > 0") {
			t.Errorf("λ = %v: %v", l, err)
		}
	}
	if _, err := NewCDLGallery(1e-3, sets, 1); err != nil {
		t.Errorf("λ = 1e-3: %v", err)
	}
}
