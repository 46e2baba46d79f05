package features

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"setmatch/internal/testutil"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/setfile"
)

// TestLoaderCheck: a data set read through Loader.Reader passes Check only
// where every set is an image set; feature files alone, or mixed with image
// sets, are refused with what to do. Fit refuses the same data.
func TestLoaderCheck(t *testing.T) {
	images := func(dir string, class string) {
		for s := range 2 {
			writeFiles(t, filepath.Join(dir, class, fmt.Sprintf("set%d", s)), map[string][]byte{
				"f0.pgm": encodePGM(randomGray(4, 4, uint64(s))),
				"f1.pgm": encodePGM(randomGray(4, 4, uint64(s)+10)),
			})
		}
	}
	files := func(dir string, class string) {
		for s := range 2 {
			path := filepath.Join(dir, class, fmt.Sprintf("set%d", s)+".npy")
			writeFiles(t, filepath.Dir(path), nil)
			if err := setfile.WriteFile(path, mat.NewDense(2, 16, nil)); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name string
		make func(dir string)
		want string // "" for no error
	}{
		{"images", func(dir string) { images(dir, "a"); images(dir, "b") }, ""},
		{"feature files", func(dir string) { files(dir, "a"); files(dir, "b") }, "are feature files (.npy or .csv), features already: leave --features out"},
		{"mixed", func(dir string) { images(dir, "a"); files(dir, "b") }, "mixes 2 image sets with 2 feature files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.make(dir)
			l, err := NewLoader("intensity:4x4")
			if err != nil {
				t.Fatal(err)
			}
			ds, err := dataset.Load(dir, dataset.Options{Images: l.Reader()})
			if err != nil {
				t.Fatal(err)
			}
			err = l.Check(ds)
			_, ferr := l.Fit(ds)
			for _, e := range []error{err, ferr} {
				if c.want == "" && e != nil {
					t.Errorf("error %v", e)
				}
				if c.want != "" && (e == nil || !strings.Contains(e.Error(), c.want)) {
					t.Errorf("error %v, want it to say %q", e, c.want)
				}
			}
		})
	}
}

// TestLoaderFrameLimits: the training loader reads a frame within the
// burst limits setmatchd applies the model to: a frame whose header
// declares more pixels (8192x8192, which the package-wide 2^26 would let
// through to be decoded) is refused from its header.
func TestLoaderFrameLimits(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"f0.pgm": encodePGM(randomGray(8, 8, 1)),
		"f1.png": pngHeaderClaiming(t, 8192, 8192),
	})
	l, err := NewLoader("lbp:2x2@32x32")
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Reader()([]string{filepath.Join(dir, "f0.pgm"), filepath.Join(dir, "f1.png")})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "PNG image is 8192x8192, more than 12582912 pixels") {
		t.Errorf("an 8192x8192 frame: %v, want it refused from its header", err)
	}
	if lim := FolderLimits(); lim.MaxPixels != DefaultBurstLimits().MaxPixels || lim.MaxFileBytes != DefaultBurstLimits().MaxFileBytes {
		t.Errorf("FolderLimits %+v: per frame, want the burst limits %+v", lim, DefaultBurstLimits())
	}
}

// TestLoaderRecordsFrameSize: a pipeline whose features are bound to the
// images' scale (lbp, hog without @WxH) records the size of the training
// images where they all had one, and none where they differ (whatever
// the order the sets were read in), where the pipeline resizes every
// image, or for a histogram of grey levels.
func TestLoaderRecordsFrameSize(t *testing.T) {
	testutil.CPUs(t, 8) // several workers on any machine
	write := func(dir, class string, w, h int) {
		for s := range 2 {
			writeFiles(t, filepath.Join(dir, class, fmt.Sprintf("set%d", s)), map[string][]byte{
				"f0.pgm": encodePGM(randomGray(w, h, uint64(s))),
				"f1.pgm": encodePGM(randomGray(w, h, uint64(s)+10)),
			})
		}
	}
	for _, c := range []struct {
		spec         string
		bw, bh       int // class b's images; class a's are 12x10
		wantW, wantH int
	}{
		{"lbp:2x2", 12, 10, 12, 10},
		{"hog:4+pca:2", 12, 10, 12, 10},
		{"lbp:2x2", 10, 12, 0, 0},
		{"lbp:2x2@8x8", 12, 10, 0, 0},
		{"intensity:4x4", 12, 10, 0, 0},
		{"hist:8", 12, 10, 0, 0},
	} {
		dir := t.TempDir()
		write(dir, "a", 12, 10)
		write(dir, "b", c.bw, c.bh)
		for _, workers := range []int{1, 4} {
			l, err := NewLoader(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := dataset.Load(dir, dataset.Options{Images: l.Reader(), Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			f, err := l.Fit(ds)
			if err != nil {
				t.Fatal(err)
			}
			if f.FrameSize.X != c.wantW || f.FrameSize.Y != c.wantH {
				t.Errorf("%s on 12x10 and %dx%d images (%d workers): training size %v, want %dx%d", c.spec, c.bw, c.bh, workers, f.FrameSize, c.wantW, c.wantH)
			}
		}
	}
}

// TestLoaderFrameSizeAsShown: the size a model records and the size of a
// frame held to it are both the size shown, after the turn a JPEG's EXIF
// orientation asks for: training on portrait shots stored on their side
// (32x40 with orientation 6, shown 40x32) records 40x32, a PNG of 40x32
// and the same shots are taken, and a JPEG stored 40x32 but turned to
// 32x40 is refused as 32x40.
func TestLoaderFrameSizeAsShown(t *testing.T) {
	dir := t.TempDir()
	for _, class := range []string{"a", "b"} {
		for s := range 2 {
			writeFiles(t, filepath.Join(dir, class, fmt.Sprintf("set%d", s)), map[string][]byte{
				"f0.jpg": exifJPEG(t, randomGray(32, 40, uint64(s)), 6, binary.BigEndian),
				"f1.jpg": exifJPEG(t, randomGray(32, 40, uint64(s)+10), 6, binary.LittleEndian),
			})
		}
	}
	l, err := NewLoader("lbp:2x2")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(dir, dataset.Options{Images: l.Reader(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	f, err := l.Fit(ds)
	if err != nil {
		t.Fatal(err)
	}
	if f.FrameSize != image.Pt(40, 32) {
		t.Fatalf("training on JPEGs of 32x40 shown as 40x32: recorded %v, want 40x32", f.FrameSize)
	}
	probe := t.TempDir()
	writeFiles(t, probe, map[string][]byte{
		"png.png":     encodePNG(t, randomGray(40, 32, 1)),
		"shown.jpg":   exifJPEG(t, randomGray(32, 40, 2), 6, binary.BigEndian),
		"turned.jpg":  exifJPEG(t, randomGray(40, 32, 3), 6, binary.BigEndian),
		"stored.jpg":  exifJPEG(t, randomGray(40, 32, 4), 1, binary.BigEndian),
		"stored2.jpg": exifJPEG(t, randomGray(32, 40, 5), 1, binary.BigEndian),
	})
	for name, want := range map[string]string{
		"png.png": "", "shown.jpg": "", "stored.jpg": "",
		"turned.jpg":  "frame is 32x40 but the model's training images were 40x32",
		"stored2.jpg": "frame is 32x40 but the model's training images were 40x32",
	} {
		_, err := f.ApplyFiles([]string{filepath.Join(probe, name)}, FolderLimits())
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.Contains(err.Error(), want))) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}
