package device

import (
	"context"
	"errors"
	"fmt"
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

// describe says in a few words how the model reads bursts (setmatchd -check).
func (b burstPipeline) describe() string {
	switch {
	case b.err != nil:
		return "refused: " + b.err.Error()
	case b.fit == nil:
		return "refused: the model was trained on feature vectors (no feature pipeline)"
	}
	return "features " + b.fit.Name()
}

// readBatch reads the claimed batch cur/name: an image burst when it is a
// directory, else a .npy or CSV file.
func (r *Runner) readBatch(ctx context.Context, st *state, name string, rec *journal.Record) (*mat.Dense, error) {
	dir, err := r.spool.ClaimedIsDir(name)
	if err != nil {
		return nil, err
	}
	if dir {
		return r.readBurst(ctx, st, name, rec)
	}
	if archiveExt[strings.ToLower(filepath.Ext(name))] {
		return nil, fmt.Errorf("batch %s is an archive: image bursts are directories, not archives; unpack the frames into tmp/NAME/ and rename that directory into new/", name)
	}
	return r.readFile(st, name, rec)
}

// archiveExt are the extensions of archives a camera might send for a burst.
var archiveExt = map[string]bool{".tar": true, ".tgz": true, ".gz": true, ".zip": true}

// readBurst turns the image burst cur/name into its feature matrix. Every
// name is resolved inside the spool; the burst's checks and limits are
// those of features.Fitted.ApplyBurst. The burst is listed once: the
// frames rec records are the ones decoded.
func (r *Runner) readBurst(ctx context.Context, st *state, name string, rec *journal.Record) (*mat.Dense, error) {
	rec.Burst = true
	b := st.burst
	switch {
	case b.err != nil:
		return nil, fmt.Errorf("image burst %s: model %s: %v", name, st.model.Path, b.err)
	case b.fit == nil:
		return nil, fmt.Errorf("image burst %s: model %s was trained on feature vectors and records no feature pipeline, so it cannot read image frames: send the burst's features as a .npy or CSV batch (setmatch features --features SPEC computes them), or train the model on image sets (setmatch train --features SPEC)", name, st.model.Path)
	}
	burst, err := features.OpenBurst(r.spool.Root(), spool.ClaimedPath(name), b.limits)
	if err != nil {
		return nil, r.burstErr(limitKeys(err, b.limits))
	}
	defer burst.Close()
	recordFrames(rec, burst.Frames)
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

// listBurst lists the claimed burst cur/name, reading no frame, and
// records in rec what the journal says of every burst (recordFrames).
func (r *Runner) listBurst(st *state, name string, rec *journal.Record) error {
	rec.Burst = true
	frames, err := features.ListBurst(r.spool.Root(), spool.ClaimedPath(name), st.burst.limits)
	if err != nil {
		return r.burstErr(limitKeys(err, st.burst.limits))
	}
	recordFrames(rec, frames)
	return nil
}

// recordFrames records in rec what the journal says of every burst: the
// frames listed and their files' bytes together.
func recordFrames(rec *journal.Record, frames []features.BurstFrame) {
	rec.Frames = len(frames)
	for _, f := range frames {
		rec.Bytes += f.Info.Size()
	}
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
