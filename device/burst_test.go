package device

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/features"
	"setmatch/match"
	"setmatch/model"
)

// The frames and golden features of package features: a burst of PNG, JPEG
// and PGM frames, and its features recorded on linux/amd64.
var (
	goldenBurstDir = filepath.Join("..", "features", "testdata", "burst")
	goldenJSON     = filepath.Join("..", "features", "testdata", "burst.golden.json")
	goldenPCA      = filepath.Join("..", "features", "testdata", "intensity-8x6-pca-3.smfp")
)

// fitSpec returns the pipeline of spec, one without a pca stage, as a
// Fitted.
func fitSpec(t *testing.T, spec string) *features.Fitted {
	t.Helper()
	p, err := features.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := features.NewFitted(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &fit
}

// pipelineModel returns a model taking D features per frame (W picks the
// first two) that records the pipeline fit.
func pipelineModel(fit *features.Fitted, D int) *model.Model {
	rng := rand.New(rand.NewPCG(3, 4))
	w := mat.NewDense(D, 2, nil)
	w.Set(0, 0, 1)
	w.Set(1, 1, 1)
	m := &model.Model{
		Divergence: match.Hellinger, QueryBandwidth: match.BandwidthRule{Kind: match.Fixed, Fixed: 0.5},
		W: w, Mean: make([]float64, D), Threshold: math.Inf(1), Features: fit,
		Meta: model.Meta{Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Tool: "device test"},
	}
	for _, l := range []string{"alice", "bob"} {
		m.Sets = append(m.Sets, model.Set{Label: l, Name: l, Samples: devicetest.Sample(rng, [2]float64{0, 0}, 5, 2, 1), Bandwidth: 0.5})
	}
	return m
}

// TestBurstFeaturesGolden checks that the features the daemon computes for
// a burst in its spool are those of package features' golden burst to
// 1e-12 (recorded on amd64; this test runs on arm64 under qemu too), and
// those training computes for the same files (the reader train gives
// dataset.Load), for a plain pipeline and one with a fitted PCA.
func TestBurstFeaturesGolden(t *testing.T) {
	b, err := os.ReadFile(goldenJSON)
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string][][]float64
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	pb, err := os.ReadFile(goldenPCA)
	if err != nil {
		t.Fatal(err)
	}
	var withPCA features.Fitted
	if err := withPCA.UnmarshalBinary(pb); err != nil {
		t.Fatal(err)
	}
	p, err := features.Parse("lbp:4x4@64x64")
	if err != nil {
		t.Fatal(err)
	}
	des, err := os.ReadDir(goldenBurstDir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var paths []string
	for _, de := range des {
		paths = append(paths, filepath.Join(goldenBurstDir, de.Name()))
		if files[de.Name()], err = os.ReadFile(paths[len(paths)-1]); err != nil {
			t.Fatal(err)
		}
	}
	// The golden features of the PCA pipeline are filed under the spec
	// features' test fits it for.
	for key, fit := range map[string]features.Fitted{"lbp:4x4@64x64": {Pipeline: p}, "intensity:8x6+pca:3": withPCA} {
		t.Run(fit.Name(), func(t *testing.T) {
			D, _ := fit.OutputDim()
			f := devicetest.NewFixture(t, "")
			if err := model.WriteFile(f.Model, pipelineModel(&fit, D)); err != nil {
				t.Fatal(err)
			}
			cfg := fixtureConfig(t, f)
			r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder()})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			f.RenameIn(t, f.WriteBurstTmp(t, "golden", files))
			if _, err := r.spool.Claim("golden"); err != nil {
				t.Fatal(err)
			}
			rec := &journal.Record{}
			got, err := r.readBatch(context.Background(), r.st.Load(), "golden", rec)
			if err != nil {
				t.Fatal(err)
			}
			want := golden[key]
			if n, _ := got.Dims(); n != len(want) || !rec.Burst || rec.Bytes <= 0 {
				t.Fatalf("%d frames, golden %d; record %+v", n, len(want), rec)
			}
			worst := 0.0
			for i, row := range want {
				for j, v := range row {
					worst = math.Max(worst, math.Abs(got.At(i, j)-v))
				}
			}
			if worst > 1e-12 {
				t.Errorf("the daemon's features differ from the golden ones by %g", worst)
			}
			train, err := fit.ImageSetReader()(paths)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(got, train, 1e-12) {
				t.Error("the daemon's features differ from training's for the same files")
			}
		})
	}
}

// TestBurstJournalsWhatIsDecoded: a frame added to a claimed burst once
// it is listed (afterBurstListed) is not read, and the journal's frames
// and bytes are those of the frames decoded: the listing the journal
// records is the one the frames are read from.
func TestBurstJournalsWhatIsDecoded(t *testing.T) {
	des, err := os.ReadDir(goldenBurstDir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var size int64
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(goldenBurstDir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[de.Name()], size = b, size+int64(len(b))
	}
	fit := fitSpec(t, "lbp:4x4@64x64")
	D, _ := fit.OutputDim()
	f := devicetest.NewFixture(t, "")
	if err := model.WriteFile(f.Model, pipelineModel(fit, D)); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Config: fixtureConfig(t, f), Driver: gpiotest.NewRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f.RenameIn(t, f.WriteBurstTmp(t, "b", files))
	if _, err := r.spool.Claim("b"); err != nil {
		t.Fatal(err)
	}
	added := false
	afterBurstListed = func(name string) {
		added = os.WriteFile(filepath.Join(f.Spool, spool.DirCur, name, "z.png"), files["a.png"], 0o644) == nil
	}
	t.Cleanup(func() { afterBurstListed = nil })
	rec := &journal.Record{}
	x, err := r.readBatch(context.Background(), r.st.Load(), "b", rec)
	if err != nil || !added {
		t.Fatalf("readBatch: %v (frame added after the listing: %v)", err, added)
	}
	if n, _ := x.Dims(); n != len(files) || rec.Frames != n || rec.Bytes != size {
		t.Errorf("%d frames decoded, journal %d frames, %d bytes; want %d frames of %d bytes in both", n, rec.Frames, rec.Bytes, len(files), size)
	}
}

// TestBurstWithoutPipeline checks that a model trained on feature vectors
// fails a burst, saying so, with the frames listed and their bytes in
// the journal line, and handles the next batch file.
func TestBurstWithoutPipeline(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	f.RenameIn(t, f.WriteBurstTmp(t, "frames", map[string][]byte{"f0.png": []byte("not read")}))
	rec := next(t, ch)
	if rec.File != "frames" || rec.Decision != "failed" || !rec.Burst || !strings.Contains(rec.Reason, "trained on feature vectors") {
		t.Fatalf("record %+v", rec)
	}
	if rec.Frames != 1 || rec.Bytes != int64(len("not read")) {
		t.Errorf("journal line: %d frames of %d bytes, want the 1 listed of %d", rec.Frames, rec.Bytes, len("not read"))
	}
	reason, err := os.ReadFile(filepath.Join(f.Spool, spool.DirFailed, spool.DirReasons, "frames"))
	if err != nil || !strings.Contains(string(reason), "setmatch train --features") {
		t.Errorf("failed/.reasons/frames: %q, %v", reason, err)
	}
	if _, err := os.Stat(filepath.Join(f.Spool, spool.DirFailed, "frames", "f0.png")); err != nil {
		t.Errorf("the burst is not kept whole in failed/: %v", err)
	}
	// A burst this model could not list either: the model's reason still.
	f.RenameIn(t, f.WriteBurstTmp(t, "notes", map[string][]byte{"notes.txt": []byte("not a frame")}))
	if rec := next(t, ch); rec.File != "notes" || !strings.Contains(rec.Reason, "trained on feature vectors") {
		t.Errorf("a burst that does not list: %+v, want the model's reason", rec)
	}
	f.Drop(t, "after.npy", devicetest.Batch(rand.New(rand.NewPCG(1, 1)), "bob"))
	if rec := next(t, ch); rec.File != "after.npy" || rec.Decision != "bob" {
		t.Errorf("next batch: %+v", rec)
	}
}

// burstModel writes to f.Model a model that reads image bursts through
// intensity:4x3.
func burstModel(t *testing.T, f *devicetest.Fixture) {
	t.Helper()
	fit := fitSpec(t, "intensity:4x3")
	D, ok := fit.OutputDim()
	if !ok {
		t.Fatal("intensity:4x3 has no fixed output dimension")
	}
	if err := model.WriteFile(f.Model, pipelineModel(fit, D)); err != nil {
		t.Fatal(err)
	}
}

// TestBurstReadWithinBatchTimeout: daemon.batch_timeout bounds a burst's
// read and its match together, and a stop gives up the read: the burst's
// frames are decoded under the batch's context. Here the read begins when
// the limit has passed (as after decoding large frames for that long):
// the burst fails naming the key, where it was read whole and decided with
// a fresh limit for the match, and its journal line has the frames and
// bytes of its listing, as every burst's; at a stop past daemon.stop_grace
// it stays in cur/ for the next start.
func TestBurstReadWithinBatchTimeout(t *testing.T) {
	const limit = 100 * time.Millisecond
	f := devicetest.NewFixture(t, "[daemon]\nbatch_timeout = \"100ms\"\nstop_grace = \"50ms\"\n")
	burstModel(t, f)
	frames := map[string][]byte{}
	var size int64
	for i, img := range devicetest.ImageSet(t, "cloth", 4) {
		frames[fmt.Sprintf("f%02d.png", i)] = devicetest.EncodeFrame(t, img, ".png")
		size += int64(len(frames[fmt.Sprintf("f%02d.png", i)]))
	}
	reading := make(chan string, 2)
	wait := make(chan time.Duration, 2)
	beforeRead = func(name string) { reading <- name; time.Sleep(<-wait) }
	defer func() { beforeRead = nil }()
	r, ch := newRunner(t, f, slog.DiscardHandler)
	stopped := false
	defer func() {
		if !stopped {
			r.Stop()
			r.Wait()
		}
		r.Close()
	}()
	f.RenameIn(t, f.WriteBurstTmp(t, "late", frames))
	<-reading
	wait <- 2 * limit
	rec := next(t, ch)
	if rec.File != "late" || rec.Decision != "failed" || !strings.Contains(rec.Reason, "not read and matched within daemon.batch_timeout") ||
		!strings.Contains(rec.Reason, "spool.max_burst_frames") || strings.Contains(rec.Reason, "spool.max_frames") {
		t.Errorf("a burst read after daemon.batch_timeout: %+v, want failed naming the key and the burst's limits", rec)
	}
	if !rec.Burst || rec.Frames != len(frames) || rec.Bytes != size {
		t.Errorf("the failed burst's journal line: burst %v, frames %d, bytes %d; want true, %d, %d (its listing's)", rec.Burst, rec.Frames, rec.Bytes, len(frames), size)
	}
	f.RenameIn(t, f.WriteBurstTmp(t, "stopped", frames))
	<-reading
	r.Stop() // stop_grace = 50ms ends while the read waits
	wait <- 2 * limit
	r.Wait()
	stopped = true
	select {
	case rec := <-ch:
		t.Errorf("a burst read after the stop's grace was decided: %+v", rec)
	default:
	}
	if _, err := os.Stat(filepath.Join(f.Spool, spool.DirCur, "stopped", "f00.png")); err != nil {
		t.Errorf("the burst given up at the stop is not in cur/: %v", err)
	}
}

// noiseBurst returns a burst of three w×h PNG frames of random pixels.
func noiseBurst(t *testing.T, rng *rand.Rand, w, h int) map[string][]byte {
	files := map[string][]byte{}
	for i := range 3 {
		img := image.NewGray(image.Rect(0, 0, w, h))
		for j := range img.Pix {
			img.Pix[j] = uint8(rng.IntN(256))
		}
		files[fmt.Sprintf("f%d.png", i)] = devicetest.EncodeFrame(t, img, ".png")
	}
	return files
}

// TestBurstWidthOfImageSize: a model whose pipeline's width follows the
// frames' size (hog:8 without @WxH) and that records no training image
// size (a model written before sizes were recorded) decides a burst of
// frames of its training size and fails one of another size, saying the
// features per frame differ and that the frames' size is why: no check
// before the read can see it, the width is known only once the frames
// are read.
func TestBurstWidthOfImageSize(t *testing.T) {
	fit := fitSpec(t, "hog:8")
	if _, ok := fit.OutputDim(); ok {
		t.Fatal("hog:8 has a fixed width: the test needs one that follows the image size")
	}
	rng := rand.New(rand.NewPCG(81, 82))
	burst := func(w, h int) map[string][]byte { return noiseBurst(t, rng, w, h) }
	x, err := fit.Apply([]*image.Gray{image.NewGray(image.Rect(0, 0, 32, 32))})
	if err != nil {
		t.Fatal(err)
	}
	_, D := x.Dims()
	f := devicetest.NewFixture(t, "")
	if err := model.WriteFile(f.Model, pipelineModel(fit, D)); err != nil {
		t.Fatal(err)
	}
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	f.RenameIn(t, f.WriteBurstTmp(t, "same", burst(32, 32)))
	if rec := next(t, ch); rec.File != "same" || rec.Decision == model.Failed {
		t.Fatalf("a burst of the model's frame size: %+v", rec)
	}
	f.RenameIn(t, f.WriteBurstTmp(t, "larger", burst(64, 64)))
	rec := next(t, ch)
	if want := fmt.Sprintf("features per frame, model %s expects %d: %s", f.Model, D, fit.Pipeline.SizeNote()); rec.File != "larger" || rec.Decision != model.Failed || !strings.Contains(rec.Reason, want) {
		t.Fatalf("a burst of larger frames: %+v, want failed with %q", rec, want)
	}
}

// TestBurstOfAnotherSizeThanTraining: a model whose pipeline records the
// training images' size (lbp:2x2, whose number of features is the same
// at every size) decides a burst of that size and fails one of another
// size, saying why and what to do, and the daemon goes on to the next;
// setmatchd -check names the size.
func TestBurstOfAnotherSizeThanTraining(t *testing.T) {
	fit := fitSpec(t, "lbp:2x2")
	fit.FrameSize = image.Pt(32, 24)
	if got, want := (burstPipeline{fit: fit}).describe(), "features lbp:2x2, frames of 32x24 only (the training images' size)"; got != want {
		t.Errorf("-check says bursts: %q, want %q", got, want)
	}
	x, err := fit.Apply([]*image.Gray{image.NewGray(image.Rect(0, 0, 32, 24))})
	if err != nil {
		t.Fatal(err)
	}
	_, D := x.Dims()
	rng := rand.New(rand.NewPCG(85, 86))
	f := devicetest.NewFixture(t, "")
	if err := model.WriteFile(f.Model, pipelineModel(fit, D)); err != nil {
		t.Fatal(err)
	}
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	f.RenameIn(t, f.WriteBurstTmp(t, "larger", noiseBurst(t, rng, 64, 48)))
	rec := next(t, ch)
	if want := "frame is 64x48 but the model's training images were 32x24: lbp:2x2 uses each image at its own size, so a frame of another size is described at another scale than the model learned; send frames of 32x24, or train again with a size (e.g. lbp:2x2@32x24) to resize every frame"; rec.File != "larger" || rec.Decision != model.Failed || !strings.Contains(rec.Reason, want) {
		t.Fatalf("a burst of larger frames: %+v, want failed with %q", rec, want)
	}
	f.RenameIn(t, f.WriteBurstTmp(t, "same", noiseBurst(t, rng, 32, 24)))
	if rec := next(t, ch); rec.File != "same" || rec.Decision == model.Failed {
		t.Fatalf("a burst of the training images' size: %+v", rec)
	}
}

// TestBurstInterruptedThrice: a burst whose reading or matching was
// interrupted three times fails without a fourth attempt, and its journal
// line says what every burst's says: "burst", the frames listed and their
// bytes (FORMATS.md, Image bursts), though no frame is read.
func TestBurstInterruptedThrice(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	tmp := f.WriteBurstTmp(t, "poison", map[string][]byte{"f0.png": []byte("not read"), "f1.png": []byte("nor this")})
	if err := os.MkdirAll(filepath.Join(f.Spool, spool.DirCur), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.Spool, spool.DirCur, "poison")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.Spool, spool.DirCur, ".poison.retry"), []byte("3\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	rec := next(t, ch)
	if rec.File != "poison" || rec.Decision != "failed" || !strings.Contains(rec.Reason, "stopped 3 times while reading or matching") {
		t.Fatalf("record %+v", rec)
	}
	if !rec.Burst || rec.Frames != 2 || rec.Bytes != 16 {
		t.Errorf("burst %v, frames %d, bytes %d; want true, 2, 16", rec.Burst, rec.Frames, rec.Bytes)
	}
}
