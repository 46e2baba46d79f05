package device

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A batch in hand is matched under a context of its own (batchContext): it
// ends when the batch has taken daemon.batch_timeout, or daemon.stop_grace
// after the Runner was told to stop. The matcher checks it between tiles of
// its work, so neither a huge batch nor a stop waits without limit.

// graceState holds the context that ends stop_grace after a stop.
type graceState struct {
	ctx    context.Context // ends stop_grace after the Runner's context
	cancel context.CancelFunc
}

// errStopping says the batch in hand was given up because the daemon is
// stopping and its grace ran out: it stays in cur/ for the next start.
var errStopping = errors.New("stopping: the batch in hand stays in cur/ for the next start")

// startGrace sets up r.grace for the Runner's context r.ctx: when r.ctx ends
// (Stop, or the end of Start's context), the batch in hand still has
// daemon.stop_grace.
func (r *Runner) startGrace() {
	r.grace.ctx, r.grace.cancel = context.WithCancel(context.WithoutCancel(r.ctx))
	context.AfterFunc(r.ctx, func() {
		time.AfterFunc(r.Config().Daemon.StopGrace.Duration, r.grace.cancel)
	})
}

// batchContext returns the context one batch is read and matched under.
func (r *Runner) batchContext(st *state) (context.Context, context.CancelFunc) {
	parent := r.grace.ctx
	if parent == nil {
		parent = context.Background() // a Runner used without Start (tests)
	}
	return context.WithTimeout(parent, st.cfg.Daemon.BatchTimeout.Duration)
}

// matchErr turns the error of a read or match under batchContext into errStopping
// (leave the batch in cur/), a reason for failed/ for a batch over its time
// limit, naming the limits of its kind (an image burst's, or a batch
// file's), or err itself.
func (r *Runner) matchErr(st *state, name string, frames int, burst bool, err error) error {
	switch {
	case r.grace.ctx != nil && r.grace.ctx.Err() != nil:
		return errStopping
	case errors.Is(err, context.DeadlineExceeded):
		return overTimeError(name, frames, burst, st.cfg.Daemon.BatchTimeout.Duration)
	}
	return fmt.Errorf("batch %s: %w", name, err)
}

// overTimeError is the reason for failed/ of a batch of frames frames (0
// where a batch file's read did not get to count them) that was not read
// and matched within limit: it names the limits of its kind.
func overTimeError(name string, frames int, burst bool, limit time.Duration) error {
	smaller := "send smaller batches (spool.max_frames)"
	if burst {
		smaller = "send shorter bursts or smaller frames (spool.max_burst_frames, spool.max_frame_pixels)"
	}
	if frames > 0 {
		name = fmt.Sprintf("%s (%d frames)", name, frames)
	}
	return fmt.Errorf("batch %s was not read and matched within daemon.batch_timeout = %v: %s or raise the limit", name, limit, smaller)
}

// stalled reports whether the batch in hand has been in hand for longer
// than its time limit and one watchdog interval iv more, and for how long it
// has: the daemon then stops feeding the systemd watchdog (interval iv). A
// batch within its limit is being matched, not stuck; one well past it is,
// since the matcher gives up at the limit. The limit is the
// daemon.batch_timeout the batch was taken under: a reload that lowers it
// does not shorten the batch in hand's, under which it is still matched.
func (r *Runner) stalled(iv time.Duration) (time.Duration, bool) {
	b := r.busy.Load()
	if b == nil {
		return 0, false
	}
	d := time.Since(b.since)
	return d, d > b.limit+iv
}
