package model

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/match"
	"setmatch/method"
	"setmatch/setkernel"
)

// sumTerms are the kernels of the sum tests: hg relative to the median
// divergence, gda with p = 2 and cdl with λ = 0.01.
func sumTerms() []Term {
	return []Term{
		{Kernel: string(method.KernelHG), Width: 0.5, Scale: 1, WidthScale: "median"},
		{Kernel: string(method.KernelGDA), Width: 1, Scale: 1, WidthScale: "raw", P: 2},
		{Kernel: string(method.KernelCDL), Width: 1, Scale: 1, WidthScale: "raw", Lambda: 0.01},
	}
}

// sumModel is setKernelModel's gallery decided by kFDA on sumTerms.
func sumModel(t *testing.T) *Model {
	t.Helper()
	m := setKernelModel(t, string(method.KernelGDA))
	m.Discriminant, m.Selection = nil, Selection{}
	if _, err := fitTerms(m, sumTerms(), 1e-2, 0, 2); err != nil {
		t.Fatal(err)
	}
	return m
}

// pairKernel is the set kernel kind (gda with p, cdl with lambda) of the
// sets a and b, computed pair by pair with setkernel, as a reference for
// the fitted sum's.
func pairKernel(kind string, p int, lambda float64, a, b *mat.Dense) float64 {
	if kind == string(method.KernelGDA) {
		ba, _ := setkernel.Basis(a, p)
		bb, _ := setkernel.Basis(b, p)
		return setkernel.Projection(ba, bb)
	}
	sa, _ := setkernel.NewSpectrum(a)
	sb, _ := setkernel.NewSpectrum(b)
	return setkernel.LogEuclidean(sa, sb, lambda)
}

// sumReference is the kernel of sumModel's terms computed pair by pair
// from match and setkernel: the KDEs of the gallery sets, their squared
// Hellinger distances and the median of those.
type sumReference struct {
	kde []*match.KDE
	h2  *mat.SymDense
	med float64
}

func newSumReference(t *testing.T, m *Model) *sumReference {
	t.Helper()
	n := len(m.Sets)
	r := &sumReference{kde: make([]*match.KDE, n), h2: mat.NewSymDense(n, nil)}
	for i, s := range m.Sets {
		var err error
		if r.kde[i], err = match.NewKDE(s.Samples, s.Bandwidth); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			d, err := match.Compare(r.kde[i], r.kde[j])
			if err != nil {
				t.Fatal(err)
			}
			r.h2.SetSym(i, j, d.Hellinger2)
		}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	r.med = kfda.MedianOffDiag(r.h2, all, false)
	return r
}

// pair returns the kernel of sumTerms' term of the sets a and b, whose
// KDEs are h2 apart.
func (r *sumReference) pair(term int, a, b *mat.Dense, h2 float64) float64 {
	switch term {
	case 0:
		return math.Exp(-0.5 / r.med * h2)
	case 1:
		return pairKernel(string(method.KernelGDA), 2, 0, a, b)
	}
	return pairKernel(string(method.KernelCDL), 0, 0.01, a, b)
}

// TestSumKernel: the kernel of a sum is the weighted sum of its terms,
// computed here pair by pair from match and setkernel, each weighted by
// 1 / its mean diagonal over the gallery; the model decides by kFDA on
// it exactly as kfda.Fit on that matrix does, recognises batches of each
// class, and survives a round trip through its file.
func TestSumKernel(t *testing.T) {
	m := sumModel(t)
	k := m.Discriminant
	if m.MethodName() != "kfda-mix" || k.Kernel != string(method.KernelSum) || len(k.Terms) != 3 || !k.UsesDivergences() {
		t.Fatalf("method %q, kernel %q with %d terms", m.MethodName(), k.Kernel, len(k.Terms))
	}
	if d := k.Describe(); !strings.HasPrefix(d, "kernel sum of hg, width 0.5/median = ") || !strings.Contains(d, " + gda (projection kernel of 2-dimensional set subspaces) (× 0.5) + cdl (") {
		t.Errorf("description %q", d)
	}
	ref := newSumReference(t, m)
	t.Run("fit", func(t *testing.T) { checkSumFit(t, m, ref) })
	dec, _ := mfRoundTrip(t, m)
	t.Run("match", func(t *testing.T) { checkSumMatch(t, m, ref) })
	t.Run("match read back", func(t *testing.T) { checkSumMatch(t, dec, ref) })
}

// checkSumFit checks the scale and weights of the sum model m's terms,
// and its latent points against kfda.Fit on the pairwise sum.
func checkSumFit(t *testing.T, m *Model, ref *sumReference) {
	k, n := m.Discriminant, len(m.Sets)
	if math.Abs(k.Terms[0].Scale-ref.med) > 1e-12*ref.med {
		t.Errorf("hg scale %v, median H² %v", k.Terms[0].Scale, ref.med)
	}
	want := mat.NewSymDense(n, nil)
	for term := range 3 {
		var diag float64
		for i := range n {
			diag += ref.pair(term, m.Sets[i].Samples, m.Sets[i].Samples, 0)
		}
		w := float64(n) / diag
		if math.Abs(k.Terms[term].Weight-w) > 1e-9*w {
			t.Errorf("term %d: weight %v, want %v", term, k.Terms[term].Weight, w)
		}
		for i := range n {
			for j := i; j < n; j++ {
				want.SetSym(i, j, want.At(i, j)+w*ref.pair(term, m.Sets[i].Samples, m.Sets[j].Samples, ref.h2.At(i, j)))
			}
		}
	}
	labels, classes := ClassIndex(m.Labels())
	f, err := kfda.Fit(want, labels, len(classes), 1e-2, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for c := range k.Dim() {
			if got, w := k.Solution.Train.At(i, c), f.Train.At(i, c); math.Abs(got-w) > 1e-8*math.Max(1, math.Abs(w)) {
				t.Fatalf("latent (%d, %d) = %v, kfda.Fit on the pairwise sum %v", i, c, got, w)
			}
		}
	}
}

// match matches batch with mt, the matcher of the sum model m, and
// returns the result and, for each gallery set j of m, the three terms'
// kernels (unweighted) of the batch with set j, computed pair by pair, the
// divergence at the result's bandwidth.
func (r *sumReference) match(t *testing.T, mt *Matcher, m *Model, batch *mat.Dense) (Result, [][3]float64) {
	t.Helper()
	res, err := mt.Match(batch)
	if err != nil {
		t.Fatal(err)
	}
	q, err := match.NewKDE(batch, res.Bandwidth)
	if err != nil {
		t.Fatal(err)
	}
	terms := make([][3]float64, len(m.Sets))
	for j, s := range m.Sets {
		d, err := match.Compare(q, r.kde[j])
		if err != nil {
			t.Fatal(err)
		}
		for term := range 3 {
			terms[j][term] = r.pair(term, batch, s.Samples, d.Hellinger2)
		}
	}
	return res, terms
}

// checkSumMatch checks that the sum model m recognises batches of each
// class, at the latent point of the batch's kernel vector computed pair
// by pair through its discriminant.
func checkSumMatch(t *testing.T, m *Model, ref *sumReference) {
	k, n := m.Discriminant, len(m.Sets)
	mt := mustMatcher(t, m)
	rng := rand.New(rand.NewPCG(9, 1))
	for c := range 3 {
		batch := spreadSet(rng, 10, 5, c)
		res, terms := ref.match(t, mt, m, batch)
		kv := make([]float64, n)
		for j := range m.Sets {
			for term := range 3 {
				kv[j] += k.Terms[term].Weight * terms[j][term]
			}
		}
		z, err := k.Solution.TransformRow(kv)
		if err != nil {
			t.Fatal(err)
		}
		for c, v := range z {
			if math.Abs(res.Latent[c]-v) > 1e-8*math.Max(1, math.Abs(v)) {
				t.Errorf("batch %d: latent %v, pairwise %v", c, res.Latent, z)
				break
			}
		}
		if want := string(rune('a' + c)); res.Decision.Label != want || len(res.Divergences) != n || !(res.Bandwidth > 0) {
			t.Errorf("batch of class %s: label %q, %d divergences, bandwidth %v", want, res.Decision.Label, len(res.Divergences), res.Bandwidth)
		}
	}
}

// TestSumKernelDistances: the distance the kernel of a sum induces from
// a batch to each gallery set, √(k(q,q) + k(j,j) − 2k(q,j)), which its
// open set is decided by, weighs every term by its weight in all three
// kernels, computed here pair by pair: with the weights the fit gave (1
// for the term on divergences, whose kernel with itself is 1) and with
// another weight on that term, which a file may hold.
func TestSumKernelDistances(t *testing.T) {
	for _, hg := range []float64{0, 2.5} {
		m := sumModel(t)
		k, n := m.Discriminant, len(m.Sets)
		if hg != 0 {
			k.Terms[0].Weight = hg
		}
		ref := newSumReference(t, m)
		mt := mustMatcher(t, m)
		rng := rand.New(rand.NewPCG(9, 2))
		for c := range 3 {
			batch := spreadSet(rng, 10, 5, c)
			res, terms := ref.match(t, mt, m, batch)
			if len(res.KernelDistances) != n {
				t.Fatalf("weight %v: %d kernel distances for %d sets", hg, len(res.KernelDistances), n)
			}
			var self float64
			for term := range 3 {
				self += k.Terms[term].Weight * ref.pair(term, batch, batch, 0)
			}
			for j, s := range m.Sets {
				var kqj, kjj float64
				for term := range 3 {
					w := k.Terms[term].Weight
					kqj += w * terms[j][term]
					kjj += w * ref.pair(term, s.Samples, s.Samples, 0)
				}
				want := math.Sqrt(math.Max(0, self+kjj-2*kqj))
				if got := res.KernelDistances[j]; math.Abs(got-want) > 1e-8*math.Max(1, want) {
					t.Errorf("weight %v, batch of class %d, set %d: kernel distance %v, pairwise %v", hg, c, j, got, want)
				}
			}
		}
	}
}

// TestSumWithoutDivergences: a sum without a term on divergences builds
// no KDE of the batch.
func TestSumWithoutDivergences(t *testing.T) {
	m := setKernelModel(t, string(method.KernelGDA))
	m.Discriminant, m.Selection = nil, Selection{}
	if _, err := fitTerms(m, sumTerms()[1:], 1e-2, 0, 2); err != nil {
		t.Fatal(err)
	}
	mt := mustMatcher(t, m)
	res, err := mt.MatchContext(context.Background(), spreadSet(rand.New(rand.NewPCG(3, 3)), 10, 5, 1))
	if err != nil || res.Divergences != nil || res.Bandwidth != 0 || m.Discriminant.UsesDivergences() {
		t.Errorf("gda + cdl: %v, %d divergences, bandwidth %v", err, len(res.Divergences), res.Bandwidth)
	}
}

// TestSumInvalid: sums that are not well formed are refused by Validate
// (a file could hold them; deploy's fit refuses to make them).
func TestSumInvalid(t *testing.T) {
	for name, edit := range map[string]func(k *Discriminant){
		"one term":    func(k *Discriminant) { k.Terms = k.Terms[:1] },
		"zero weight": func(k *Discriminant) { k.Terms[1].Weight = 0 },
		"inf weight":  func(k *Discriminant) { k.Terms[0].Weight = math.Inf(1) },
		"nested":      func(k *Discriminant) { k.Terms[2] = Term{Kernel: string(method.KernelSum), Weight: 1} },
		"top width":   func(k *Discriminant) { k.Width = 2 },
		"terms of hg": func(k *Discriminant) { k.Kernel = string(method.KernelHG) },
		"single weight": func(k *Discriminant) {
			k.Kernel, k.Terms, k.Term = string(method.KernelHG), nil, sumTerms()[0]
			k.Weight = 1
		},
	} {
		bad := sumModel(t)
		edit(bad.Discriminant)
		if err := bad.Validate(); err == nil {
			t.Errorf("%s: valid", name)
		}
	}
}

// TestFormat4Sums: a sum round-trips with its terms and weights; a
// format 3 file cannot hold one; bad terms in a file are refused.
func TestFormat4Sums(t *testing.T) {
	m := sumModel(t)
	got, good := mfRoundTrip(t, m)
	if len(got.Discriminant.Terms) != 3 {
		t.Fatalf("%d terms read back", len(got.Discriminant.Terms))
	}
	for i, tm := range got.Discriminant.Terms {
		if tm != m.Discriminant.Terms[i] {
			t.Errorf("term %d: %+v, wrote %+v", i, tm, m.Discriminant.Terms[i])
		}
	}
	v3 := bytes.Clone(good)
	binary.LittleEndian.PutUint32(v3[8:12], 3)
	mfDecodeErr(t, "sum in format 3", mfReseal(v3), ErrMalformed, "sums of kernels came with format 4")
	mfDecodeErr(t, "negative weight", mfEditHeader(t, good, `"p":2,"weight":0.5`, `"p":2,"weight":-0.5`), ErrInvalidModel, "term 1 (gda): weight -0.5")
	mfDecodeErr(t, "unknown term", mfEditHeader(t, good, `"kernel":"gda"`, `"kernel":"xyz"`), ErrInvalidModel, `unknown kernel "xyz"`)
	mfDecodeErr(t, "sum without terms", mfEditHeader(t, good, `"terms":[`, `"no_terms":[`), ErrInvalidModel, "a sum of 0 kernels")
}
