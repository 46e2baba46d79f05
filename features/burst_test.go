package features

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/testutil"
)

// scene returns a w×h colour image: a gradient with a moving disc and
// deterministic texture, so that frames differ and features are not flat.
func scene(w, h, k int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cx, cy := (w/4+k*w/16)%w, h/2
	for y := range h {
		for x := range w {
			v := uint8((x*255/max(w-1, 1) + y*97/max(h-1, 1) + (x*7^y*13+k*31)%23) & 0xff)
			if dx, dy := x-cx, y-cy; dx*dx+dy*dy < (h/5)*(h/5) {
				v = 255 - v
			}
			img.Set(x, y, color.RGBA{v, uint8(int(v) * 3 / 4), uint8(255 - int(v)/2), 255})
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePGM(img image.Image) []byte {
	g := ToGray(img)
	b := g.Bounds()
	s := make([]int, len(g.Pix))
	for i, v := range g.Pix {
		s[i] = int(v)
	}
	return writePGM(false, b.Dx(), b.Dy(), 255, s)
}

// writeFiles writes name → content into dir (created).
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mixedBurst writes a burst of PNG, JPEG and PGM frames of size w×h and
// returns its directory.
func mixedBurst(t testing.TB, w, h int) string {
	dir := filepath.Join(t.TempDir(), "burst")
	writeFiles(t, dir, map[string][]byte{
		"f10.png": encodePNG(t, scene(w, h, 0)),
		"f02.jpg": encodeJPEG(t, scene(w, h, 1)),
		"f2.PGM":  encodePGM(scene(w, h, 2)),
		"F9.jpeg": encodeJPEG(t, scene(w, h, 3)),
	})
	return dir
}

func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func mustFitted(t testing.TB, spec string) Fitted {
	t.Helper()
	p, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return Fitted{Pipeline: p}
}

// reference computes a set's features the way training did before bursts
// existed: DecodeImageFile and Extract for each file, rows stacked.
func reference(t *testing.T, f Fitted, paths []string) *mat.Dense {
	t.Helper()
	var rows [][]float64
	for _, p := range paths {
		img, err := DecodeImageFile(p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := f.Pipeline.Extract(img)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, v)
	}
	x := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	return x
}

func TestApplyBurstMatchesTrainingPath(t *testing.T) {
	dir := mixedBurst(t, 80, 60)
	// Byte order of names: upper case first, then f02 < f10 < f2.
	order := []string{"F9.jpeg", "f02.jpg", "f10.png", "f2.PGM"}
	var paths []string
	for _, n := range order {
		paths = append(paths, filepath.Join(dir, n))
	}
	for _, spec := range []string{"lbp:4x4@64x64", "lbp:2x2", "intensity:20x20", "hog:8@64x64", "hist:16", "intensity:8x6:norm"} {
		f := mustFitted(t, spec)
		got, err := f.ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits())
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		want := reference(t, f, paths)
		if !mat.Equal(got, want) {
			t.Errorf("%s: burst features differ from the per-file path", spec)
		}
		files, err := f.ApplyFiles(paths, FolderLimits())
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(files, want) {
			t.Errorf("%s: ApplyFiles differs from the per-file path", spec)
		}
		var imgs []*image.Gray
		for _, p := range paths {
			g, err := DecodeImageFile(p)
			if err != nil {
				t.Fatal(err)
			}
			imgs = append(imgs, g)
		}
		mem, err := f.Apply(imgs)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(mem, want) {
			t.Errorf("%s: Apply differs from the per-file path", spec)
		}
	}
}

// The daemon passes its spool root and a path inside it.
func TestApplyBurstInsideRoot(t *testing.T) {
	spool := t.TempDir()
	burst := mixedBurst(t, 40, 30)
	if err := os.MkdirAll(filepath.Join(spool, "cur"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(burst, filepath.Join(spool, "cur", "b1")); err != nil {
		t.Fatal(err)
	}
	f := mustFitted(t, "lbp:4x4@64x64")
	x, err := f.ApplyBurst(openRoot(t, spool), "cur/b1", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 4 || c != 4*4*59 {
		t.Errorf("%d×%d", r, c)
	}
	// A name leading outside the root is refused by the root.
	if _, err := f.ApplyBurst(openRoot(t, filepath.Join(spool, "cur")), "../cur/b1", DefaultBurstLimits()); err == nil {
		t.Error("escaping the root accepted")
	}
}

// pngHeaderClaiming returns a valid PNG whose IHDR claims w×h (CRC fixed)
// followed by the IDAT of a 1×1 image.
func pngHeaderClaiming(t testing.TB, w, h uint32) []byte {
	b := encodePNG(t, image.NewGray(image.Rect(0, 0, 1, 1)))
	// signature (8) + length (4) + "IHDR" (4) + data (13) + crc (4)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// jpegHeaderClaiming patches the SOF0 frame size of a small JPEG.
func jpegHeaderClaiming(t testing.TB, w, h uint16) []byte {
	b := encodeJPEG(t, image.NewGray(image.Rect(0, 0, 8, 8)))
	i := bytes.Index(b, []byte{0xff, 0xc0})
	if i < 0 {
		t.Fatal("no SOF0 marker")
	}
	binary.BigEndian.PutUint16(b[i+5:], h)
	binary.BigEndian.PutUint16(b[i+7:], w)
	return b
}

func TestBurstRefusals(t *testing.T) {
	good := encodePNG(t, scene(32, 24, 0))
	jpg := encodeJPEG(t, scene(32, 24, 1))
	lim := DefaultBurstLimits()
	lim.MaxFrames = 4
	lim.MaxFileBytes = 1 << 20
	f := mustFitted(t, "lbp:2x2")
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		spec  string
		is    error
		want  string
	}{
		{"empty", func(t *testing.T, dir string) {}, "", ErrFormat, "the burst is empty"},
		{"too many frames", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": good, "3.png": good, "4.png": good, "5.png": good})
		}, "", ErrTooLarge, "more than 4 entries"},
		{"nested directory", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good})
			writeFiles(t, filepath.Join(dir, "sub"), map[string][]byte{"2.png": good})
		}, "", ErrFormat, "is a directory: a burst holds frame images only"},
		{"symlink frame", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good})
			if err := os.Symlink("1.png", filepath.Join(dir, "2.png")); err != nil {
				t.Fatal(err)
			}
		}, "", ErrFormat, "2.png: is a symbolic link"},
		{"fifo", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good})
			testutil.FIFO(t, dir, "2.png")
		}, "", ErrFormat, "is not a regular file"},
		{"not an image (name)", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "notes.txt": []byte("hello")})
		}, "", ErrFormat, "notes.txt: is not a frame image"},
		{"hidden file", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, ".DS_Store": []byte("x")})
		}, "", ErrFormat, ".DS_Store: is not a frame image"},
		{"not an image (content)", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": []byte("this is text, not a picture")})
		}, "", ErrFormat, "2.png: unrecognised image format"},
		{"empty file", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": nil})
		}, "", ErrFormat, "2.png: file is empty"},
		{"truncated PNG", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": good[:len(good)*2/3]})
		}, "", ErrFormat, "2.png: cannot decode PNG image"},
		{"truncated PNG header", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good[:20]})
		}, "", ErrFormat, "cannot read PNG image header"},
		{"truncated JPEG", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.jpg": jpg[:len(jpg)-len(jpg)/4]})
		}, "", ErrFormat, "2.jpg: cannot decode JPEG image"},
		{"truncated JPEG header", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.jpg": jpg[:len(jpg)/2]})
		}, "", ErrFormat, "2.jpg: cannot read JPEG image header"},
		{"corrupt PNG", func(t *testing.T, dir string) {
			bad := bytes.Clone(good)
			for i := len(bad) / 2; i < len(bad)/2+40; i++ {
				bad[i] ^= 0x5a
			}
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": bad})
		}, "", ErrFormat, "2.png: cannot decode PNG image"},
		{"truncated PGM", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.pgm": encodePGM(scene(32, 24, 0))[:200]})
		}, "", ErrFormat, "pixel bytes are present"},
		{"huge PNG header", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": pngHeaderClaiming(t, 60000, 60000)})
		}, "", ErrTooLarge, "PNG image is 60000x60000, more than 12582912 pixels"},
		{"huge JPEG header", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.jpg": jpegHeaderClaiming(t, 60000, 60000)})
		}, "", ErrTooLarge, "JPEG image is 60000x60000"},
		{"huge PGM header", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.pgm": []byte("P5\n60000 60000\n255\n\x00\x01")})
		}, "", ErrTooLarge, "PGM header says 60000x60000"},
		{"file too large", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": make([]byte, 1<<20+1)})
		}, "", ErrTooLarge, "2.png: file is 1048577 bytes, more than the limit of 1048576 per frame"},
		{"other Netpbm", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.pgm": []byte("P6\n1 1\n255\nabc")})
		}, "", ErrFormat, "Netpbm format P6 is not supported"},
		{"sizes differ without resize", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": encodePNG(t, scene(40, 24, 1))})
		}, "", ErrFormat, "2.png: frame is 40x24 but"},
		{"unfitted pca", func(t *testing.T, dir string) {
			writeFiles(t, dir, map[string][]byte{"1.png": good})
		}, "intensity:8x8+pca:2", nil, "the pca stage is not fitted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			c.setup(t, dir)
			g := f
			if c.spec != "" {
				g = mustFitted(t, c.spec)
			}
			x, err := g.ApplyBurst(openRoot(t, dir), ".", lim)
			if err == nil {
				t.Fatalf("accepted: %v", x.RawMatrix())
			}
			if x != nil {
				t.Error("matrix and error both returned")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %q is not %v", err, c.is)
			}
		})
	}
}

func TestBurstDirectoryItself(t *testing.T) {
	parent := t.TempDir()
	writeFiles(t, filepath.Join(parent, "real"), map[string][]byte{"1.png": encodePNG(t, scene(16, 16, 0))})
	if err := os.Symlink("real", filepath.Join(parent, "link")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, parent, map[string][]byte{"file.png": encodePNG(t, scene(16, 16, 0))})
	f := mustFitted(t, "hist:8")
	root := openRoot(t, parent)
	for dir, want := range map[string]string{
		"link":     "the burst is a symbolic link",
		"file.png": "not a directory",
		"missing":  "cannot open burst",
	} {
		if _, err := f.ApplyBurst(root, dir, DefaultBurstLimits()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", dir, err, want)
		}
	}
	if _, err := f.ApplyBurst(root, "real", DefaultBurstLimits()); err != nil {
		t.Error(err)
	}
	if _, err := f.ApplyBurst(root, "real", ImageLimits{}); err == nil {
		t.Error("zero limits accepted")
	}
}

// Frames of different sizes: resized per the spec when it has a size,
// refused otherwise (TestBurstRefusals); each frame is resized on its own,
// exactly as training resizes it.
func TestBurstSizesResized(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	writeFiles(t, dir, map[string][]byte{
		"a.png": encodePNG(t, scene(64, 48, 0)),
		"b.png": encodePNG(t, scene(100, 80, 1)),
		"c.jpg": encodeJPEG(t, scene(30, 20, 2)),
	})
	paths := []string{filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png"), filepath.Join(dir, "c.jpg")}
	for _, spec := range []string{"lbp:4x4@64x64", "intensity:20x20", "hog:8@32x32", "hist:8@16x16"} {
		f := mustFitted(t, spec)
		x, err := f.ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits())
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if !mat.Equal(x, reference(t, f, paths)) {
			t.Errorf("%s: differs from the per-file path", spec)
		}
	}
	for _, spec := range []string{"lbp:4x4", "hog:8", "hist:8"} {
		if _, err := mustFitted(t, spec).ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits()); err == nil ||
			!strings.Contains(err.Error(), "give the feature a size") {
			t.Errorf("%s: %v", spec, err)
		}
	}
}

// A header claiming 60000×60000 pixels is refused from the header: reading
// the burst allocates a few kilobytes, not the 3.6 GB (or 29 GB as RGBA64)
// the header asks for.
func TestHugeHeaderAllocatesNothingBig(t *testing.T) {
	for name, data := range map[string][]byte{
		"1.png": pngHeaderClaiming(t, 60000, 60000),
		"1.jpg": jpegHeaderClaiming(t, 60000, 60000),
		"1.pgm": []byte("P5\n60000 60000\n255\n\x00\x01"),
	} {
		dir := filepath.Join(t.TempDir(), "b")
		writeFiles(t, dir, map[string][]byte{name: data})
		root := openRoot(t, dir)
		f := mustFitted(t, "lbp:4x4@64x64")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := f.ApplyBurst(root, ".", DefaultBurstLimits())
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", name, err)
		}
		n := after.TotalAlloc - before.TotalAlloc
		if n > 256<<10 {
			t.Errorf("%s: refusing a huge header allocated %d bytes", name, n)
		}
		t.Logf("%s: %d bytes allocated to refuse it", name, n)
	}
}

// A frame replaced after the listing (e.g. by a link to another file) is
// refused: the open file must be the one listed.
func TestReadRegularReplaced(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"a.png": []byte("a"), "b.png": []byte("b")})
	listed, err := os.Lstat(filepath.Join(dir, "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(filepath.Join(dir, "b.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := readRegular(fh, "b.png", 100, listed); err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Errorf("replaced file: %v", err)
	}
}

// TestReadRegularLimitDoesNotOverflow: the largest limit reads a file
// whole; limit+1 wrapped to a negative bound and read nothing ("file
// changed size while it was read").
func TestReadRegularLimitDoesNotOverflow(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"a.png": []byte("abc")})
	fh, err := os.Open(filepath.Join(dir, "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if b, err := readRegular(fh, "a.png", math.MaxInt64, nil); err != nil || string(b) != "abc" {
		t.Errorf("readRegular with the largest limit = %q, %v; want the file", b, err)
	}
}

// TestApplyOpenBurstContext: a burst whose context has ended is given up
// before a frame is read (the daemon's time limit and its stop), with the
// context's error; a live context reads it as ApplyBurst does.
func TestApplyOpenBurstContext(t *testing.T) {
	dir := mixedBurst(t, 80, 60)
	f := mustFitted(t, "intensity:8x6")
	want, err := f.ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := f.ApplyOpenBurst(context.Background(), b)
	if err != nil || !mat.Equal(got, want) {
		t.Errorf("ApplyOpenBurst with a live context: %v, equal to ApplyBurst %v", err, err == nil && mat.Equal(got, want))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if x, err := f.ApplyOpenBurst(ctx, b); !errors.Is(err, context.Canceled) || x != nil {
		t.Errorf("ApplyOpenBurst with an ended context = %v, %v; want context.Canceled", x, err)
	}
}

// TestApplyOpenBurst: ApplyOpenBurst reads the frames OpenBurst listed,
// as ApplyBurst does, and only those: a frame added to the folder after
// the listing is not read.
func TestApplyOpenBurst(t *testing.T) {
	dir := mixedBurst(t, 80, 60)
	f := mustFitted(t, "intensity:8x6")
	want, err := f.ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	writeFiles(t, dir, map[string][]byte{"f99.png": encodePNG(t, scene(80, 60, 4))})
	got, err := f.ApplyOpenBurst(context.Background(), b)
	if err != nil || len(b.Frames) != 4 || !mat.Equal(got, want) {
		t.Errorf("ApplyOpenBurst of %d frames listed, one added after: %v, equal to ApplyBurst before %v", len(b.Frames), err, err == nil && mat.Equal(got, want))
	}
}

// TestApplyOpenBurstSizeChanged: a frame written again in place after the
// listing, the same file of another size, is refused: the bytes read are
// those listed.
func TestApplyOpenBurstSizeChanged(t *testing.T) {
	dir := mixedBurst(t, 80, 60)
	b, err := OpenBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	again := encodePNG(t, scene(40, 30, 0))
	if f := b.Frames[2]; f.Name != "f10.png" || f.Info.Size() == int64(len(again)) {
		t.Fatalf("frame 2 listed: %s of %d bytes, want f10.png of other than %d", f.Name, f.Info.Size(), len(again))
	}
	if err := os.WriteFile(filepath.Join(dir, "f10.png"), again, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = mustFitted(t, "intensity:8x6").ApplyOpenBurst(context.Background(), b)
	if err == nil || !strings.Contains(err.Error(), "f10.png") || !strings.Contains(err.Error(), "changed size since the burst was listed") {
		t.Errorf("f10.png written again with another size after the listing: %v, want it refused", err)
	}
}

// TestBurstOfListsTheFolderOpened: BurstOf lists the folder it is given,
// open, and ApplyOpenBurst reads its frames, though by then the burst's
// name is another folder's, with frames of the same names and other
// sizes: no entry is looked up by a path through the name.
func TestBurstOfListsTheFolderOpened(t *testing.T) {
	dir := mixedBurst(t, 80, 60)
	f := mustFitted(t, "intensity:8x6")
	root := openRoot(t, filepath.Dir(dir))
	want, err := f.ApplyBurst(root, "burst", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	d, err := openBurstDir(root, "burst")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	other := map[string][]byte{}
	for i, name := range []string{"f10.png", "f02.jpg", "f2.PGM", "F9.jpeg"} {
		other[name] = encodePNG(t, scene(40, 30, i))
	}
	writeFiles(t, dir, other)
	b, err := BurstOf(root, "burst", d, DefaultBurstLimits())
	if err != nil {
		t.Fatalf("BurstOf the folder opened, its name another's since: %v", err)
	}
	defer b.Close()
	got, err := f.ApplyOpenBurst(context.Background(), b)
	if err != nil || !mat.Equal(got, want) {
		t.Errorf("ApplyOpenBurst of the folder opened, its name another's since: %v, equal to the frames opened %v", err, err == nil && mat.Equal(got, want))
	}
}

// TestBurstAtTheLimits: a burst of exactly lim.MaxFrames frames of exactly
// lim.MaxFileBytes bytes each is read.
func TestBurstAtTheLimits(t *testing.T) {
	good := encodePNG(t, scene(32, 24, 0))
	dir := filepath.Join(t.TempDir(), "burst")
	writeFiles(t, dir, map[string][]byte{"1.png": good, "2.png": good})
	lim := DefaultBurstLimits()
	lim.MaxFrames, lim.MaxFileBytes = 2, int64(len(good))
	x, err := mustFitted(t, "lbp:2x2").ApplyBurst(openRoot(t, dir), ".", lim)
	if err != nil {
		t.Fatalf("2 frames of %d bytes, limits of 2 frames and %d bytes: %v", len(good), len(good), err)
	}
	if r, _ := x.Dims(); r != 2 {
		t.Errorf("%d rows, want 2", r)
	}
}

// TestOpenBurst: OpenBurst lists the frames in byte order of their names
// with what the listing saw, and refuses a frame of 0 bytes or over
// lim.MaxFileBytes itself, before any frame is read (the checks BurstOf
// runs on the daemon's claimed burst).
func TestOpenBurst(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "ok"), map[string][]byte{"b.png": []byte("12"), "a.jpg": []byte("1"), "C.pgm": []byte("123")})
	writeFiles(t, filepath.Join(dir, "empty"), map[string][]byte{"1.png": []byte("1"), "2.png": nil})
	writeFiles(t, filepath.Join(dir, "big"), map[string][]byte{"1.png": []byte("1"), "2.png": []byte("1234")})
	root := openRoot(t, dir)
	lim := DefaultBurstLimits()
	lim.MaxFileBytes = 3
	b, err := OpenBurst(root, "ok", lim)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	var got []string
	for _, f := range b.Frames {
		got = append(got, fmt.Sprintf("%s:%d", f.Name, f.Info.Size()))
	}
	if want := "C.pgm:3 a.jpg:1 b.png:2"; strings.Join(got, " ") != want {
		t.Errorf("frames %v, want %s", got, want)
	}
	for burst, want := range map[string]string{
		"empty": "2.png: file is empty",
		"big":   "2.png: file is 4 bytes, more than the limit of 3 per frame",
	} {
		if b, err := OpenBurst(root, burst, lim); err == nil || !strings.Contains(err.Error(), want) {
			if err == nil {
				b.Close()
			}
			t.Errorf("%s: %v, want %q", burst, err, want)
		}
	}
}

// TestOpenInRefusesLink: a frame is opened from its burst's open folder
// without following a link, also one to a frame of the same burst (which
// an os.Root would follow, O_NOFOLLOW or not): a link put in a frame's
// place after the listing is refused at the open, not after it.
func TestOpenInRefusesLink(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"a.png": []byte("a")})
	if err := os.Symlink("a.png", filepath.Join(dir, "b.png")); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	d, err := root.Open(".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if f, err := openIn(root, ".", d, "b.png", 0); err == nil {
		f.Close()
		t.Error("a link to a frame of the burst was opened")
	}
	f, err := openIn(root, ".", d, "a.png", 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestOpenBurstPathForms: a burst named with a trailing slash, through
// "." or a step back is the folder it names, as the root resolves it; a
// link to a burst is refused also when named with a trailing slash (which
// would resolve it).
func TestOpenBurstPathForms(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "cur", "b1"), map[string][]byte{"a.png": []byte("1")})
	if err := os.Symlink("b1", filepath.Join(dir, "cur", "link")); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	for _, p := range []string{"cur/link", "cur/link/"} {
		if b, err := OpenBurst(root, p, DefaultBurstLimits()); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			if err == nil {
				b.Close()
			}
			t.Errorf("OpenBurst(%q): %v, want the link refused", p, err)
		}
	}
	for _, p := range []string{"cur/b1", "cur/b1/", "./cur/b1", "cur/./b1", "cur/b1/.", "cur/x/../b1"} {
		if p == "cur/x/../b1" {
			if err := os.Mkdir(filepath.Join(dir, "cur", "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		b, err := OpenBurst(root, p, DefaultBurstLimits())
		if err != nil {
			t.Errorf("OpenBurst(%q): %v; want the frame a.png", p, err)
			continue
		}
		b.Close()
		if len(b.Frames) != 1 || b.Frames[0].Name != "a.png" {
			t.Errorf("OpenBurst(%q): %v; want the frame a.png", p, b.Frames)
		}
	}
}

// noIdentity is a directory entry's facts without a file identity, as
// Windows' Readdir gives them on a volume without object IDs (FAT32,
// exFAT): os.SameFile never holds it the same as an open file.
type noIdentity struct{ fs.FileInfo }

// TestBurstListedWithoutIdentity: where Readdir's facts of the frames
// carry no file identity, every frame would read as replaced since it
// was listed. With each entry looked up again by path (statByPath, the
// listing where there is no fstatat) the burst is read, a frame replaced
// after the listing is still refused, and an entry gone before its
// lookup is left out.
func TestBurstListedWithoutIdentity(t *testing.T) {
	t.Cleanup(func() { readdir, statByPath = (*os.File).Readdir, entriesStatByPath })
	gone := ""
	readdir = func(d *os.File, n int) ([]os.FileInfo, error) {
		infos, err := d.Readdir(n)
		for i, fi := range infos {
			infos[i] = noIdentity{fi}
		}
		if gone != "" { // 1.png, listed, is gone before its stat
			if err := os.Rename(filepath.Join(gone, "1.png"), filepath.Join(gone, "..", "moved.png")); err != nil {
				return nil, err
			}
		}
		return infos, err
	}
	f := mustFitted(t, "hist:8")
	burst := func() string {
		dir := filepath.Join(t.TempDir(), "b")
		writeFiles(t, dir, map[string][]byte{"1.png": encodePNG(t, scene(16, 16, 0)), "2.png": encodePNG(t, scene(16, 16, 1))})
		return dir
	}
	statByPath = false
	dir := burst()
	if _, err := f.ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits()); err == nil || !strings.Contains(err.Error(), "replaced while the frames were read") {
		t.Fatalf("listed without identity, not looked up by path: %v; want every frame refused as replaced (else this test tests nothing)", err)
	}
	statByPath = true
	x, err := f.ApplyBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatalf("listed without identity, looked up by path: %v", err)
	}
	if r, _ := x.Dims(); r != 2 {
		t.Errorf("%d frames read, want 2", r)
	}
	// A frame replaced after the listing is refused all the same.
	dir = burst()
	b, err := OpenBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	writeFiles(t, filepath.Join(dir, ".."), map[string][]byte{"new.png": encodePNG(t, scene(16, 16, 2))})
	if err := os.Rename(filepath.Join(dir, "..", "new.png"), filepath.Join(dir, "2.png")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ApplyOpenBurst(context.Background(), b); err == nil || !strings.Contains(err.Error(), "replaced while the frames were read") {
		t.Errorf("a frame replaced after the listing: %v; want it refused", err)
	}
	// An entry gone between the listing and its stat is left out.
	dir = burst()
	gone = dir
	b, err = OpenBurst(openRoot(t, dir), ".", DefaultBurstLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(b.Frames) != 1 || b.Frames[0].Name != "2.png" {
		t.Errorf("listed %v; want 2.png alone (1.png gone before its stat)", b.Frames)
	}
}

// TestBurstOverLimitEntryGone: an entry gone between the read of the
// folder and its stat is left out of what Readdir returns but counted
// toward the n entries it reads: a burst over the frame limit is refused
// all the same, not listed as the frames of its first entries. A burst
// within the limit once entries are gone is listed without them.
func TestBurstOverLimitEntryGone(t *testing.T) {
	t.Cleanup(func() { readdir = (*os.File).Readdir })
	lim := DefaultBurstLimits()
	lim.MaxFrames = 3
	for _, c := range []struct {
		entries, gone int
		listed        int    // the frames listed, where it is not refused
		want          string // the refusal
	}{
		{entries: 5, gone: 1, want: "more than 3 entries"},
		{entries: 40, gone: 1, want: "more than 3 entries"},
		{entries: 40, gone: 4, want: "more than 3 entries"},
		{entries: 4, gone: 1, listed: 3},
		{entries: 3, gone: 2, listed: 1},
	} {
		readdir = func(d *os.File, n int) ([]os.FileInfo, error) {
			infos, err := d.Readdir(n)
			return infos[min(c.gone, len(infos)):], err // the first entries read, gone before their stat
		}
		dir := t.TempDir()
		files := map[string][]byte{}
		for i := range c.entries {
			files[fmt.Sprintf("f%02d.png", i)] = []byte("x")
		}
		writeFiles(t, dir, files)
		b, err := OpenBurst(openRoot(t, dir), ".", lim)
		listed := 0
		if err == nil {
			listed = len(b.Frames)
			b.Close()
		}
		if c.want != "" && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want)) || c.want == "" && (err != nil || listed != c.listed) {
			t.Errorf("a burst of %d entries, the limit 3, %d gone while listed: %d frames listed, error %v; want %d listed, refused %q", c.entries, c.gone, listed, err, c.listed, c.want)
		}
	}
}
