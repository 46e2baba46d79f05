package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/features"
	"setmatch/model"
	"setmatch/setfile"
)

// imageData writes a data set of image sets: 2 classes × 2 sets × 5 frames
// of w×h pixels, PNG and JPEG mixed, and returns its folder.
func imageData(t *testing.T, w, h int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "images")
	for c := range 2 {
		for s := range 2 {
			set := filepath.Join(dir, fmt.Sprintf("class%d", c), fmt.Sprintf("set%d", s))
			if err := os.MkdirAll(set, 0o755); err != nil {
				t.Fatal(err)
			}
			for k := range 5 {
				img := image.NewRGBA(image.Rect(0, 0, w, h))
				for y := range h {
					for x := range w {
						// class 0: horizontal stripes, class 1: vertical; sets and frames shift them.
						u := y
						if c == 1 {
							u = x
						}
						v := uint8(128 + 100*math.Sin(float64(u+3*s+k)/(2+float64(c))) + float64((x*7+y*13+k)%11))
						img.Set(x, y, color.RGBA{v, v / 2, 255 - v, 255})
					}
				}
				var b bytes.Buffer
				name := fmt.Sprintf("frame%02d.png", k)
				var err error
				if k%2 == 1 {
					name = fmt.Sprintf("frame%02d.jpg", k)
					err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 85})
				} else {
					err = png.Encode(&b, img)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(set, name), b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return dir
}

func maxAbsDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) // max row sum ≥ max entry; 0 only if equal
}

// extractEach returns the features of the frames of the set folder dir,
// each decoded (features.DecodeImageFile) and extracted on its own, in
// name order: the matrix the per-set reader must equal.
func extractEach(t *testing.T, p features.Pipeline, dir string) *mat.Dense {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var x *mat.Dense
	for i, e := range es {
		img, err := features.DecodeImageFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Extract(img)
		if err != nil {
			t.Fatal(err)
		}
		if x == nil {
			x = mat.NewDense(len(es), len(v), nil)
		}
		x.SetRow(i, v)
	}
	return x
}

// The .npy that `setmatch features` writes equals the matrix training reads
// for the same set, and training's projected gallery is those features
// projected by the model's W.
func TestFeaturesCommandMatchesTraining(t *testing.T) {
	data := imageData(t, 40, 30)
	for _, spec := range []string{"lbp:2x2@32x32", "intensity:20x20"} {
		out := filepath.Join(t.TempDir(), "out")
		sets := []string{
			filepath.Join(data, "class0", "set0"), filepath.Join(data, "class0", "set1"),
			filepath.Join(data, "class1", "set0"), filepath.Join(data, "class1", "set1"),
		}
		// Only distinct names can share an output folder: one class at a time.
		for c := range 2 {
			code, stdout, stderr := run("features", "--features", spec, sets[2*c], sets[2*c+1], "--out", filepath.Join(out, fmt.Sprintf("class%d", c)))
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s", spec, code, stderr)
			}
			if !strings.Contains(stdout, "5 frames") {
				t.Errorf("stdout: %s", stdout)
			}
		}

		// The training path: what train.go gives dataset.Load.
		p, err := features.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		opt := dataset.Options{Limits: setfile.DefaultLimits(), Images: features.Fitted{Pipeline: p}.ImageSetReader()}
		ds, err := dataset.Load(data, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ds.Sets {
			got, err := setfile.ReadFile(filepath.Join(out, s.Class, s.Name+".npy"), setfile.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(got, s.Frames); d > 1e-12 {
				t.Errorf("%s %s/%s: .npy differs from training's matrix by %g", spec, s.Class, s.Name, d)
			} else if !mat.Equal(got, s.Frames) {
				t.Logf("%s %s/%s: equal to %g, not bit for bit", spec, s.Class, s.Name, d)
			}
			// And one Extract per file, the frames in name order.
			if !mat.Equal(got, extractEach(t, p, s.Path)) {
				t.Errorf("%s %s/%s: .npy differs from the per-file extraction", spec, s.Class, s.Name)
			}
		}

		// Train on the images and check that the model's gallery is the
		// .npy features centred and projected by its W.
		mpath := filepath.Join(t.TempDir(), "m.smm")
		code, _, stderr := run("train", "--method", "learned", "--data", data, "--features", spec, "--dim", "2", "--max-iter", "3", "--out", mpath)
		if code != 0 {
			t.Fatalf("train: exit %d\n%s", code, stderr)
		}
		m, _, err := model.ReadFile(mpath)
		if err != nil {
			t.Fatal(err)
		}
		for _, ms := range m.Sets {
			x, err := setfile.ReadFile(filepath.Join(out, ms.Label, ms.Name+".npy"), setfile.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			n, D := x.Dims()
			c := mat.NewDense(n, D, nil)
			for r := range n {
				for j := range D {
					c.Set(r, j, x.At(r, j)-m.Mean[j])
				}
			}
			var y mat.Dense
			y.Mul(c, m.W)
			if d := maxAbsDiff(&y, ms.Samples); d > 1e-12 {
				t.Errorf("%s %s/%s: model samples differ from the projected .npy by %g", spec, ms.Label, ms.Name, d)
			}
		}

		// --model: the model records the pipeline, and gives the same features.
		if m.Features == nil || m.Features.Name() != spec {
			t.Fatalf("%s: the model records the pipeline %v", spec, m.Features)
		}
		viaModel := filepath.Join(t.TempDir(), "via-model")
		code, _, stderr = run("features", "--model", mpath, "--out", viaModel, sets[0])
		if code != 0 {
			t.Fatalf("--model: exit %d\n%s", code, stderr)
		}
		a, err := setfile.ReadFile(filepath.Join(viaModel, "set0.npy"), setfile.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		b, err := setfile.ReadFile(filepath.Join(out, "class0", "set0.npy"), setfile.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(a, b) {
			t.Errorf("%s: features by the model's pipeline differ from --features %s", spec, spec)
		}
	}
}

// A pca stage is fitted on the training frames, recorded in the model, and
// applied by `setmatch features --model`; a model trained on feature files
// records no pipeline and says so.
func TestTrainRecordsFittedPCA(t *testing.T) {
	data := imageData(t, 40, 30)
	mpath := filepath.Join(t.TempDir(), "m.smm")
	code, _, stderr := run("train", "--method", "learned", "--data", data, "--features", "intensity:8x8+pca:6", "--dim", "2", "--max-iter", "3", "--out", mpath)
	if code != 0 {
		t.Fatalf("train: exit %d\n%s", code, stderr)
	}
	m, _, err := model.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	if m.Features == nil || m.Features.PCA == nil || m.InputDim() != 6 || m.Features.PCA.InputDim() != 64 {
		t.Fatalf("model takes %d features, records %+v", m.InputDim(), m.Features)
	}
	out := filepath.Join(t.TempDir(), "out")
	set := filepath.Join(data, "class1", "set0")
	if code, _, stderr := run("features", "--model", mpath, "--out", out, set); code != 0 {
		t.Fatalf("features --model: exit %d\n%s", code, stderr)
	}
	x, err := setfile.ReadFile(filepath.Join(out, "set0.npy"), setfile.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	// The projected features of the set are its gallery samples.
	y, err := m.Project(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Sets {
		if s.Label == "class1" && s.Name == "set0" {
			if d := maxAbsDiff(y, s.Samples); d > 1e-9 {
				t.Errorf("gallery set class1/set0 differs from its features through the model by %g", d)
			}
			return
		}
	}
	t.Error("no gallery set class1/set0")
}

func TestFeaturesCommandErrors(t *testing.T) {
	data := imageData(t, 16, 12)
	set := filepath.Join(data, "class0", "set0")
	out := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(filepath.Join(bad, "nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--out", out, set}, 2, "exactly one of --model MODEL and --features SPEC"},
		{[]string{"--features", "lbp:2x2", "--model", "m.smm", "--out", out, set}, 2, "exactly one of"},
		{[]string{"--features", "lbp:2x2", set}, 2, "--out DIR is required"},
		{[]string{"--features", "lbp:2x2", "--out", out}, 2, "at least one input set"},
		{[]string{"--features", "lbp:9", "--out", out, set}, 2, "bad feature spec"},
		{[]string{"--features", "intensity:8x8+pca:4", "--out", out, set}, 2, "only a model can supply it"},
		{[]string{"--features", "lbp:2x2", "--out", out, set, filepath.Join(data, "class1", "set0")}, 2, "would both be written as set0.npy"},
		{[]string{"--features", "lbp:2x2", "--out", out, "--max-frames", "0", set}, 2, "must be positive"},
		{[]string{"--features", "lbp:2x2", "--out", out, "--max-frames", "3", set}, 1, "more than 3 entries"},
		{[]string{"--features", "lbp:2x2", "--out", out, bad}, 1, "bad holds folders (nested), not frame images: a set is one folder of frames: give the set folders themselves"},
		{[]string{"--features", "lbp:2x2", "--out", out, filepath.Join(data, "missing")}, 1, "input set:"},
		{[]string{"--model", filepath.Join(data, "class0", "set0", "frame00.png"), "--out", out, set}, 1, "not a setmatch model file"},
	}
	for _, c := range cases {
		code, _, stderr := run(append([]string{"features"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want %d with %q\n%s", c.args, code, c.code, c.want, stderr)
		}
	}
	// "--" ends the flags: a set folder may start with a dash.
	parent := t.TempDir()
	if err := os.CopyFS(filepath.Join(parent, "-odd"), os.DirFS(set)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(parent)
	if code, _, stderr := run("features", "--features", "hist:8", "--out", out, "--", "-odd"); code != 0 {
		t.Errorf("--: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "-odd.npy")); err != nil {
		t.Error(err)
	}
}

// TestFeaturesOutChecks: an --out that is an input set folder, or inside
// one, is a usage error, and the set is left as it was (its features
// written among its frames, it no longer reads as a set); a data set's
// root, notes beside its folders, gets the advice of a folder of sets,
// not the burst reader's complaint about its README.md; a folder where an
// output file goes is named as in the way. No failed run leaves an --out
// behind it made.
func TestFeaturesOutChecks(t *testing.T) {
	data := imageData(t, 16, 12)
	if err := os.WriteFile(filepath.Join(data, "README.md"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(data, "class0", "set0")
	frames, err := os.ReadDir(set)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	inTheWay := filepath.Join(tmp, "way")
	if err := os.MkdirAll(filepath.Join(inTheWay, "set0.npy"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	npys := filepath.Join(tmp, "npys")
	if err := os.Mkdir(npys, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(npys, "a.csv"), []byte("1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		out  string
		ins  []string
		code int
		want string
	}{
		{"out is the set", set, []string{set}, 2, "--out " + set + " is the input set " + set + ": "},
		{"out in the set", filepath.Join(set, "feats"), []string{set}, 2, "is inside the input set " + set + ": "},
		{"out is the set, spelt otherwise", set + string(filepath.Separator) + ".", []string{filepath.Join(data, "class1", "set1"), filepath.Join(data, "class0", ".", "set0")}, 2, "is the input set"},
		{"data set root", filepath.Join(tmp, "fo"), []string{data}, 1, data + " holds folders (class0, class1), not frame images: a set is one folder of frames: give the set folders themselves"},
		{"root after a good set", filepath.Join(tmp, "fo", "x"), []string{filepath.Join(data, "class1", "set1"), data}, 1, "give the set folders themselves"},
		{"empty set", filepath.Join(tmp, "fo"), []string{empty}, 1, empty + " is an empty folder"},
		{"a set of feature files", filepath.Join(tmp, "fo"), []string{npys}, 1, npys + " is a folder of feature files, not of frame images: a set of features is one file"},
		{"too many frames", filepath.Join(tmp, "fo"), []string{"--max-frames", "3", set}, 1, "send fewer frames or raise the frame limit (the limits: --max-frames 3, --max-pixels "},
		{"too large a file", filepath.Join(tmp, "fo"), []string{"--max-file-bytes", "10", set}, 1, "send smaller frames (e.g. JPEG) or raise the limit (the limits: --max-frames 256, --max-pixels 12582912, --max-file-bytes 10)"},
		{"too many pixels", filepath.Join(tmp, "fo"), []string{"--max-pixels", "10", set}, 1, "more than 10 pixels (the limits: --max-frames 256, --max-pixels 10, --max-file-bytes "},
		{"a folder in the way", inTheWay, []string{set}, 1, filepath.Join(inTheWay, "set0.npy") + " is a folder, in the way of the features of " + set},
	} {
		code, stdout, stderr := run(append([]string{"features", "--features", "intensity:4x4", "--out", c.out}, c.ins...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d with %q", c.name, code, stdout, stderr, c.code, c.want)
		}
		if strings.Contains(stderr, "not a frame image") || strings.Contains(stderr, "file exists") {
			t.Errorf("%s: %q", c.name, stderr)
		}
		if c.out != inTheWay {
			if _, err := os.Lstat(c.out); !os.IsNotExist(err) && !strings.HasPrefix(c.out, set) {
				t.Errorf("%s: the failed run left %s (%v)", c.name, c.out, err)
			}
		}
		if _, err := os.Lstat(filepath.Join(tmp, "fo")); !os.IsNotExist(err) {
			t.Errorf("%s: the failed run left %s", c.name, filepath.Join(tmp, "fo"))
		}
		if now, err := os.ReadDir(set); err != nil || len(now) != len(frames) {
			t.Fatalf("%s: the input set holds %d entries, had %d (%v)", c.name, len(now), len(frames), err)
		}
	}
	// The set still reads as one.
	if code, _, stderr := run("features", "--features", "intensity:4x4", "--out", filepath.Join(tmp, "ok"), set); code != 0 {
		t.Errorf("the set after the refusals: exit %d: %s", code, stderr)
	}
}
