package model

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"setmatch/match"
	"setmatch/method"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// setKernelModel returns a model of 9 gallery sets in 3 classes whose
// frames differ by class in their spread along the axes, so that both set
// kernels separate them, decided by kFDA on kernel (gda or cdl).
func setKernelModel(t testing.TB, kernel string) *Model {
	t.Helper()
	m := mfModel(7, 5, 5, nil)
	rng := rand.New(rand.NewPCG(8, 1))
	for i := range 9 {
		x := spreadSet(rng, 12, 5, i%3)
		m.Sets = append(m.Sets, Set{Label: string(rune('a' + i%3)), Name: string(rune('0' + i)), Samples: x, Bandwidth: 1})
	}
	m.W = mat.NewDense(5, 5, nil)
	for j := range 5 {
		m.W.Set(j, j, 1)
	}
	m.Mean = make([]float64, 5)
	p, lambda := 0, 0.0
	if kernel == string(method.KernelGDA) {
		p = 2
	} else {
		lambda = 0.01
	}
	if _, err := fitSetKernel(m, kernel, p, lambda, 1e-2, 0, 2); err != nil {
		t.Fatal(err)
	}
	m.Threshold = math.Inf(1)
	return m
}

// spreadSet returns n frames spread mostly along axis c (and c+1) of d.
func spreadSet(rng *rand.Rand, n, d, c int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			s := 0.1
			if j == c || j == c+1 {
				s = 2
			}
			x.Set(i, j, s*rng.NormFloat64())
		}
	}
	return x
}

// TestSetKernelMatcher: the matcher's kernel vector is the gallery's
// (setkernel.Gallery), and batches of each class are recognised.
func TestSetKernelMatcher(t *testing.T) {
	for _, kernel := range []string{string(method.KernelGDA), string(method.KernelCDL)} {
		t.Run(kernel, func(t *testing.T) {
			m := setKernelModel(t, kernel)
			if m.MethodName() != kernel {
				t.Errorf("method %q, want %q", m.MethodName(), kernel)
			}
			g, err := m.Discriminant.Term.Gallery(m.Samples(), 3)
			if err != nil {
				t.Fatal(err)
			}
			mt := mustMatcher(t, m)
			rng := rand.New(rand.NewPCG(9, 1))
			for c := range 3 {
				batch := spreadSet(rng, 10, 5, c)
				want, wantSelf, err := g.Vector(context.Background(), batch, 2)
				if err != nil {
					t.Fatal(err)
				}
				k, self, err := mt.kernelVector(context.Background(), batch, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !mfSameFloats(k, want) || self != wantSelf {
					t.Errorf("matcher's kernel vector %v (self %v), the gallery's %v (%v)", k, self, want, wantSelf)
				}
				res, err := mt.Match(batch)
				if err != nil {
					t.Fatal(err)
				}
				if want := string(rune('a' + c)); res.Decision.Label != want || res.Divergences != nil || len(res.Distances) != len(m.Sets) {
					t.Errorf("batch of class %s: label %q, %d divergences, %d latent distances", want, res.Decision.Label, len(res.Divergences), len(res.Distances))
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := mt.MatchContext(ctx, spreadSet(rng, 10, 5, 0)); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled match: %v", err)
			}
		})
	}
}

func TestSetKernelOneFrameBatch(t *testing.T) {
	mt, err := setKernelModel(t, string(method.KernelCDL)).NewMatcher()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mt.Match(mat.NewDense(1, 5, []float64{1, 2, 3, 4, 5})); err == nil || !strings.Contains(err.Error(), "at least 2 frames") {
		t.Errorf("one-frame batch: %v", err)
	}
}

// TestFormat3SetKernels: set-kernel models round-trip; their parameters
// are checked; a format 2 file cannot hold them.
func TestFormat3SetKernels(t *testing.T) {
	for _, kernel := range []string{string(method.KernelGDA), string(method.KernelCDL)} {
		m := setKernelModel(t, kernel)
		got, good := mfRoundTrip(t, m)
		if got.Discriminant.P != m.Discriminant.P || got.Discriminant.Lambda != m.Discriminant.Lambda {
			t.Fatalf("%s: round trip gives p %d, lambda %v", kernel, got.Discriminant.P, got.Discriminant.Lambda)
		}
		v2 := bytes.Clone(good)
		binary.LittleEndian.PutUint32(v2[8:12], 2)
		mfDecodeErr(t, kernel+" in format 2", mfReseal(v2), ErrMalformed, "set kernels came with format 3")
	}
	gda := mfEncode(t, setKernelModel(t, string(method.KernelGDA)))
	cdl := mfEncode(t, setKernelModel(t, string(method.KernelCDL)))
	mfDecodeErr(t, "gda p 0", mfEditHeader(t, gda, `"p":2`, `"p":0`), ErrInvalidModel, "subspace dimension p = 0")
	mfDecodeErr(t, "gda with lambda", mfEditHeader(t, gda, `"p":2`, `"p":2,"lambda":1`), ErrInvalidModel, "lambda 1 (want none)")
	mfDecodeErr(t, "cdl lambda negative", mfEditHeader(t, cdl, `"lambda":0.01`, `"lambda":-1`), ErrInvalidModel, "lambda = -1")
	mfDecodeErr(t, "cdl method nn", mfEditHeader(t, cdl, `"method":"cdl"`, `"method":"nn-h"`), ErrInvalidModel, "not a kFDA method")
	mfDecodeErr(t, "hg with p", mfEditHeader(t, cdl, `"kernel":"cdl"`, `"kernel":"hg"`), ErrInvalidModel, "kernel hg has no subspace dimension")
}

// TestSetKernelBandwidthOnlyRecorded: a model on a set kernel builds no
// KDE, so the bandwidth it records for its sets and batches may be of any
// finite scale (features around 1e150 give one beyond what a KDE takes):
// it is valid, written and read back, and decides. A model that builds
// KDEs refuses the same bandwidths.
func TestSetKernelBandwidthOnlyRecorded(t *testing.T) {
	for _, kernel := range []string{string(method.KernelGDA), string(method.KernelCDL)} {
		m := setKernelModel(t, kernel)
		for i := range m.Sets {
			m.Sets[i].Bandwidth = 3e200
		}
		m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: 3e200}
		var buf bytes.Buffer
		if err := Encode(&buf, m); err != nil {
			t.Fatalf("%s: %v", kernel, err)
		}
		r, err := Decode(&buf)
		if err != nil {
			t.Fatalf("%s: reading back: %v", kernel, err)
		}
		if h, err := r.SetBandwidth(m.Sets[0].Samples); h != 3e200 || err != nil {
			t.Errorf("%s: SetBandwidth = %v, %v; want the recorded 3e200", kernel, h, err)
		}
		mt := mustMatcher(t, r)
		if _, err := mt.Match(m.Sets[0].Samples); err != nil {
			t.Errorf("%s: %v", kernel, err)
		}
		// A rule's scale beyond any a KDE could use is only recorded too.
		wide := *r
		wide.QueryBandwidth = match.BandwidthRule{Kind: match.NearestNeighbour, Scale: 1e308}
		if err := wide.Validate(); err != nil {
			t.Errorf("%s: query bandwidth %s: %v", kernel, wide.QueryBandwidth, err)
		}
		// and its bandwidth of a set, beyond what a KDE takes, is given
		// as the rule makes it (enroll's of a set it adds).
		wide.QueryBandwidth.Scale = 1e200
		h0 := match.MedianNearestNeighbour(m.Sets[0].Samples)
		if h, err := wide.SetBandwidth(m.Sets[0].Samples); err != nil || h != h0*1e200 {
			t.Errorf("%s: SetBandwidth by %s = %v, %v; want %v", kernel, wide.QueryBandwidth, h, err, h0*1e200)
		}
		for _, inf := range []float64{math.Inf(1), 0} {
			k := *m
			k.Sets = append([]Set(nil), m.Sets...)
			k.Sets[0].Bandwidth = inf
			if err := k.Validate(); err == nil || !strings.Contains(err.Error(), "want a finite number > 0") {
				t.Errorf("%s: bandwidth %v: error %v", kernel, inf, err)
			}
		}
	}
	m := mfModel(3, 8, 3, []int{5, 2, 7})
	m.QueryBandwidth = match.BandwidthRule{Kind: match.Fixed, Fixed: 3e200}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "outside 1e-150 to 1e+150") {
		t.Errorf("a model with KDEs, fixed bandwidth 3e200: error %v", err)
	}
}

// TestSetKernelMatcherNamesTheSet: a model file (hand-made: a gallery set
// ×1e160 after fitting) whose set kernel cannot be computed on one set is
// read, and NewMatcher's error names the set by its label and name
// (class/set), where it said "gallery set 4".
func TestSetKernelMatcherNamesTheSet(t *testing.T) {
	for _, kernel := range []string{string(method.KernelGDA), string(method.KernelCDL)} {
		m := setKernelModel(t, kernel)
		s := m.Sets[4]
		s.Samples.Scale(1e160, s.Samples)
		read, err := Decode(bytes.NewReader(mfEncode(t, m)))
		if err != nil {
			t.Fatalf("%s: reading the model: %v", kernel, err)
		}
		_, err = read.NewMatcher()
		if want := "gallery set " + s.Label + "/" + s.Name + ": "; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%s: error %v, want it to name the set (%q)", kernel, err, want)
		}
	}
}
