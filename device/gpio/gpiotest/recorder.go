// Package gpiotest provides Recorder, a fake GPIO driver that records every
// transition, for tests of code that signals through package gpio.
package gpiotest

import (
	"sort"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"

	devgpio "setmatch/device/gpio"
)

// Transition is one level change recorded by a Recorder.
type Transition struct {
	Time  time.Time
	Pin   string
	Level gpio.Level
	// Open: the line was taken at Level by Open (its idle level), not
	// driven by Out.
	Open bool
}

// Recorder is a devgpio.Driver for tests: it records every transition of every line
// with its time. With a list of line names it behaves like a machine that has
// only those lines.
type Recorder struct {
	mu        sync.Mutex
	available []string
	trans     []Transition
	level     map[string]gpio.Level
	closed    bool
	// OnTransition, if set before use, is called (without locks held) after
	// each transition is recorded.
	OnTransition func(Transition)
}

// The fakes stand in for these interfaces of package gpio.
var (
	_ devgpio.Driver = (*Recorder)(nil)
	_ devgpio.Line   = (*recLine)(nil)
)

// NewRecorder returns a Recorder; with no names, any line name opens.
func NewRecorder(available ...string) *Recorder {
	a := append([]string(nil), available...)
	sort.Strings(a)
	return &Recorder{available: a, level: map[string]gpio.Level{}}
}

// Open returns a recording line, taken at level idle (recorded as a
// Transition with Open set), or a *devgpio.MissingPinError for a name not
// in the list given to NewRecorder.
func (r *Recorder) Open(name string, idle gpio.Level) (devgpio.Line, error) {
	if len(r.available) > 0 {
		i := sort.SearchStrings(r.available, name)
		if i == len(r.available) || r.available[i] != name {
			return nil, &devgpio.MissingPinError{Pin: name, Available: append([]string(nil), r.available...)}
		}
	}
	l := &recLine{r: r, name: name}
	l.record(idle, true)
	return l, nil
}

// Close marks the recorder closed.
func (r *Recorder) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return nil
}

// Closed reports whether Close was called.
func (r *Recorder) Closed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Transitions returns a copy of everything recorded so far, in order.
func (r *Recorder) Transitions() []Transition {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Transition(nil), r.trans...)
}

// Level returns the last level of a line, the one Open took it at or the
// last driven, and false if it was never opened.
func (r *Recorder) Level(pin string) (gpio.Level, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.level[pin]
	return l, ok
}

// Pulses returns the length of each active period on pin, in order; a
// period still active is not counted.
func (r *Recorder) Pulses(pin string, active gpio.Level) []time.Duration {
	var out []time.Duration
	var on time.Time
	for _, x := range r.Transitions() {
		if x.Pin != pin {
			continue
		}
		if x.Level == active && on.IsZero() {
			on = x.Time
		} else if x.Level != active && !on.IsZero() {
			out = append(out, x.Time.Sub(on))
			on = time.Time{}
		}
	}
	return out
}

type recLine struct {
	r    *Recorder
	name string
}

func (l *recLine) Name() string { return l.name }

func (l *recLine) Out(v gpio.Level) error {
	l.record(v, false)
	return nil
}

func (l *recLine) record(v gpio.Level, open bool) {
	t := Transition{Time: time.Now(), Pin: l.name, Level: v, Open: open}
	l.r.mu.Lock()
	l.r.trans = append(l.r.trans, t)
	l.r.level[l.name] = v
	f := l.r.OnTransition
	l.r.mu.Unlock()
	if f != nil {
		f(t)
	}
}
