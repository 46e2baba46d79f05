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

	"setmatch/internal/dropcount"
)

// dropEvery is the least time between two log lines of one line's dropped
// pulses.
const dropEvery = time.Minute

// clock is the time of the drops that the log says; tests step it.
var clock = time.Now

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
	// their error (ErrDropped; the journal remains the record). The log
	// says a line's drops once when they begin and sums them up once a
	// minute while they go on, and at the stop (dropcount.Count).
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
	order   []*outLine    // the lines opened, in the order of their names
	dropped atomic.Uint64 // decisions dropped

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
	waiting int             // decisions queued on it, not started (Signaller.mu)
	drops   dropcount.Count // what the log said of the decisions dropped for it (Signaller.mu)
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
		s.order = append(s.order, s.lines[name])
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

// ErrDropped is the error of a decision whose pulse was dropped: a line of
// it had the backlog waiting.
var ErrDropped = errors.New("pulse dropped")

// Dropped returns the number of decisions dropped so far (Signal's and
// Pulse's ErrDropped).
func (s *Signaller) Dropped() uint64 { return s.dropped.Load() }

// queue queues one decision's pulse on the named lines (empty names are
// not wired); where one of them has the backlog waiting already, the whole
// decision is dropped, counted for that line, and the error says so.
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
			s.dropped.Add(1)
			if ol.drops.Drop(clock(), dropEvery) {
				s.log.Warn(fmt.Sprintf("gpio: line %s: pulse dropped: the line already has %d waiting (decisions come faster than its pulses end); further drops are summed up once a minute while they go on; the journal keeps every decision", ol.name, s.backlog))
			}
			select { // run times the sum
			case s.wake <- struct{}{}:
			default:
			}
			return fmt.Errorf("gpio: %s: %w: the line already has %d waiting (the journal keeps the decision)", ol.name, ErrDropped, s.backlog)
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
		wait, waiting := s.sayDrops()
		if next != never && (!waiting || time.Until(next) < wait) {
			wait, waiting = time.Until(next), true
		}
		if waiting {
			t.Reset(wait)
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

// sayDrops logs the sums of dropped pulses that are due, and returns how
// long until the next one is, if any is waiting.
func (s *Signaller) sayDrops() (wait time.Duration, waiting bool) {
	now := clock()
	var sums []string
	s.mu.Lock()
	for _, ol := range s.order {
		if n, since, ok := ol.drops.Due(now, dropEvery); ok {
			sums = append(sums, dropSum(ol.name, n, since))
		}
		if w, ok := ol.drops.Wait(now, dropEvery); ok && (!waiting || w < wait) {
			wait, waiting = w, true
		}
	}
	s.mu.Unlock()
	for _, m := range sums {
		s.log.Warn(m)
	}
	return wait, waiting
}

// dropSum is the log line of n pulses dropped on a line since a time.
func dropSum(name string, n uint64, since time.Time) string {
	pulses := "pulses"
	if n == 1 {
		pulses = "pulse"
	}
	return fmt.Sprintf("gpio: line %s: %d %s dropped since %s; the journal keeps every decision", name, n, pulses, since.UTC().Format(time.RFC3339))
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

// busy reports whether a pulse is queued or active and may run: none
// does after Idle.
func (s *Signaller) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && (len(s.waiting) > 0 || s.active > 0)
}

// Idle ends all pulses (cutting a running one short), drives every line to
// its idle level, sums up the drops the log has not yet summed up, and
// refuses further pulses. Calling it again does nothing.
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
	for _, ol := range s.order {
		if n, since := ol.drops.Flush(); n > 0 {
			s.log.Warn(dropSum(ol.name, n, since))
		}
	}
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
