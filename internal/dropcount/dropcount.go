// Package dropcount is what the log has said of a run of drops (a GPIO
// line's pulses, the MQTT outbox's decisions), so that a flood of drops
// makes a log line a minute, not a line a drop.
package dropcount

import "time"

// Count is what the log has said of one source's drops: the first drop
// after a quiet interval is said at once (Drop), the drops from then on
// are summed up an interval after the last line (Due, the sum counting
// that first drop too), so that the last sum comes at most an interval
// after the last drop, and what is left at a stop is summed up then
// (Flush). The times are the caller's: it reads no clock. Its zero value
// has no drops; it is not safe for concurrent use.
type Count struct {
	n     uint64    // drops in no sum yet
	since time.Time // the first of them
	said  time.Time // when the last line of these drops was said (zero: never)
}

// Drop counts one drop at now and reports whether it is to be said at
// once: it is the first in no sum yet, and no line of them was said within
// every before now.
func (d *Count) Drop(now time.Time, every time.Duration) (say bool) {
	d.n++
	if d.n > 1 {
		return false
	}
	d.since = now
	if !d.said.IsZero() && now.Sub(d.said) < every {
		return false
	}
	d.said = now
	return true
}

// Due returns the drops in no sum yet and the time of the first, and
// takes them, where a sum is due at now: every after the last line said.
func (d *Count) Due(now time.Time, every time.Duration) (n uint64, since time.Time, ok bool) {
	if d.n == 0 || now.Sub(d.said) < every {
		return 0, time.Time{}, false
	}
	n, since = d.Flush()
	d.said = now
	return n, since, true
}

// Wait returns how long after now the next sum is due, and false when no
// drop waits for one.
func (d *Count) Wait(now time.Time, every time.Duration) (time.Duration, bool) {
	if d.n == 0 {
		return 0, false
	}
	return d.said.Add(every).Sub(now), true
}

// Flush returns the drops in no sum yet and the time of the first, due or
// not, and takes them.
func (d *Count) Flush() (n uint64, since time.Time) {
	n, since = d.n, d.since
	d.n, d.since = 0, time.Time{}
	return n, since
}
