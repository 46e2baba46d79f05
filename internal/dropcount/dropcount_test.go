package dropcount

import (
	"testing"
	"time"
)

// TestCount: a drop is said at once only where no line was said within
// a minute before it and no sum waits; a sum is due a minute after the last
// line, not before, with every drop since the first in no sum; Flush takes
// what is left.
func TestCount(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	type step struct {
		op    string // "drop" (want: said), "due" and "flush" (want: n, since), "wait" (want: wait or none)
		s     int    // the time, seconds after t0
		said  bool
		n     uint64
		since int
		wait  int  // seconds
		none  bool // no sum waits
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a drop alone", []step{
			{op: "drop", s: 0, said: true},
			{op: "wait", s: 0, wait: 60},
			{op: "due", s: 59},
			{op: "due", s: 60, n: 1, since: 0},
			{op: "wait", s: 60, none: true},
		}},
		{"a flood", []step{
			{op: "drop", s: 0, said: true},
			{op: "drop", s: 1},
			{op: "drop", s: 70},
			{op: "wait", s: 70, wait: -10},
			{op: "due", s: 75, n: 3, since: 0},
			{op: "drop", s: 80},
			{op: "drop", s: 134},
			{op: "due", s: 134},
			{op: "wait", s: 134, wait: 1},
			{op: "due", s: 135, n: 2, since: 80},
		}},
		{"again after a quiet minute", []step{
			{op: "drop", s: 0, said: true},
			{op: "due", s: 60, n: 1, since: 0},
			{op: "drop", s: 119},
			{op: "due", s: 120, n: 1, since: 119},
			{op: "drop", s: 180, said: true},
			{op: "drop", s: 181},
			{op: "flush", s: 182, n: 2, since: 180},
			{op: "wait", s: 182, none: true},
			{op: "due", s: 300},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Count
			for i, st := range tc.steps {
				now := at(st.s)
				switch st.op {
				case "drop":
					if got := d.Drop(now, time.Minute); got != st.said {
						t.Errorf("step %d: drop at %ds said %v, want %v", i, st.s, got, st.said)
					}
				case "due":
					n, since, ok := d.Due(now, time.Minute)
					if ok != (st.n > 0) || n != st.n || ok && !since.Equal(at(st.since)) {
						t.Errorf("step %d: due at %ds = %d since %v (%v), want %d since %ds", i, st.s, n, since, ok, st.n, st.since)
					}
				case "flush":
					if n, since := d.Flush(); n != st.n || !since.Equal(at(st.since)) {
						t.Errorf("step %d: flush = %d since %v, want %d since %ds", i, n, since, st.n, st.since)
					}
				case "wait":
					w, ok := d.Wait(now, time.Minute)
					if ok == st.none || ok && w != time.Duration(st.wait)*time.Second {
						t.Errorf("step %d: wait at %ds = %v (%v), want %ds (none: %v)", i, st.s, w, ok, st.wait, st.none)
					}
				}
			}
		})
	}
}
