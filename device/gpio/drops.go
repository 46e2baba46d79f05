package gpio

import "time"

// dropEvery is the least time between two log lines of one line's dropped
// pulses.
const dropEvery = time.Minute

// clock is the time of the drops that the log says; tests step it.
var clock = time.Now

// dropCount is what the log has said of one line's dropped pulses, so that
// a flood of decisions makes a line a minute, not a line a decision: the
// first drop after a quiet interval is said at once (drop), the drops from
// then on are summed up an interval after the last line (due, the sum
// counting that first drop too), so that the last sum comes at most an
// interval after the last drop, and what is left at a stop is summed up
// then (flush). The times are the caller's: it reads no clock.
type dropCount struct {
	n     uint64    // drops in no sum yet
	since time.Time // the first of them
	said  time.Time // when the last line of this line's drops was said (zero: never)
}

// drop counts one drop at now and reports whether it is to be said at once:
// it is the first in no sum yet, and no line of them was said within every
// before now.
func (d *dropCount) drop(now time.Time, every time.Duration) (say bool) {
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

// due returns the drops in no sum yet and the time of the first, and takes
// them, where a sum is due at now: every after the last line said.
func (d *dropCount) due(now time.Time, every time.Duration) (n uint64, since time.Time, ok bool) {
	if d.n == 0 || now.Sub(d.said) < every {
		return 0, time.Time{}, false
	}
	n, since = d.flush()
	d.said = now
	return n, since, true
}

// wait returns how long after now the next sum is due, and false when no
// drop waits for one.
func (d *dropCount) wait(now time.Time, every time.Duration) (time.Duration, bool) {
	if d.n == 0 {
		return 0, false
	}
	return d.said.Add(every).Sub(now), true
}

// flush returns the drops in no sum yet and the time of the first, due or
// not, and takes them.
func (d *dropCount) flush() (n uint64, since time.Time) {
	n, since = d.n, d.since
	d.n, d.since = 0, time.Time{}
	return n, since
}
