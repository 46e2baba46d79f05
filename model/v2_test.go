package model

import (
	"bytes"
	"encoding/binary"
	"image"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/features"
)

// mfEditHeader replaces old by repl in the JSON header of the model file b
// and returns the file with the new header length and checksum.
func mfEditHeader(t *testing.T, b []byte, old, repl string) []byte {
	t.Helper()
	h := binary.LittleEndian.Uint64(b[12:20])
	hdr := string(b[prefixLen : prefixLen+int(h)])
	if !strings.Contains(hdr, old) {
		t.Fatalf("header lacks %q", old)
	}
	hdr = strings.Replace(hdr, old, repl, 1)
	out := append([]byte(nil), b[:prefixLen]...)
	binary.LittleEndian.PutUint64(out[12:20], uint64(len(hdr)))
	out = append(out, hdr...)
	out = append(out, b[prefixLen+int(h):]...)
	return mfReseal(out)
}

func TestFormat2RoundTripAndChecks(t *testing.T) {
	m := hgModel(t)
	_, good := mfRoundTrip(t, m)
	for _, tc := range []struct {
		what, old, repl string
		kind            error
		want            string
	}{
		{"latent dim too large", `"latent_dim":2`, `"latent_dim":6`, ErrMalformed, "kfda latent dimension 6 for 6 gallery sets"},
		{"latent dim huge", `"latent_dim":2`, `"latent_dim":4000000000000`, ErrMalformed, "kfda latent dimension"},
		{"latent dim shifts data", `"latent_dim":2`, `"latent_dim":3`, ErrMalformed, "need more numbers than"},
		{"pipeline longer than file", `"features_bytes":`, `"features_bytes":99999999,"x":`, ErrMalformed, "gives the feature pipeline 99999999 bytes"},
		{"negative pipeline", `"features_bytes":`, `"features_bytes":-1,"x":`, ErrMalformed, "-1 bytes"},
		{"spec disagrees", `"features":"intensity:4x4+pca:6"`, `"features":"intensity:5x5+pca:6"`, ErrMalformed, "names the feature pipeline"},
		{"unknown kernel", `"kernel":"hg"`, `"kernel":"rbf"`, ErrInvalidModel, `unknown kernel "rbf"`},
		{"kernel on the other divergence", `"kernel":"hg"`, `"kernel":"j"`, ErrInvalidModel, "built on jeffrey"},
		{"nn method with kfda", `"method":"kfda-hg"`, `"method":"nn-h"`, ErrInvalidModel, "not a kFDA method"},
		// Without a method name the model would be shown (inspect, the
		// journal) as nn-h while it decides by kFDA.
		{"no method with kfda", `"method":"kfda-hg"`, `"method":""`, ErrInvalidModel, "names no kFDA method"},
		{"no selection with kfda", `"selection":`, `"x":`, ErrInvalidModel, "names no kFDA method"},
		{"accuracy above 1", `"cv_accuracy":0.75`, `"cv_accuracy":75`, ErrInvalidModel, "CV accuracy is 75"},
		{"bad width scale", `"width_scale":"median"`, `"width_scale":"mean"`, ErrInvalidModel, `width scale "mean"`},
		{"zero width", `"width":1,`, `"width":0,`, ErrInvalidModel, "width is 0"},
		{"unknown open set", `"open_set":"kernel"`, `"open_set":"distance"`, ErrInvalidModel, `open set "distance" (want kernel or latent)`},
		{"negative regulariser", `"reg":0.01,`, `"reg":-0.01,`, ErrInvalidModel, "regulariser is -0.01"},
		{"negative epsilon", `"epsilon":`, `"epsilon":-1,"x":`, ErrInvalidModel, "epsilon is -1"},
	} {
		mfDecodeErr(t, tc.what, mfEditHeader(t, good, tc.old, tc.repl), tc.kind, tc.want)
	}
	// A width and a scale each finite whose ratio, the kernel's width, is
	// not: exp(−∞·0) would make the kernel of a set with itself NaN.
	huge := mfEditHeader(t, mfEditHeader(t, good, `"width":1,`, `"width":1e300,`), `"scale":`, `"scale":1e-10,"x":`)
	mfDecodeErr(t, "width/scale overflows", huge, ErrInvalidModel, "width/scale = 1e+300/1e-10 is not a finite number > 0")

	// A kFDA method without a solution.
	nk := hgModel(t)
	nk.Discriminant = nil
	if err := nk.Validate(); err == nil || !strings.Contains(err.Error(), "needs a kFDA solution") {
		t.Errorf("kfda method without a solution: %v", err)
	}
	// A NaN coefficient is named.
	bad := hgModel(t)
	bad.Discriminant.Solution.Alpha.Set(1, 0, math.NaN())
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "coefficients[1, 0] is NaN") {
		t.Errorf("NaN coefficient: %v", err)
	}
	// At most one latent dimension fewer than the classes (3 here), in
	// arrays of consistent shapes.
	deep := hgModel(t)
	sol := &deep.Discriminant.Solution
	sol.Alpha, sol.Train = mat.NewDense(6, 3, nil), mat.NewDense(6, 3, nil)
	sol.Values = append(sol.Values, 0.5)
	if err := deep.Validate(); err == nil || !strings.Contains(err.Error(), "3 latent dimensions for 3 classes (at most 2)") {
		t.Errorf("as many latent dimensions as classes: %v", err)
	}
	// An eigenvalue for every latent dimension.
	few := hgModel(t)
	few.Discriminant.Solution.Values = few.Discriminant.Solution.Values[:1]
	if err := few.Validate(); err == nil || !strings.Contains(err.Error(), "1 eigenvalues for 2 latent dimensions") {
		t.Errorf("an eigenvalue missing: %v", err)
	}
	// The pipeline must give D features per frame.
	wide := hgModel(t)
	wide.W = mfOrtho(rand.New(rand.NewPCG(1, 1)), 7, 3)
	wide.Mean = make([]float64, 7)
	if err := wide.Validate(); err == nil || !strings.Contains(err.Error(), "gives 6 features per frame, the model takes 7") {
		t.Errorf("pipeline of the wrong width: %v", err)
	}
	// hog without a size gives as many features as the frames' size
	// makes: any number, until the training images' size is recorded.
	hog := hgModel(t)
	p, err := features.Parse("hog:4")
	if err != nil {
		t.Fatal(err)
	}
	hog.Features = &features.Fitted{Pipeline: p}
	if err := hog.Validate(); err != nil {
		t.Errorf("hog:4 without a size: %v", err)
	}
	hog.Features.FrameSize = image.Pt(8, 8)
	if err := hog.Validate(); err == nil || !strings.Contains(err.Error(), "pipeline hog:4 gives 36 features per frame, the model takes 6") {
		t.Errorf("hog:4 recorded at 8x8: %v", err)
	}
	// A format 1 reader's view: the format 2 fields are ignored in a
	// format 1 file.
	v1 := bytes.Clone(good)
	binary.LittleEndian.PutUint32(v1[8:12], 1)
	mfDecodeErr(t, "format 1 with format 2 data", mfReseal(v1), ErrMalformed, "")
}
