package device

import (
	"sort"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// Transition is one level change recorded by a Recorder.
type Transition struct {
	Time  time.Time
	Pin   string
	Level gpio.Level
}

// Recorder is a Driver for tests: it records every transition of every line
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

// NewRecorder returns a Recorder; with no names, any line name opens.
func NewRecorder(available ...string) *Recorder {
	a := append([]string(nil), available...)
	sort.Strings(a)
	return &Recorder{available: a, level: map[string]gpio.Level{}}
}

// Open returns a recording line, or a *MissingPinError for a name not in the
// list given to NewRecorder.
func (r *Recorder) Open(name string) (Line, error) {
	if len(r.available) > 0 {
		i := sort.SearchStrings(r.available, name)
		if i == len(r.available) || r.available[i] != name {
			return nil, &MissingPinError{Pin: name, Available: append([]string(nil), r.available...)}
		}
	}
	return &recLine{r: r, name: name}, nil
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

// Level returns the last level driven on a line, and false if it was never
// driven.
func (r *Recorder) Level(pin string) (gpio.Level, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.level[pin]
	return l, ok
}

type recLine struct {
	r    *Recorder
	name string
}

func (l *recLine) Name() string { return l.name }

func (l *recLine) Out(v gpio.Level) error {
	t := Transition{Time: time.Now(), Pin: l.name, Level: v}
	l.r.mu.Lock()
	l.r.trans = append(l.r.trans, t)
	l.r.level[l.name] = v
	f := l.r.OnTransition
	l.r.mu.Unlock()
	if f != nil {
		f(t)
	}
	return nil
}
