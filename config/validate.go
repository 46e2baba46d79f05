package config

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// The most spool.max_batch_bytes and spool.max_frame_bytes may be: the
// batch or frame is read whole into memory.
const (
	MaxBatchBytes = 4 << 30
	MaxFrameBytes = 1 << 30
)

// MaxFramePixels bounds spool.max_frame_pixels: a frame is decoded in up
// to 4 bytes a pixel of the limit, 1 GiB at 2^28 pixels (16384 × 16384).
const MaxFramePixels = 1 << 28

// MaxJournalKeep bounds journal.keep: each rotation renames every rotated
// journal kept, one by one.
const MaxJournalKeep = 1000

// MinJournalBytes is the smallest journal.max_bytes but 0 (never rotate):
// a decision's line is some hundred bytes, and a smaller journal would
// rotate every few lines, renaming every rotated journal kept each time.
const MinJournalBytes = 64 << 10

// MinTmpMaxAge is the shortest spool.tmp_max_age but 0 (never): what
// stays unchanged in tmp/ for that long is removed, and a camera writing
// a burst slowly (a frame a few seconds apart) must not lose it.
const MinTmpMaxAge = time.Minute

// Validate checks every value of c. The errors name keys by path but not
// files (Load also names the file that set each key).
func (c *Config) Validate() error {
	return errors.Join(c.problems(nil, nil)...)
}

// validate checks l.cfg and names the file and line that set each bad key.
func (l *loader) validate() error {
	return errors.Join(l.cfg.problems(func(e *Error) { locateIn(l.source, e) }, func(key string) bool {
		_, ok := l.source[key]
		return ok
	})...)
}

// problems returns one *Error per invalid key; locate, if not nil, fills
// in where the key was set. A check between two keys blames the one a
// file set (isSet, if not nil), so that the error has a place and names
// what the user wrote, not a default.
func (c *Config) problems(locate func(*Error), isSet func(key string) bool) []error {
	set := func(key string) bool { return isSet != nil && isSet(key) }
	// setAt says where a file set key, for a check between two keys that
	// both were: " (set at file:line:column)", or "".
	setAt := func(key string) string {
		if locate == nil || !set(key) {
			return ""
		}
		e := &Error{Key: key}
		locate(e)
		if p := e.place(); p != "" {
			return " (set at " + p + ")"
		}
		return ""
	}
	var errs []error
	bad := func(key, format string, a ...any) {
		e := &Error{Key: key, Err: fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))}
		if locate != nil {
			locate(e)
		}
		errs = append(errs, e)
	}
	nonEmpty := func(key, v string) {
		if strings.TrimSpace(v) == "" {
			bad(key, "must not be empty")
		}
	}
	positiveDur := func(key string, d Duration) {
		if d.Duration <= 0 {
			bad(key, "must be > 0, got %q", d.String())
		}
	}
	nonNegDur := func(key string, d Duration) {
		if d.Duration < 0 {
			bad(key, "must be ≥ 0 (0 = no limit), got %q", d.String())
		}
	}
	nonNegSize := func(key string, v Size) {
		if v < 0 {
			bad(key, "must be ≥ 0 (0 = no limit), got %d", int64(v))
		}
	}
	nonNeg := func(key string, v int) {
		if v < 0 {
			bad(key, "must be ≥ 0, got %d", v)
		}
	}
	oneOf := func(key, v string, allowed ...string) {
		for _, a := range allowed {
			if v == a {
				return
			}
		}
		bad(key, "must be %s, got %q", quoteList(allowed), v)
	}

	nonEmpty("model", c.Model)

	s := &c.Spool
	nonEmpty("spool.dir", s.Dir)
	if s.RescanInterval.Duration < MinRescan {
		bad("spool.rescan_interval", "must be ≥ %v, got %q: every rescan lists the spool's folders and prunes done/ and failed/ (\"1ms\" kept a core busy); file events see a batch at once, the rescan only catches one an event missed", MinRescan, s.RescanInterval.String())
	}
	if s.MaxBatchBytes <= 0 {
		bad("spool.max_batch_bytes", "must be > 0, got %d", int64(s.MaxBatchBytes))
	} else if s.MaxBatchBytes > MaxBatchBytes {
		bad("spool.max_batch_bytes", "must be ≤ 4GiB, got %d: a batch is read whole into memory (and parsed into up to 4 times that), so a larger limit bounds nothing", int64(s.MaxBatchBytes))
	}
	if s.MaxFrames < 1 {
		bad("spool.max_frames", "must be ≥ 1, got %d", s.MaxFrames)
	}
	if s.MaxBurstFrames < 1 {
		bad("spool.max_burst_frames", "must be ≥ 1, got %d", s.MaxBurstFrames)
	}
	if s.MaxFramePixels < 1 {
		bad("spool.max_frame_pixels", "must be ≥ 1, got %d", s.MaxFramePixels)
	} else if s.MaxFramePixels > MaxFramePixels {
		bad("spool.max_frame_pixels", "must be ≤ %d (16384 × 16384), got %d: a frame is decoded in up to 4 bytes a pixel of this limit, 1 GiB at that many, so a larger limit bounds nothing", MaxFramePixels, s.MaxFramePixels)
	}
	if s.MaxFrameBytes <= 0 {
		bad("spool.max_frame_bytes", "must be > 0, got %d", int64(s.MaxFrameBytes))
	} else if s.MaxFrameBytes > MaxFrameBytes {
		bad("spool.max_frame_bytes", "must be ≤ 1GiB, got %d: a frame file is read whole into memory, so a larger limit bounds nothing", int64(s.MaxFrameBytes))
	}
	oneOf("spool.done", s.Done, "keep", "delete")
	nonNeg("spool.done_max_files", s.DoneMaxFiles)
	nonNegSize("spool.done_max_bytes", s.DoneMaxBytes)
	nonNegDur("spool.done_max_age", s.DoneMaxAge)
	if s.Done == "keep" && s.DoneMaxFiles == 0 && s.DoneMaxBytes == 0 && s.DoneMaxAge.Duration == 0 {
		bad("spool.done_max_files", "with done = \"keep\", set done_max_files, done_max_bytes or done_max_age > 0 so that done/ cannot fill the disk (or use done = \"delete\")")
	}
	if s.FailedMaxFiles < 1 {
		bad("spool.failed_max_files", "must be ≥ 1 (failed/ must stay bounded), got %d", s.FailedMaxFiles)
	}
	nonNegSize("spool.failed_max_bytes", s.FailedMaxBytes)
	nonNegDur("spool.tmp_max_age", s.TmpMaxAge)
	if a := s.TmpMaxAge.Duration; a > 0 && a < MinTmpMaxAge {
		bad("spool.tmp_max_age", "must be 0 (never) or ≥ %v, got %q: what stays unchanged in tmp/ that long is removed, also a burst a slow camera is still writing", MinTmpMaxAge, s.TmpMaxAge.String())
	}

	j := &c.Journal
	nonEmpty("journal.path", j.Path)
	if j.MaxBytes < 0 {
		bad("journal.max_bytes", "must be ≥ 0 (0 = never rotate), got %d", int64(j.MaxBytes))
	} else if j.MaxBytes > 0 && j.MaxBytes < MinJournalBytes {
		bad("journal.max_bytes", "must be 0 (never rotate) or ≥ %v, got %d: a decision's line is some hundred bytes, and each rotation renames every rotated journal kept", Size(MinJournalBytes), int64(j.MaxBytes))
	}
	if j.Keep < 1 {
		bad("journal.keep", "must be ≥ 1 (rotated journals kept when journal.max_bytes is set), got %d", j.Keep)
	} else if j.Keep > MaxJournalKeep {
		bad("journal.keep", "must be ≤ %d, got %d: each rotation renames every rotated journal kept; to keep more history, raise journal.max_bytes", MaxJournalKeep, j.Keep)
	}

	g := &c.GPIO
	oneOf("gpio.backend", g.Backend, "periph", "log", "none")
	positiveDur("gpio.pulse", g.Pulse)
	if g.Pulse.Duration > MaxPulse {
		bad("gpio.pulse", "must be ≤ %v, got %q: a pin stays active that long for every decision, and idle as long before the next", MaxPulse, g.Pulse.String())
	}
	used := make(map[string]string) // pin name -> key
	for _, p := range g.Pins() {
		if strings.TrimSpace(p.Name) == "" {
			bad(p.Key, "pin name must not be empty (remove the key if the label has no pin)")
			continue
		}
		if prev, ok := used[p.Name]; ok {
			if !set(p.Key) && set(prev) {
				bad(prev, "pin %q is %s's too (its default): give one of them another pin", p.Name, p.Key)
			} else {
				bad(p.Key, "pin %q is already used by %s%s", p.Name, prev, setAt(prev))
			}
			continue
		}
		used[p.Name] = p.Key
	}
	for l := range g.LabelPins {
		if strings.TrimSpace(l) == "" {
			bad("gpio.label_pins", "a label must not be empty")
		}
	}

	d := &c.Decision
	if d.Threshold != nil {
		if t := *d.Threshold; math.IsNaN(t) || t < 0 {
			bad("decision.threshold", "must be a number ≥ 0 or inf, got %v", t)
		}
	}
	if d.MinFrames < 1 {
		bad("decision.min_frames", "must be ≥ 1, got %d", d.MinFrames)
	} else if s.MaxFrames >= 1 && d.MinFrames > s.MaxFrames {
		if !set("decision.min_frames") && set("spool.max_frames") {
			bad("spool.max_frames", "is %d, fewer than decision.min_frames (%d, its default)", s.MaxFrames, d.MinFrames)
		} else {
			bad("decision.min_frames", "is %d, more than spool.max_frames (%d)", d.MinFrames, s.MaxFrames)
		}
	}

	nonNeg("daemon.workers", c.Daemon.Workers)
	positiveDur("daemon.batch_timeout", c.Daemon.BatchTimeout)
	positiveDur("daemon.stop_grace", c.Daemon.StopGrace)

	oneOf("log.level", c.Log.Level, "debug", "info", "warn", "error")
	oneOf("log.format", c.Log.Format, "text", "json")

	c.MQTT.problems(bad)
	c.Metrics.problems(bad)
	return errs
}

func quoteList(a []string) string {
	q := make([]string, len(a))
	for i, s := range a {
		q[i] = fmt.Sprintf("%q", s)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// MinRescan is the shortest spool.rescan_interval.
const MinRescan = time.Second

// MaxPulse is the longest gpio.pulse.
const MaxPulse = time.Minute
