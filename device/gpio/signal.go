package gpio

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// Pins says which line signals what. Empty names are not used.
type Pins struct {
	Match   string            // pulsed for every known decision
	Unknown string            // pulsed for an unknown (rejected) set
	Labels  map[string]string // label -> line, pulsed with Match for that label
}

// names returns the distinct line names, sorted.
func (p Pins) names() []string {
	set := map[string]struct{}{}
	for _, n := range append([]string{p.Match, p.Unknown}, mapValues(p.Labels)...) {
		if n != "" {
			set[n] = struct{}{}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// SignalOptions configures a Signaller.
type SignalOptions struct {
	Pins Pins
	// Pulse is how long a line stays active; the line then stays idle for
	// at least as long before its next pulse, so that pulses stay distinct.
	Pulse time.Duration
	// ActiveLow: active is Low and idle is High (for sinks wired to 3V3).
	ActiveLow bool
	// Backlog is how many decisions may wait per line (default 8); Signal
	// and Pulse drop a decision beyond it, on all its lines, and say so in
	// their error (the journal remains the record).
	Backlog int
}

// Signaller pulses GPIO lines to signal decisions. Pulses are asynchronous
// (Signal returns at once, a goroutine drives the lines). The lines of one
// decision (match and its label's) go active together and idle together;
// a line's pulses are serialised, each followed by an idle time as long,
// and a decision that shares a line with one before it waits for that one
// (so that two decisions close together never show one's label with the
// other's match pulse), while one on other lines (unknown after a match)
// need not. A Signaller is safe for concurrent use.
type Signaller struct {
	drv     Driver
	pins    Pins
	log     *slog.Logger
	pulse   atomic.Int64 // time.Duration
	act     gpio.Level
	backlog int
	lines   map[string]*outLine

	mu       sync.Mutex
	closed   bool
	draining bool // Drain was called: no new pulses
	idled    bool
	waiting  []*decision // queued, not started, in order
	active   int         // decisions in their active period
	wake     chan struct{}
	stop     chan struct{}
	wg       sync.WaitGroup
}

// outLine is one configured line.
type outLine struct {
	name    string
	line    Line
	waiting int // decisions queued on it, not started (Signaller.mu)
	// freeAt is when the line may start its next pulse: the end of the
	// idle time after its last one (the driving goroutine's own).
	freeAt time.Time
}

// decision is the pulse of one decision on its lines.
type decision struct {
	lines []*outLine
	d     time.Duration
	end   time.Time // the end of its active period, once started
}

// never is a freeAt while the line is active.
var never = time.Unix(1<<62, 0)

// NewSignaller opens every configured line through drv at its idle level
// (the driver takes it as an output at that level: no line shows its
// active level before a decision). On error, lines opened so far are
// driven idle again.
func NewSignaller(drv Driver, opt SignalOptions, log *slog.Logger) (*Signaller, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opt.Pulse <= 0 {
		return nil, fmt.Errorf("gpio: pulse length %v must be positive", opt.Pulse)
	}
	backlog := opt.Backlog
	if backlog <= 0 {
		backlog = 8
	}
	s := &Signaller{drv: drv, pins: opt.Pins, log: log, act: gpio.High, backlog: backlog, lines: map[string]*outLine{},
		wake: make(chan struct{}, 1), stop: make(chan struct{})}
	if opt.ActiveLow {
		s.act = gpio.Low
	}
	s.pulse.Store(int64(opt.Pulse))
	for _, name := range opt.Pins.names() {
		l, err := drv.Open(name, !s.act)
		if err != nil {
			s.Idle()
			return nil, err
		}
		s.lines[name] = &outLine{name: name, line: l}
	}
	s.wg.Add(1)
	go s.run()
	return s, nil
}

// SetPulse changes the pulse length for pulses started from now on.
func (s *Signaller) SetPulse(d time.Duration) {
	if d > 0 {
		s.pulse.Store(int64(d))
	}
}

// Signal pulses the lines for a decision: Match and the label's line
// together for a known label, Unknown otherwise.
func (s *Signaller) Signal(known bool, label string) error {
	if !known {
		return s.queue(s.pins.Unknown)
	}
	return s.queue(s.pins.Match, s.pins.Labels[label])
}

// Pulse queues one pulse on the named line. An empty name does nothing.
func (s *Signaller) Pulse(name string) error { return s.queue(name) }

// queue queues one decision's pulse on the named lines (empty names are
// not wired); where one of them has the backlog waiting already, the whole
// decision is dropped and the error says so.
func (s *Signaller) queue(names ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var lines []*outLine
	for _, name := range names {
		if name == "" {
			continue
		}
		ol, ok := s.lines[name]
		if !ok {
			return fmt.Errorf("gpio: line %q is not configured", name)
		}
		if !slices.Contains(lines, ol) {
			lines = append(lines, ol)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	if s.closed || s.draining {
		return errors.New("gpio: signaller is shut down")
	}
	for _, ol := range lines {
		if ol.waiting >= s.backlog {
			return fmt.Errorf("gpio: %s: pulse dropped: the line already has %d waiting (the journal keeps the decision)", ol.name, s.backlog)
		}
	}
	for _, ol := range lines {
		ol.waiting++
	}
	s.waiting = append(s.waiting, &decision{lines: lines, d: time.Duration(s.pulse.Load())})
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// run is the goroutine that drives the lines: it ends the active periods
// that are over, starts the decisions whose lines are free, and sleeps
// until the next of those times or a new decision.
func (s *Signaller) run() {
	defer s.wg.Done()
	var running []*decision
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		now := time.Now()
		kept := running[:0]
		for _, dc := range running {
			if now.Before(dc.end) {
				kept = append(kept, dc)
				continue
			}
			s.drive(dc, !s.act)
			idle := time.Now()
			for _, ol := range dc.lines {
				ol.freeAt = idle.Add(dc.d)
			}
			s.mu.Lock()
			s.active--
			s.mu.Unlock()
		}
		running = kept
		for _, dc := range s.start(now) {
			s.drive(dc, s.act)
			dc.end = time.Now().Add(dc.d)
			running = append(running, dc)
		}
		next := never
		for _, dc := range running {
			if dc.end.Before(next) {
				next = dc.end
			}
		}
		for _, ol := range s.lines {
			if ol.freeAt.After(now) && ol.freeAt.Before(next) {
				next = ol.freeAt
			}
		}
		if next != never {
			t.Reset(time.Until(next))
		}
		select {
		case <-t.C:
		case <-s.wake:
			t.Stop()
		case <-s.stop:
			t.Stop()
			return
		}
	}
}

// start takes from the queue, in order, the decisions whose lines are all
// free at now and not wanted by a decision before them that still waits,
// and marks their lines active.
func (s *Signaller) start(now time.Time) []*decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	var started, rest []*decision
	held := map[*outLine]bool{} // lines an earlier waiting decision wants
	for _, dc := range s.waiting {
		free := true
		for _, ol := range dc.lines {
			if held[ol] || now.Before(ol.freeAt) {
				free = false
			}
		}
		if !free {
			for _, ol := range dc.lines {
				held[ol] = true
			}
			rest = append(rest, dc)
			continue
		}
		for _, ol := range dc.lines {
			ol.waiting--
			ol.freeAt = never
		}
		s.active++
		started = append(started, dc)
	}
	s.waiting = rest
	return started
}

// drive drives the lines of dc to v.
func (s *Signaller) drive(dc *decision, v gpio.Level) {
	for _, ol := range dc.lines {
		if err := ol.line.Out(v); err != nil {
			what := "active"
			if v != s.act {
				what = "idle"
			}
			s.log.Error("gpio: drive "+what, "pin", ol.name, "err", err)
		}
	}
}

// Drain refuses new pulses, lets the pulses already queued run to their end
// for at most max (so that the last decision before a stop is signalled in
// full), then drives every line idle as Idle does.
func (s *Signaller) Drain(max time.Duration) error {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) && s.busy() {
		time.Sleep(2 * time.Millisecond)
	}
	return s.Idle()
}

// busy reports whether a pulse is queued or active.
func (s *Signaller) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiting) > 0 || s.active > 0
}

// Idle ends all pulses (cutting a running one short), drives every line to
// its idle level and refuses further pulses. Calling it again does nothing.
func (s *Signaller) Idle() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.stop)
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idled {
		return nil
	}
	s.idled = true
	var errs []error
	for name, ol := range s.lines {
		if err := ol.line.Out(!s.act); err != nil {
			errs = append(errs, fmt.Errorf("gpio: set %s idle: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// Close drives all lines idle and releases the driver.
func (s *Signaller) Close() error {
	return errors.Join(s.Idle(), s.drv.Close())
}
