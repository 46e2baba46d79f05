package synth

import (
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"setmatch/dataset"
	"setmatch/match"
)

func TestShapesAndNames(t *testing.T) {
	for _, kind := range []Kind{Subspace, BeyondGauss, Lighting, Cone} {
		d, err := Generate(Options{Kind: kind, Classes: 3, Sets: 4, Frames: 12, Dim: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Classes) != 3 || len(d.Sets) != 12 || d.Classes[2] != "c02" {
			t.Fatalf("%v: classes %v, %d sets", kind, d.Classes, len(d.Sets))
		}
		for i, s := range d.Sets {
			if r, c := s.Frames.Dims(); r != 12 || c != 5 {
				t.Errorf("%v: set %d is %d×%d", kind, i, r, c)
			}
			if s.Class != d.Classes[i/4] || s.Name != SetName(i%4, 4) {
				t.Errorf("%v: set %d named %s/%s", kind, i, s.Class, s.Name)
			}
		}
		if d.Sets[5].Name != "s001" || d.Labels()[5] != 1 {
			t.Errorf("names/labels wrong: %s %v", d.Sets[5].Name, d.Labels())
		}
	}
	if ClassName(3, 120) != "c003" || SetName(7, 1500) != "s0007" {
		t.Error("name widths")
	}
}

func TestDeterminism(t *testing.T) {
	for _, kind := range []Kind{Subspace, BeyondGauss, Lighting, Cone} {
		o := Options{Kind: kind, Classes: 3, Sets: 2, Frames: 10, Dim: 4, Seed: 42}
		a, _ := Generate(o)
		b, _ := Generate(o)
		o.Seed = 43
		c, _ := Generate(o)
		for i := range a.Sets {
			if !mat.Equal(a.Sets[i].Frames, b.Sets[i].Frames) {
				t.Errorf("%v: set %d differs for the same seed", kind, i)
			}
			if mat.EqualApprox(a.Sets[i].Frames, c.Sets[i].Frames, 1e-3) {
				t.Errorf("%v: set %d equal for different seeds", kind, i)
			}
		}
	}
}

// TestBadOptions checks that Generate refuses options it cannot honour
// (sizes out of range, a scale that is negative or not finite, an unknown
// kind) and that Validate accepts the limits themselves.
func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Classes: 0, Sets: 1, Frames: 5, Dim: 2},
		{Classes: 2, Sets: 1, Frames: 1, Dim: 2},
		{Classes: 2, Sets: 1, Frames: 5, Dim: 2, InfoDim: 3},
		{Classes: 2, Sets: 1, Frames: 5, Dim: 2, NoiseStd: math.NaN()},
		{Classes: 2, Sets: 1, Frames: 5, Dim: 2, NoiseStd: -1},
		{Classes: 2, Sets: 1, Frames: 5, Dim: 2, ClassRadius: math.Inf(1)},
		{Kind: Lighting, Classes: 2, Sets: 1, Frames: 5, Dim: 4, NuisanceStd: -0.5},
		{Kind: Cone, Classes: 2, Sets: 1, Frames: 5, Dim: 4, SetSpread: -1},
		{Kind: BeyondGauss, Classes: 2, Sets: 1, Frames: 5, Dim: 1},
		{Kind: BeyondGauss, Classes: 2, Sets: 1, Frames: 5, Dim: 5},
		{Kind: 7, Classes: 2, Sets: 1, Frames: 5, Dim: 2},
		{Kind: BeyondGauss, Classes: 2, Sets: 1, Frames: 5, Dim: 2, ShapeDims: 3},
		{Kind: Cone, Classes: 2, Sets: 1, Frames: 5, Dim: 1},
		{Kind: Cone, Classes: 2, Sets: 1, Frames: 5, Dim: 4, NuisanceDim: 1},
		{Kind: Cone, Classes: 2, Sets: 1, Frames: 5, Dim: 4, NuisanceDim: 5},
		{Classes: 1 << 20, Sets: 1 << 10, Frames: 100, Dim: 100},
		// Within the values' bound, but its bases would take 32 GiB.
		{Classes: 2, Sets: 1, Frames: 2, Dim: 1 << 16},
	} {
		if _, err := Generate(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	// The largest data set and the widest frames are accepted.
	for _, o := range []Options{
		{Classes: 1 << 10, Sets: 1 << 8, Frames: 1 << 5, Dim: 1 << 5},
		{Classes: 2, Sets: 1, Frames: 2, Dim: MaxDim},
	} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if _, err := ParseKind("gauss"); err == nil {
		t.Error("ParseKind accepted gauss")
	}
	if k, err := ParseKind("beyond-gauss"); err != nil || k != BeyondGauss || k.String() != "beyond-gauss" {
		t.Error("ParseKind beyond-gauss")
	}
}

// TestBeyondGaussMoments checks that every set has mean 0 and covariance I.
func TestBeyondGaussMoments(t *testing.T) {
	d, err := Generate(Options{Kind: BeyondGauss, Classes: 9, Sets: 3, Frames: 40, Dim: 6, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	d2, err := Generate(Options{Kind: BeyondGauss, Classes: 13, Sets: 1, Frames: 40, Dim: 6, ShapeDims: 4, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(d.Sets, d2.Sets...) {
		n, dim := s.Frames.Dims()
		for j := range dim {
			col := mat.Col(nil, j, s.Frames)
			if m := stat.Mean(col, nil); math.Abs(m) > 1e-12 {
				t.Errorf("%s/%s: mean of feature %d is %g", s.Class, s.Name, j, m)
			}
		}
		var cov mat.SymDense
		stat.CovarianceMatrix(&cov, s.Frames, nil)
		for i := range dim {
			for j := range dim {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(cov.At(i, j)-want) > 1e-9 {
					t.Errorf("%s/%s: covariance (%d,%d) = %g", s.Class, s.Name, i, j, cov.At(i, j))
				}
			}
		}
		_ = n
	}
}

// nnAccuracy is the leave-one-out accuracy of the nearest set under the
// Hellinger estimator of the match package.
func nnAccuracy(t *testing.T, d *dataset.Dataset, h float64) float64 {
	t.Helper()
	kdes := make([]*match.KDE, len(d.Sets))
	for i, s := range d.Sets {
		k, err := match.NewKDE(s.Frames, h)
		if err != nil {
			t.Fatal(err)
		}
		kdes[i] = k
	}
	labels := d.Labels()
	n := len(kdes)
	div := make([]float64, n*n)
	for i := range n {
		for j := range i {
			dv, err := match.Compare(kdes[i], kdes[j])
			if err != nil {
				t.Fatal(err)
			}
			div[i*n+j], div[j*n+i] = dv.Hellinger2, dv.Hellinger2
		}
	}
	right := 0
	for i := range n {
		best, bi := math.Inf(1), -1
		for j := range n {
			if i != j && div[i*n+j] < best {
				best, bi = div[i*n+j], j
			}
		}
		if labels[bi] == labels[i] {
			right++
		}
	}
	return float64(right) / float64(len(kdes))
}

// TestBeyondGaussSeparable: the shapes differ enough for density matching
// to beat chance by far, although mean and covariance are identical.
func TestBeyondGaussSeparable(t *testing.T) {
	d, err := Generate(Options{Kind: BeyondGauss, Classes: 5, Sets: 4, Frames: 100, Dim: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	acc := nnAccuracy(t, d, 0.3)
	t.Logf("nearest-set accuracy %.2f (chance 0.20)", acc)
	if acc < 0.7 {
		t.Errorf("nearest-set accuracy %.2f, chance is 0.20", acc)
	}
}

// project returns the mean of x (n×D) in B-coordinates (K).
func projectMean(x, b *mat.Dense) []float64 {
	var p mat.Dense
	p.Mul(x, b)
	_, k := p.Dims()
	m := make([]float64, k)
	for j := range k {
		m[j] = stat.Mean(mat.Col(nil, j, &p), nil)
	}
	return m
}

func TestSubspaceBasis(t *testing.T) {
	o := Options{Kind: Subspace, Classes: 6, Sets: 5, Frames: 30, Dim: 12, Seed: 5}
	d, b, err := GenerateWithBasis(o)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := b.Dims(); r != 12 || c != 2 {
		t.Fatalf("basis %d×%d", r, c)
	}
	var btb mat.Dense
	btb.Mul(b.T(), b)
	if !mat.EqualApprox(&btb, eye(2), 1e-12) {
		t.Errorf("basis not orthonormal: %v", mat.Formatted(&btb))
	}
	// Leave-one-out nearest class mean in B-coordinates.
	labels := d.Labels()
	means := make([][]float64, len(d.Sets))
	for i, s := range d.Sets {
		means[i] = projectMean(s.Frames, b)
	}
	right := 0
	for i := range means {
		best, bc := math.Inf(1), -1
		for c := range o.Classes {
			cm := make([]float64, 2)
			n := 0
			for j := range means {
				if j != i && labels[j] == c {
					cm[0] += means[j][0]
					cm[1] += means[j][1]
					n++
				}
			}
			dist := math.Hypot(means[i][0]-cm[0]/float64(n), means[i][1]-cm[1]/float64(n))
			if dist < best {
				best, bc = dist, c
			}
		}
		if bc == labels[i] {
			right++
		}
	}
	if acc := float64(right) / float64(len(means)); acc < 0.9 {
		t.Errorf("nearest class mean in B: accuracy %.2f, chance %.2f", acc, 1/float64(o.Classes))
	}

	// PCA of all frames must prefer the noise: the top two principal
	// directions are nearly orthogonal to span(B).
	var all mat.Dense
	for i, s := range d.Sets {
		if i == 0 {
			all.CloneFrom(s.Frames)
			continue
		}
		var st mat.Dense
		st.Stack(&all, s.Frames)
		all = st
	}
	var pc stat.PC
	if !pc.PrincipalComponents(&all, nil) {
		t.Fatal("PCA failed")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	top := vecs.Slice(0, 12, 0, 2)
	var overlap mat.Dense
	overlap.Mul(b.T(), top)
	// Largest cosine of the principal angles between span(B) and the PCA
	// subspace.
	var svd mat.SVD
	svd.Factorize(&overlap, mat.SVDNone)
	if s := svd.Values(nil)[0]; s > 0.5 {
		t.Errorf("PCA's top-2 subspace overlaps span(B): largest cosine %.2f", s)
	}
	// Noise directions carry no information: the component orthogonal to B
	// has variance NoiseStd² and the informative one is smaller.
	_ = vecs
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

func TestSubspaceInfoDims(t *testing.T) {
	for _, k := range []int{1, 3, 5} {
		d, b, err := GenerateWithBasis(Options{Classes: 4, Sets: 2, Frames: 8, Dim: 5, InfoDim: k, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		if _, c := b.Dims(); c != k || len(d.Sets) != 8 {
			t.Errorf("info-dim %d: basis has %d columns", k, c)
		}
	}
}

func TestWriteAndLoad(t *testing.T) {
	d, err := Generate(Options{Kind: BeyondGauss, Classes: 2, Sets: 3, Frames: 5, Dim: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := dataset.Write(dir, d); err != nil {
		t.Fatal(err)
	}
	e, err := dataset.Load(dir, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Sets) != 6 || e.Classes[1] != "c01" || e.Sets[4].Name != "s001" {
		t.Fatalf("loaded %d sets, classes %v", len(e.Sets), e.Classes)
	}
	for i := range d.Sets {
		if !mat.Equal(d.Sets[i].Frames, e.Sets[i].Frames) {
			t.Errorf("set %d differs after write and load", i)
		}
	}
}

// TestBeyondGaussRepeatsAlongNewDirections checks that a shape repeated
// for more classes than there are shapes lies along other directions each
// time, so that no two classes share a distribution: with one shape
// direction (along the basis, and when there are more repetitions than
// dimensions spread over half a turn) and with several, up to as many as
// there are dimensions.
func TestBeyondGaussRepeatsAlongNewDirections(t *testing.T) {
	for _, o := range []Options{
		{Kind: BeyondGauss, Classes: 13, Sets: 1, Frames: 7, Dim: 6, Seed: 1},
		{Kind: BeyondGauss, Classes: 20, Sets: 1, Frames: 3, Dim: 2, Seed: 1},
		{Kind: BeyondGauss, Classes: 13, Sets: 1, Frames: 7, Dim: 6, ShapeDims: 3, Seed: 1},
		// As many shape directions as dimensions: each repetition is a
		// turn of the whole space.
		{Kind: BeyondGauss, Classes: 8, Sets: 1, Frames: 4, Dim: 3, ShapeDims: 3, Seed: 1},
	} {
		o, err := o.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		g := newBeyondGauss(o)
		for a := 2; a < o.Classes; a++ {
			for b := a + len(directional); b < o.Classes; b += len(directional) {
				if g.shapes[a] != g.shapes[b] {
					t.Fatalf("classes %d and %d: shapes %d and %d", a, b, g.shapes[a], g.shapes[b])
				}
				// The cosine of the smallest principal angle between
				// the spans of their directions: 1 if they are the same.
				ua := mat.NewDense(o.Dim, len(g.dirs[a]), nil)
				ub := mat.NewDense(o.Dim, len(g.dirs[b]), nil)
				for j := range g.dirs[a] {
					ua.SetCol(j, g.dirs[a][j])
					ub.SetCol(j, g.dirs[b][j])
				}
				var p mat.Dense
				p.Mul(ua.T(), ub)
				var svd mat.SVD
				svd.Factorize(&p, mat.SVDNone)
				v := svd.Values(nil)
				if len(g.dirs[a]) == o.Dim {
					continue // both span the whole space
				}
				if s := v[len(v)-1]; s > 0.99 {
					t.Errorf("shape dims %d, dim %d: classes %d and %d (the same shape) lie along the same directions (cosine %.3f)", o.ShapeDims, o.Dim, a, b, s)
				}
			}
		}
	}
}

// TestSubspaceClassShapes checks the within-set shape of a Subspace data
// set in its informative directions: each class stretches WithinStd by its
// own factors (0.5 to 1.5) along its own axes, so that the sets of some
// class spread far more along one axis than along the other, and every
// variance is within what those factors give.
func TestSubspaceClassShapes(t *testing.T) {
	o := Options{Kind: Subspace, Classes: 6, Sets: 1, Frames: 400, Dim: 4, Seed: 8}
	d, b, err := GenerateWithBasis(o)
	if err != nil {
		t.Fatal(err)
	}
	const within = 0.25 // the default WithinStd
	var most, least, widest float64 = 0, math.Inf(1), 0
	for _, s := range d.Sets {
		var y mat.Dense
		y.Mul(s.Frames, b)
		var cov mat.SymDense
		stat.CovarianceMatrix(&cov, &y, nil)
		var eig mat.EigenSym
		if !eig.Factorize(&cov, false) {
			t.Fatal("eigendecomposition failed")
		}
		v := eig.Values(nil) // ascending
		most = max(most, v[1]/v[0])
		least, widest = min(least, v[0]), max(widest, v[1])
	}
	t.Logf("largest ratio of a class's variances %.2f; variances from %.4f to %.4f", most, least, widest)
	if most < 2 {
		t.Errorf("no class spreads more than %.2f times as much along one axis as along the other, want some at least twice", most)
	}
	// Stretched by 0.5 to 1.5, with room for the sampling of 400 frames.
	if lo, hi := 0.8*0.25*within*within, 1.2*2.25*within*within; least < lo || widest > hi {
		t.Errorf("variances from %.4f to %.4f, want within [%.4f, %.4f]", least, widest, lo, hi)
	}
}
