package device

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"setmatch/config"
	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/features"
	"setmatch/model"
)

// An image burst is a directory of frame images renamed into new/ (see
// docs/FORMATS.md, "Image bursts"). The daemon turns it into its n×D
// feature matrix with the feature pipeline the model records, exactly as
// training did, and matches that as it matches a .npy or CSV batch.

// modelPipeline returns the feature pipeline the model records (format 2
// models trained on images), or nil when it records none (a model trained
// on feature vectors).
func modelPipeline(m *model.Model) (*features.Fitted, error) { return m.Features, nil }

// burstLimits returns the configured limits on image bursts.
func burstLimits(s config.Spool) features.ImageLimits {
	return features.ImageLimits{MaxFrames: s.MaxBurstFrames, MaxPixels: s.MaxFramePixels, MaxFileBytes: int64(s.MaxFrameBytes)}
}

// burstPipeline is what a state reads bursts with: the model's pipeline,
// or why there is none.
type burstPipeline struct {
	fit    *features.Fitted
	err    error // the model records a pipeline this build cannot use
	limits features.ImageLimits
}

func newBurstPipeline(cfg *config.Config, m *Loaded) burstPipeline {
	fit, err := modelPipeline(m.Model)
	if err == nil && fit != nil {
		if d, ok := fit.OutputDim(); ok && d != m.Model.InputDim() {
			err = fmt.Errorf("the model's feature pipeline %s gives %d features per frame but the model takes %d", fit.Name(), d, m.Model.InputDim())
		}
	}
	return burstPipeline{fit: fit, err: err, limits: burstLimits(cfg.Spool)}
}

// describe says in a few words how the model reads bursts (setmatchd
// -check): its pipeline, and the one frame size it takes where it records
// one (features.Fitted.FrameSize).
func (b burstPipeline) describe() string {
	switch {
	case b.err != nil:
		return "refused: " + b.err.Error()
	case b.fit == nil:
		return "refused: the model was trained on feature vectors (no feature pipeline)"
	}
	if t := b.fit.FrameSize; t != (image.Point{}) {
		return fmt.Sprintf("features %s, frames of %dx%d only (the training images' size)", b.fit.Name(), t.X, t.Y)
	}
	return "features " + b.fit.Name()
}

// readBatch reads the claimed batch cur/name, opened once
// (spool.OpenClaimed): an image burst when it is a directory, listed and
// read from the open folder (one that cannot be opened fails as a burst,
// whatever its name), else a .npy or CSV file read from the open
// file. What is not a directory (a link included, which the open refuses)
// is refused by its name first when it names an archive or one image.
func (r *Runner) readBatch(ctx context.Context, st *state, name string, rec *journal.Record) (*mat.Dense, error) {
	f, fi, err := r.spool.OpenClaimed(name)
	if fi != nil && fi.IsDir() {
		if err != nil { // a burst all the same, whatever its name
			rec.Burst = true
			return nil, err
		}
		return r.readBurst(ctx, st, name, f, rec)
	}
	if f != nil {
		defer f.Close()
	}
	if archiveExt[strings.ToLower(filepath.Ext(name))] {
		return nil, fmt.Errorf("batch %s is an archive: image bursts are directories, not archives; unpack the frames into tmp/NAME/ and rename that directory into new/", name)
	}
	if features.IsBurstFrame(name) {
		return nil, fmt.Errorf("%s is one image: a burst is a folder of frame images (write them into tmp/NAME/ and rename the folder into new/, as camera-burst.sh does); a file in new/ is a .npy or .csv of features", name)
	}
	if err != nil {
		return nil, err
	}
	return r.readFile(st, name, f, fi, rec)
}

// archiveExt are the extensions of archives a camera might send for a burst.
var archiveExt = map[string]bool{".tar": true, ".tgz": true, ".gz": true, ".zip": true}

// readBurst turns the image burst cur/name, its folder d open, into its
// feature matrix; it closes d. The frames are opened from d; the burst's
// checks and limits are those of features.Fitted.ApplyBurst. The burst is
// listed once: the frames rec records are the ones decoded. Where the
// model cannot read image frames at all, that is the reason, whatever the
// listing found, and rec records the frames listed, if it could list them.
func (r *Runner) readBurst(ctx context.Context, st *state, name string, d *os.File, rec *journal.Record) (*mat.Dense, error) {
	b := st.burst
	burst, err := r.listBurst(st, name, d, rec)
	if err == nil {
		defer burst.Close()
	}
	switch {
	case b.err != nil:
		return nil, fmt.Errorf("image burst %s: model %s: %v", name, st.model.Path, b.err)
	case b.fit == nil:
		return nil, fmt.Errorf("image burst %s: model %s was trained on feature vectors and records no feature pipeline, so it cannot read image frames: send the burst's features as a .npy or CSV batch (setmatch features --features SPEC computes them), or train the model on image sets (setmatch train --features SPEC)", name, st.model.Path)
	case err != nil:
		return nil, r.burstErr(limitKeys(err, b.limits))
	}
	if afterBurstListed != nil {
		afterBurstListed(name)
	}
	x, err := b.fit.ApplyOpenBurst(ctx, burst)
	if err != nil {
		return nil, r.burstErr(limitKeys(err, b.limits))
	}
	return x, nil
}

// afterBurstListed, if set (by tests), is called once readBurst has listed
// the burst name, before its frames are read.
var afterBurstListed func(name string)

// recordUnread records in rec what the journal says of the claimed
// batch cur/name without reading it, opened once (spool.OpenClaimed): of
// a burst its listing's frames and bytes (listBurst), no frame read;
// of a regular file its size, as the line of every file batch read has
// it. What cannot be opened or listed leaves rec's frames and bytes 0 (a
// directory that cannot be opened is recorded as a burst all the same).
func (r *Runner) recordUnread(st *state, name string, rec *journal.Record) {
	f, fi, err := r.spool.OpenClaimed(name)
	if err != nil {
		rec.Burst = fi != nil && fi.IsDir()
		return
	}
	if !fi.IsDir() {
		f.Close()
		if fi.Mode().IsRegular() {
			rec.Bytes = fi.Size()
		}
		return
	}
	if burst, err := r.listBurst(st, name, f, rec); err == nil {
		burst.Close()
	}
}

// listBurst lists the claimed burst cur/name from its open folder d,
// within the limits of st's bursts, and records in rec what the journal
// says of every burst: a burst, and where it could be listed, the frames
// listed and their files' bytes together.
func (r *Runner) listBurst(st *state, name string, d *os.File, rec *journal.Record) (*features.Burst, error) {
	rec.Burst = true
	burst, err := features.BurstOf(r.spool.Root(), spool.ClaimedPath(name), d, st.burst.limits)
	if err != nil {
		return nil, err
	}
	rec.Frames = len(burst.Frames)
	for _, f := range burst.Frames {
		rec.Bytes += f.Info.Size()
	}
	return burst, nil
}

// limitKeys adds to an error of a burst over a limit the configuration
// keys that set the limits, with their values.
func limitKeys(err error, l features.ImageLimits) error {
	if !errors.Is(err, features.ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w (the daemon's limits: spool.max_burst_frames = %d, spool.max_frame_pixels = %d, spool.max_frame_bytes = %d)", err, l.MaxFrames, l.MaxPixels, l.MaxFileBytes)
}

// burstErr names the files of a burst from the burst on ("NAME/f003.jpg:
// …" rather than the path in cur/), since the reason is read beside the
// burst in failed/ and in the journal.
func (r *Runner) burstErr(err error) error {
	cur := filepath.Join(r.spool.Dir(), spool.DirCur) + string(filepath.Separator)
	return errors.New(strings.ReplaceAll(err.Error(), cur, ""))
}
