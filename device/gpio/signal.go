package gpio

import (
	"errors"
	"fmt"
	"log/slog"
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
	// Backlog is how many pulses may wait per line (default 8); Pulse
	// drops more and says so in its error (the journal remains the
	// record).
	Backlog int
}

// Signaller pulses GPIO lines to signal decisions. Pulses are asynchronous
// (Signal returns at once, a goroutine per line drives it) and serialised per
// line. A Signaller is safe for concurrent use.
type Signaller struct {
	drv   Driver
	pins  Pins
	log   *slog.Logger
	pulse atomic.Int64 // time.Duration
	act   gpio.Level
	lines map[string]*outLine

	mu       sync.Mutex
	closed   bool
	draining bool // Drain was called: no new pulses
	idled    bool
	wg       sync.WaitGroup
}

type outLine struct {
	line    Line
	pulses  chan time.Duration
	stop    chan struct{}
	pending atomic.Int32 // pulses queued or in their active period
}

// NewSignaller opens every configured line through drv and drives it to its
// idle level. On error, lines opened so far are driven idle again.
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
	s := &Signaller{drv: drv, pins: opt.Pins, log: log, act: gpio.High, lines: map[string]*outLine{}}
	if opt.ActiveLow {
		s.act = gpio.Low
	}
	s.pulse.Store(int64(opt.Pulse))
	for _, name := range opt.Pins.names() {
		l, err := drv.Open(name)
		if err != nil {
			s.Idle()
			return nil, err
		}
		if err := l.Out(!s.act); err != nil {
			s.Idle()
			return nil, fmt.Errorf("gpio: set %s to idle: %w", name, err)
		}
		ol := &outLine{line: l, pulses: make(chan time.Duration, backlog), stop: make(chan struct{})}
		s.lines[name] = ol
		s.wg.Add(1)
		go s.drive(ol)
	}
	return s, nil
}

// SetPulse changes the pulse length for pulses started from now on.
func (s *Signaller) SetPulse(d time.Duration) {
	if d > 0 {
		s.pulse.Store(int64(d))
	}
}

// Signal pulses the lines for a decision: Match and the label's line for a
// known label, Unknown otherwise.
func (s *Signaller) Signal(known bool, label string) error {
	if !known {
		return s.Pulse(s.pins.Unknown)
	}
	return errors.Join(s.Pulse(s.pins.Match), s.Pulse(s.pins.Labels[label]))
}

// Pulse queues one pulse on the named line. An empty name does nothing.
func (s *Signaller) Pulse(name string) error {
	if name == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.draining {
		return errors.New("gpio: signaller is shut down")
	}
	ol, ok := s.lines[name]
	if !ok {
		return fmt.Errorf("gpio: line %q is not configured", name)
	}
	ol.pending.Add(1)
	select {
	case ol.pulses <- time.Duration(s.pulse.Load()):
		return nil
	default:
		ol.pending.Add(-1)
		return fmt.Errorf("gpio: %s: pulse dropped: the line already has %d waiting (the journal keeps the decision)", name, cap(ol.pulses))
	}
}

// drive is the goroutine that owns one line: active, wait, idle, wait.
func (s *Signaller) drive(ol *outLine) {
	defer s.wg.Done()
	t := time.NewTimer(0)
	<-t.C
	wait := func(d time.Duration) bool {
		t.Reset(d)
		select {
		case <-t.C:
			return true
		case <-ol.stop:
			t.Stop()
			return false
		}
	}
	for {
		var d time.Duration
		select {
		case d = <-ol.pulses:
		case <-ol.stop:
			return
		}
		if err := ol.line.Out(s.act); err != nil {
			s.log.Error("gpio: drive active", "pin", ol.line.Name(), "err", err)
		}
		ok := wait(d)
		if err := ol.line.Out(!s.act); err != nil {
			s.log.Error("gpio: drive idle", "pin", ol.line.Name(), "err", err)
		}
		ol.pending.Add(-1)
		if !ok || !wait(d) {
			return
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

// busy reports whether any line has a pulse queued or active.
func (s *Signaller) busy() bool {
	for _, ol := range s.lines {
		if ol.pending.Load() > 0 {
			return true
		}
	}
	return false
}

// Idle ends all pulses (cutting a running one short), drives every line to
// its idle level and refuses further pulses. Calling it again does nothing.
func (s *Signaller) Idle() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		for _, ol := range s.lines {
			close(ol.stop)
		}
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
