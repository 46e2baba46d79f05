package devicetest

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/device/spool"
	"setmatch/features"
	"setmatch/learn"
	"setmatch/match"
	"setmatch/model"
	"setmatch/synth"
)

// The image model: trained as setmatch train --features ImageSpec does, on
// synthetic image sets (synth.ImageOptions) of the classes ImageLabels,
// ImageTrainSets sets each. Sets from ImageTrainSets on are fresh probes.
const (
	ImageSpec      = "lbp:4x4@64x64"
	ImageTrainSets = 3
)

// ImageLabels are the labels of the image model's classes, in class order.
var ImageLabels = []string{"brick", "cloth", "grass", "wood"}

// ImageOptions are the synthetic frames of the image model: 96×72 grey
// frames, 10 per set.
var ImageOptions = synth.ImageOptions{Classes: 4, Frames: 10, W: 96, H: 72, Seed: 3}

// ImageSet returns the frames of set s of the class of label.
func ImageSet(t testing.TB, label string, s int) []*image.Gray {
	t.Helper()
	for c, l := range ImageLabels {
		if l == label {
			frames, err := ImageOptions.ImageSet(c, s)
			if err != nil {
				t.Fatal(err)
			}
			return frames
		}
	}
	t.Fatalf("no image class %q", label)
	return nil
}

// ImageModel trains the image model: features of the training sets by the
// pipeline ImageSpec, a d = 4 projection learned by learn.Train (15
// iterations), closed set, the pipeline recorded in the model.
func ImageModel(t testing.TB) *model.Model {
	t.Helper()
	p, err := features.Parse(ImageSpec)
	if err != nil {
		t.Fatal(err)
	}
	fit := features.Fitted{Pipeline: p}
	var sets []*mat.Dense
	var classes []int
	var labels, names []string
	for c, l := range ImageLabels {
		for s := range ImageTrainSets {
			x, err := fit.Apply(ImageSet(t, l, s))
			if err != nil {
				t.Fatal(err)
			}
			sets = append(sets, x)
			classes = append(classes, c)
			labels = append(labels, l)
			names = append(names, fmt.Sprintf("s%03d", s))
		}
	}
	res, err := learn.Train(sets, classes, learn.TrainOptions{Dim: 4, Divergence: match.Hellinger, MaxIter: 15})
	if err != nil {
		t.Fatal(err)
	}
	m, err := res.Model(labels, names, math.Inf(1), model.Meta{Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Tool: "device test", Data: "synthetic images", Params: map[string]string{"features": ImageSpec}})
	if err != nil {
		t.Fatal(err)
	}
	m.Features = &fit
	return m
}

// WriteImageModel trains the image model and writes it to path.
func WriteImageModel(t testing.TB, path string) {
	t.Helper()
	if err := model.WriteFile(path, ImageModel(t)); err != nil {
		t.Fatal(err)
	}
}

// EncodeFrame returns img as a PNG, or a JPEG (quality 90) when ext is
// ".jpg" or ".jpeg".
func EncodeFrame(t testing.TB, img image.Image, ext string) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch ext {
	case ".jpg", ".jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	default:
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// WriteBurstTmp writes files (name → content; a name may hold a slash, for
// a sub-directory) into the spool's tmp/name/ and returns that directory.
func (f *Fixture) WriteBurstTmp(t testing.TB, name string, files map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(f.Spool, spool.DirTmp, name)
	if err := os.MkdirAll(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o770); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// DropBurst writes frames as an image burst the way a camera does: into
// tmp/name/ as f000.ext, f001.ext, …, then one rename() into new/name.
func (f *Fixture) DropBurst(t testing.TB, name string, frames []*image.Gray, ext string) {
	t.Helper()
	files := map[string][]byte{}
	for i, img := range frames {
		files[fmt.Sprintf("f%03d%s", i, ext)] = EncodeFrame(t, img, ext)
	}
	f.RenameIn(t, f.WriteBurstTmp(t, name, files))
}

// RenameIn renames tmp/NAME (a file or a burst directory) into new/NAME.
func (f *Fixture) RenameIn(t testing.TB, tmp string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(f.Spool, spool.DirNew), 0o770); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.Spool, spool.DirNew, filepath.Base(tmp))); err != nil {
		t.Fatal(err)
	}
}
