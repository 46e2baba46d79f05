package features

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/setfile"
)

func TestParse(t *testing.T) {
	tests := []struct {
		spec, name string
		w, h, dim  int // Dim for a w×h image
		fixed      bool
		pca        int
	}{
		{"intensity:20x20", "intensity:20x20", 64, 64, 400, true, 0},
		{"intensity:32x16:norm+pca:50", "intensity:32x16:norm+pca:50", 41, 41, 512, true, 50},
		{"lbp:4x4", "lbp:4x4", 92, 112, 16 * 59, false, 0},
		{" lbp:2x3@64x64 ", "lbp:2x3@64x64", 41, 41, 6 * 59, true, 0},
		{"hog:8@64x64+pca:10", "hog:8@64x64+pca:10", 41, 41, 1764, true, 10},
		{"hog:8", "hog:8", 92, 112, 10 * 13 * 36, false, 0},
		{"hist:32", "hist:32", 5, 5, 32, true, 0},
		{"hist:16:plain@20x20", "hist:16:plain@20x20", 5, 5, 16, true, 0},
	}
	for _, tc := range tests {
		p, err := Parse(tc.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if p.Name() != tc.name || p.PCADim() != tc.pca {
			t.Errorf("Parse(%q): name %q pca %d, want %q %d", tc.spec, p.Name(), p.PCADim(), tc.name, tc.pca)
		}
		if d, err := p.Dim(tc.w, tc.h); err != nil || d != tc.dim {
			t.Errorf("%s: Dim(%d, %d) = %d, %v; want %d", tc.spec, tc.w, tc.h, d, err, tc.dim)
		}
		if d, ok := p.OutputDim(); ok != tc.fixed || (ok && d != tc.dim) {
			t.Errorf("%s: OutputDim = %d, %v; want %d, %v", tc.spec, d, ok, tc.dim, tc.fixed)
		}
		q, err := Parse(p.Name())
		if err != nil || q != p {
			t.Errorf("Parse(Name()) of %q = %+v, %v; want %+v", tc.spec, q, err, p)
		}
		v, err := p.Extract(randomGray(tc.w, tc.h, 9))
		if err != nil || len(v) != tc.dim {
			t.Errorf("%s: Extract gives %d values, %v; want %d", tc.spec, len(v), err, tc.dim)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, spec := range []string{
		"", "intensity", "intensity:", "intensity:20", "intensity:0x20", "intensity:20x20:foo",
		"intensity:20x20@10x10", "lbp", "lbp:4", "lbp:4x4@2x2", "lbp:4x4:x", "hog:x", "hog:0",
		"hog:8@8x8", "hist:0", "hist:300", "hist:8:eq", "sift:8", "intensity:20x20+pca:0",
		"intensity:20x20+pca:x", "intensity:20x20+lda:3", "intensity:-20x20", "hog:8@64",
	} {
		_, err := Parse(spec)
		if err == nil {
			t.Errorf("Parse(%q): no error", spec)
			continue
		}
		if !strings.Contains(err.Error(), "valid feature specs") {
			t.Errorf("Parse(%q): error does not list the valid forms: %v", spec, err)
		}
	}
}

// TestImageSetReaderOneFrame: a set of one frame is its feature row, and
// an extraction error names the file.
func TestImageSetReaderOneFrame(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, gray(2, 2, 10, 20, 30, 41)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := Parse("intensity:1x1")
	if err != nil {
		t.Fatal(err)
	}
	x, err := Fitted{Pipeline: p}.ImageSetReader()([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "frame", x.RawRowView(0), []float64{25.25 / 255}, 1e-15)

	// Extraction errors name the file too.
	p, _ = Parse("hog:8")
	if _, err := (Fitted{Pipeline: p}).ImageSetReader()([]string{path}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("hog:8 on a 2x2 image: %v, want an error naming %s", err, path)
	}
}

// TestParseDimension: a spec giving more than MaxDim features per frame
// (what every reader of feature files takes) is refused by Parse, with
// the dimension and a smaller spec that Parse accepts; MaxDim itself is
// accepted.
func TestParseDimension(t *testing.T) {
	for _, tc := range []struct {
		spec, dim, hint string
	}{
		{"hog:1@4096x4096", "603684900", "hog:94@4096x4096"},
		{"hog:1@4096x4096", "603684900", "hog:1@43x43"},
		{"intensity:4096x4096", "16777216", "intensity:256x256"},
		{"intensity:257x256:norm+pca:10", "65792", "intensity:256x255"},
		{"lbp:64x64", "241664", "lbp:33x33"},
		{"lbp:34x34", "68204", "lbp:33x33"},
		{"lbp:64x40@100x100", "151040", "lbp:42x26@100x100"},
	} {
		_, err := Parse(tc.spec)
		if err == nil {
			t.Errorf("Parse(%q): no error", tc.spec)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.dim+" features per frame") || !strings.Contains(msg, tc.hint) {
			t.Errorf("Parse(%q) = %v; want the dimension %s and the hint %s", tc.spec, err, tc.dim, tc.hint)
		}
		if p, err := Parse(tc.hint); err != nil {
			t.Errorf("hint %q of %q: %v", tc.hint, tc.spec, err)
		} else if d, err := p.Dim(4096, 4096); err != nil || d > MaxDim {
			t.Errorf("hint %q of %q gives %d features, %v", tc.hint, tc.spec, d, err)
		}
	}
	for _, spec := range []string{"intensity:256x256", "lbp:37x30", "hog:100@4096x4096", "intensity:2x2+pca:65536"} {
		if _, err := Parse(spec); err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
		}
	}
	if MaxDim != setfile.DefaultMaxCols {
		t.Errorf("MaxDim = %d, the readers take %d", MaxDim, setfile.DefaultMaxCols)
	}
}

// TestHOGDimensionOfImage: hog without a size refuses an image on which it
// would give more than MaxDim features, from the image size alone.
func TestHOGDimensionOfImage(t *testing.T) {
	p, err := Parse("hog:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Dim(4096, 3072); err == nil || !strings.Contains(err.Error(), "452726820 features per frame") {
		t.Errorf("hog:1 Dim(4096, 3072): %v, want the dimension refused", err)
	}
	_, err = p.Extract(randomGray(300, 200, 1))
	if err == nil || !strings.Contains(err.Error(), "hog:1 on a 300x200 image gives 2142036 features per frame") ||
		!strings.Contains(err.Error(), "hog:1@") {
		t.Errorf("hog:1 on 300x200: %v, want the dimension refused with a size to resize to", err)
	}
}

// TestParseSizeEdges: the sizes of a spec at and past each bound, a
// resize (@WxH) and intensity's size of 1 to MaxResize on a side and
// lbp's grid of 1 to MaxGrid, and what Parse says of each refused one.
func TestParseSizeEdges(t *testing.T) {
	for _, tc := range []struct {
		spec, reason string // reason "": accepted
	}{
		{"intensity:1x1", ""},
		{"hist:8@1x1", ""},
		{"hist:8@4096x4096", ""},
		{"hist:8@0004096x1", ""},
		{"lbp:1x1", ""},
		{"lbp:64x1", ""},
		{"lbp:1x64@4096x4096", ""},
		{"intensity:0x1", `intensity size "0x1": "0" must be between 1 and 4096`},
		{"intensity:1x0", `intensity size "1x0": "0" must be between 1 and 4096`},
		{"intensity:4097x1", `intensity size "4097x1": "4097" must be between 1 and 4096`},
		{"intensity:-1x1", `intensity size "-1x1": "-1" is not a positive integer`},
		{"intensity:1x 1", `intensity size "1x 1": " 1" is not a positive integer`},
		{"intensity:20X20", `intensity size "20X20": want WxH, e.g. 20x20`},
		{"intensity:20", `intensity size "20": want WxH, e.g. 20x20`},
		{"intensity:x20", `intensity size "x20": "" must be between 1 and 4096`},
		{"intensity:2x3x4", `intensity size "2x3x4": "3x4" is not a positive integer`},
		{"intensity:99999999999999999999x1", `intensity size "99999999999999999999x1": "99999999999999999999" must be between 1 and 4096`},
		{"hist:8@0x1", `resize "0x1": "0" must be between 1 and 4096`},
		{"hist:8@1x4097", `resize "1x4097": "4097" must be between 1 and 4096`},
		{"hist:8@ 1x1", `resize " 1x1": " 1" is not a positive integer`},
		{"lbp:0x1", `lbp grid "0x1": "0" must be between 1 and 64`},
		{"lbp:1x65", `lbp grid "1x65": "65" must be between 1 and 64`},
	} {
		_, err := Parse(tc.spec)
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("Parse(%q): %v", tc.spec, err)
		case tc.reason != "" && (err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("features: bad feature spec %q: %s\n", tc.spec, tc.reason))):
			t.Errorf("Parse(%q) = %v; want the reason %s", tc.spec, err, tc.reason)
		}
	}
}
