package features

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"setmatch/grassmann"
)

// lineData returns n points spread (std 10) along u = (3, 4, 0, …)/5 in D
// dimensions, plus isotropic noise of std 0.1, offset by 7 in every
// coordinate.
func lineData(n, D int, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 2))
	x := mat.NewDense(n, D, nil)
	for i := range n {
		s := 10 * r.NormFloat64()
		for j := range D {
			v := 7 + 0.1*r.NormFloat64()
			switch j {
			case 0:
				v += 0.6 * s
			case 1:
				v += 0.8 * s
			}
			x.Set(i, j, v)
		}
	}
	return x
}

func checkOrthonormal(t *testing.T, c *mat.Dense) {
	t.Helper()
	if e := grassmann.OrthoError(c); !(e <= 1e-10) {
		t.Errorf("max |CᵀC − I| = %v, want at most 1e-10", e)
	}
}

func TestPCARecoversDirection(t *testing.T) {
	for _, tc := range []struct{ n, D int }{{500, 3}, {12, 40}} { // eigen and SVD paths
		x := lineData(tc.n, tc.D, 1)
		p, err := FitPCA(x, 3)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := p.Components.Dims(); r != tc.D || c != 3 {
			t.Fatalf("Components %dx%d", r, c)
		}
		checkOrthonormal(t, p.Components)
		// Sign rule: the largest entry (0.8) is positive.
		if !near(p.Components.At(0, 0), 0.6, 0.01) || !near(p.Components.At(1, 0), 0.8, 0.01) {
			t.Errorf("n=%d D=%d: first component starts %v, %v; want 0.6, 0.8", tc.n, tc.D, p.Components.At(0, 0), p.Components.At(1, 0))
		}
		for j := range tc.D {
			if !near(p.Mean[j], 7, 0.5+10*0.8*3/math.Sqrt(float64(tc.n))) {
				t.Errorf("mean[%d] = %v, want about 7", j, p.Mean[j])
			}
		}
		if p.Variances[0] < 10 || p.Variances[1] > 0.1 || p.Variances[0] < p.Variances[1] || p.Variances[1] < p.Variances[2] {
			t.Errorf("variances %v", p.Variances)
		}
		if p.Total < p.Variances[0]+p.Variances[1]+p.Variances[2]-1e-9 {
			t.Errorf("total %v below kept variance %v", p.Total, p.Variances)
		}

		// The transformed training data have diagonal covariance equal to
		// Variances and zero mean.
		y := p.Transform(x)
		var cov mat.SymDense
		stat.CovarianceMatrix(&cov, y, nil)
		for i := range 3 {
			if m := stat.Mean(mat.Col(nil, i, y), nil); !near(m, 0, 1e-9) {
				t.Errorf("column %d mean %v", i, m)
			}
			for j := range 3 {
				want := 0.0
				if i == j {
					want = p.Variances[i]
				}
				if !near(cov.At(i, j), want, 1e-8*(1+p.Variances[0])) {
					t.Errorf("n=%d: cov[%d,%d] = %v, want %v", tc.n, i, j, cov.At(i, j), want)
				}
			}
		}
		// TransformVec agrees with Transform.
		row, err := p.TransformVec(nil, x.RawRowView(4))
		if err != nil {
			t.Fatal(err)
		}
		checkVec(t, "TransformVec", row, y.RawRowView(4), 1e-9)
	}
}

func TestPCAErrors(t *testing.T) {
	x := lineData(5, 10, 3) // rank 4 after centring
	if _, err := FitPCA(x, 4); err != nil {
		t.Errorf("d = rank: %v", err)
	}
	tests := []struct {
		x    *mat.Dense
		d    int
		want string
	}{
		{x, 5, "span only 4 dimensions"},
		{x, 0, "want 1 to 10"},
		{x, 11, "want 1 to 10"},
		{mat.NewDense(1, 3, []float64{1, 2, 3}), 1, "at least 2"},
		{mat.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2}), 1, "zero variance"},
		{mat.NewDense(2, 2, []float64{1, math.NaN(), 1, 2}), 1, "NaN"},
	}
	for _, tc := range tests {
		_, err := FitPCA(tc.x, tc.d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FitPCA(d=%d): %v, want error containing %q", tc.d, err, tc.want)
		}
	}
	p, err := FitPCA(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.TransformVec(nil, make([]float64, 3)); err == nil {
		t.Error("TransformVec with a short frame: no error")
	}
}

// TestPCASets: the PCA is fitted on the listed sets only, every set is
// projected, and whitening gives the fitted frames unit variance along
// each component.
func TestPCASets(t *testing.T) {
	sets := []*mat.Dense{lineData(30, 5, 1), lineData(20, 5, 2), lineData(25, 5, 3)}
	// A far-off set left out of the fit must not move the PCA.
	sets[1].Apply(func(_, j int, v float64) float64 { return v + 100*float64(j) }, sets[1])
	fit := []int{2, 0}
	stacked := mat.NewDense(55, 5, nil)
	stacked.Slice(0, 25, 0, 5).(*mat.Dense).Copy(sets[2])
	stacked.Slice(25, 55, 0, 5).(*mat.Dense).Copy(sets[0])
	ref, err := FitPCA(stacked, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, whiten := range []bool{false, true} {
		out, err := PCASets(sets, fit, 2, whiten)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range sets {
			want := ref.Transform(s)
			if whiten {
				for j := range 2 {
					sd := math.Sqrt(ref.Variances[j])
					for r := range want.RawMatrix().Rows {
						want.Set(r, j, want.At(r, j)/sd)
					}
				}
			}
			if !mat.EqualApprox(out[i], want, 1e-12) {
				t.Errorf("whiten %v: set %d differs from FitPCA on the fitted sets", whiten, i)
			}
		}
		if !whiten {
			continue
		}
		var fitted mat.Dense
		fitted.Stack(out[2], out[0])
		for j := range 2 {
			if v := stat.Variance(mat.Col(nil, j, &fitted), nil); math.Abs(v-1) > 1e-9 {
				t.Errorf("whitened component %d has variance %g on the fitted frames, want 1", j, v)
			}
		}
	}
	if _, err := PCASets(sets, nil, 2, false); err == nil {
		t.Error("PCASets with nothing to fit on: no error")
	}
}

// BenchmarkFitPCA: the PCA stage of LBP features (D = 944) fitted on 2000
// training frames, 50 components (docs/PERFORMANCE.md, "Training").
func BenchmarkFitPCA(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, D = 2000, 944
	x := mat.NewDense(n, D, nil)
	for i := range n {
		for j := range D {
			x.Set(i, j, rng.Float64()*float64(D-j)/D)
		}
	}
	for b.Loop() {
		if _, err := FitPCA(x, 50); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWhitenLeavesZeroVariance: Whiten divides each column by its standard
// deviation and leaves a column of zero variance as it is.
func TestWhitenLeavesZeroVariance(t *testing.T) {
	p := &PCA{Variances: []float64{4, 0}}
	y := mat.NewDense(2, 2, []float64{2, 3, -6, 5})
	p.Whiten(y)
	if want := mat.NewDense(2, 2, []float64{1, 3, -3, 5}); !mat.Equal(y, want) {
		t.Errorf("whitened %v, want %v", mat.Formatted(y), mat.Formatted(want))
	}
}
