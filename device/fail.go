package device

import (
	"time"

	"setmatch/device/journal"
	"setmatch/model"
)

// fail records a batch that cannot be decided. As a decided batch, it leaves
// cur/ only once what records it is on disk: first its reason
// (failed/.reasons/NAME), then its journal line, each retried with backoff
// while the disk refuses (full or failing); then it moves to failed/. If the
// daemon stops meanwhile, the batch stays in cur/ and is handled again at
// the next start.
func (r *Runner) fail(rec *journal.Record, reason string) {
	r.failed.Add(1)
	r.log.Warn("batch failed", "file", rec.File, "reason", reason)
	rec.Decision, rec.Reason = model.Failed, reason
	rec.Time = time.Now().UTC()
	rec.LatencyMS = ms(time.Since(rec.Arrived))
	rec.Divergence, rec.Threshold = "", nil
	// Waiting for a writable disk is not being stuck: the watchdog must not
	// restart the daemon for a full disk.
	r.busy.Store(nil)
	reasonNotWritten := func(error) string {
		return "the reason of a failed batch cannot be written: the batch stays in cur/ until it can"
	}
	if !r.durably(reasonNotWritten, rec.File, func() error { return r.spool.WriteReason(rec.File, reason) }) {
		return
	}
	if !r.appendDurably(rec) {
		return
	}
	// Journaled, it is counted and published, moved or not (as a decided
	// batch is).
	if err := r.spool.MoveFailed(rec.File); err != nil {
		r.log.Error("batch stays in cur/ (handled again at restart)", "file", rec.File, "err", err)
	}
	r.afterMove()
	r.observe(rec)
}

// durably calls op until it succeeds, waiting JournalRetry (default 1 s,
// doubling up to a minute) between tries and logging msg(err), err the
// try's error, each time. It returns false if the daemon stops first.
func (r *Runner) durably(msg func(err error) string, file string, op func() error) bool {
	delay := r.opt.JournalRetry
	if delay <= 0 {
		delay = time.Second
	}
	for {
		err := op()
		if err == nil {
			return true
		}
		r.log.Error(msg(err), "file", file, "err", err, "retry_in", delay)
		if r.ctx == nil {
			return false
		}
		select {
		case <-r.ctx.Done():
			return false
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Minute)
	}
}
