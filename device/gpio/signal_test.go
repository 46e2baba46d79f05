package gpio_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"

	devgpio "setmatch/device/gpio"
	"setmatch/device/gpio/gpiotest"
	"setmatch/internal/testutil"
)

// A stop right after a decision must not cut its pulse short: Drain lets the
// queued pulses run to their end (within its bound), then idles the lines.
func TestDrainFinishesPulses(t *testing.T) {
	rec := gpiotest.NewRecorder()
	const pulse = 40 * time.Millisecond
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17", Unknown: "GPIO27"}, Pulse: pulse}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(true, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(true, ""); err != nil { // queued behind the first
		t.Fatal(err)
	}
	if err := s.Drain(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	got := rec.Pulses("GPIO17", gpio.High)
	if len(got) != 2 {
		t.Fatalf("GPIO17 pulses %v, want both queued pulses", got)
	}
	for _, d := range got {
		if d < pulse {
			t.Errorf("a pulse lasted %v, shorter than %v: cut by the stop", d, pulse)
		}
	}
	if l, _ := rec.Level("GPIO17"); l != gpio.Low {
		t.Errorf("GPIO17 left %v after Drain", l)
	}
	if err := s.Pulse("GPIO17"); err == nil {
		t.Error("a pulse was accepted after Drain")
	}

	// The bound holds: a long pulse is cut at max.
	rec2 := gpiotest.NewRecorder()
	s2, _ := devgpio.NewSignaller(rec2, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17"}, Pulse: time.Hour}, nil)
	s2.Signal(true, "")
	start := time.Now()
	s2.Drain(50 * time.Millisecond)
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("Drain took %v with a 50ms bound", el)
	}
	if l, _ := rec2.Level("GPIO17"); l != gpio.Low {
		t.Errorf("GPIO17 left %v after a bounded Drain", l)
	}
}

// A pulse beyond the backlog is dropped with one error that says so; the
// pulses that wait are not disturbed.
func TestPulseBeyondBacklog(t *testing.T) {
	rec := gpiotest.NewRecorder()
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17"}, Pulse: time.Hour, Backlog: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Pulse("GPIO17"); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 5*time.Second, "the first pulse active", func() bool { l, _ := rec.Level("GPIO17"); return l == gpio.High })
	if err := s.Pulse("GPIO17"); err != nil { // waits behind the first
		t.Fatalf("the one pulse the backlog holds: %v", err)
	}
	err = s.Pulse("GPIO17")
	if err == nil || !strings.Contains(err.Error(), "GPIO17: pulse dropped: the line already has 1 waiting") {
		t.Errorf("a pulse beyond the backlog: %v, want it dropped with the reason", err)
	}
}

// TestDropsSaidOnceAMinute: the log says a line's dropped pulses at once
// when they begin, then sums them up once a minute while they go on (at
// the times of the clock the test steps), and what is left at the stop;
// after a quiet minute it says them at once again. Every drop is in one
// sum, and in Dropped.
func TestDropsSaidOnceAMinute(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	step := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	devgpio.SetClock(t, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	log := new(testutil.LockedBuffer)
	rec := gpiotest.NewRecorder()
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17", Unknown: "GPIO27"}, Pulse: time.Hour, Backlog: 2},
		slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// GPIO17 active for an hour, and its backlog full behind it.
	for range 3 {
		if err := s.Pulse("GPIO17"); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, 5*time.Second, "the first pulse active", func() bool { l, _ := rec.Level("GPIO17"); return l == gpio.High })
	}
	flood := func(k int) {
		t.Helper()
		for range k {
			if err := s.Pulse("GPIO17"); !errors.Is(err, devgpio.ErrDropped) {
				t.Fatalf("a pulse beyond the backlog: %v, want ErrDropped", err)
			}
		}
	}
	lines := func() []string {
		var out []string
		for l := range strings.Lines(log.String()) {
			if strings.Contains(l, "dropped") {
				out = append(out, strings.TrimSuffix(l, "\n"))
			}
		}
		return out
	}
	// wake lets the goroutine that drives the lines see the clock stepped,
	// as the end of a pulse would (none ends within the hour).
	wake := func() {
		t.Helper()
		if err := s.Pulse("GPIO27"); err != nil {
			t.Fatal(err)
		}
	}
	said := func(want ...string) {
		t.Helper()
		testutil.WaitFor(t, 5*time.Second, fmt.Sprintf("%d lines of drops", len(want)), func() bool { return len(lines()) >= len(want) })
		got := lines()
		if len(got) != len(want) {
			t.Fatalf("lines of drops:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
		}
		for i, w := range want {
			if !strings.Contains(got[i], w) {
				t.Errorf("line %d of drops %q, want %q in it", i+1, got[i], w)
			}
		}
	}
	begins := "gpio: line GPIO17: pulse dropped: the line already has 2 waiting"
	flood(5) // 12:00:00
	said(begins)
	step(30 * time.Second)
	flood(5) // 12:00:30: summed up a minute after the first line
	said(begins)
	step(30 * time.Second)
	wake()
	said(begins, "gpio: line GPIO17: 10 pulses dropped since 2026-03-01T12:00:00Z;")
	step(10 * time.Second)
	flood(3) // 12:01:10: within a minute of the last line
	step(50 * time.Second)
	wake()
	said(begins, "10 pulses", "gpio: line GPIO17: 3 pulses dropped since 2026-03-01T12:01:10Z;")
	step(5 * time.Minute)
	flood(2) // 12:07:00: after a quiet minute, said at once again
	said(begins, "10 pulses", "3 pulses", begins)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	said(begins, "10 pulses", "3 pulses", begins, "gpio: line GPIO17: 2 pulses dropped since 2026-03-01T12:07:00Z;")
	if n := s.Dropped(); n != 15 {
		t.Errorf("Dropped = %d, want 15", n)
	}
}

func TestSignallerSerialisesPulses(t *testing.T) {
	rec := gpiotest.NewRecorder()
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17", Unknown: "GPIO27"}, Pulse: 20 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.Pulse("GPIO17"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Pulse("GPIO4"); err == nil {
		t.Error("pulsed a line that is not configured")
	}
	testutil.WaitFor(t, 5*time.Second, "three pulses", func() bool { return len(rec.Pulses("GPIO17", gpio.High)) == 3 })
	// Pulses on one line never overlap and are separated by idle time.
	var last time.Time // end of the previous pulse
	high := false
	for _, x := range rec.Transitions() {
		if x.Pin != "GPIO17" {
			continue
		}
		if x.Level == gpio.High {
			if high {
				t.Error("line driven active twice without going idle")
			}
			if !last.IsZero() && x.Time.Sub(last) < 20*time.Millisecond {
				t.Errorf("pulse started %v after the previous ended", x.Time.Sub(last))
			}
			high = true
		} else if high {
			last, high = x.Time, false
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Pulse("GPIO17"); err == nil {
		t.Error("pulse accepted after Close")
	}
	for _, p := range []string{"GPIO17", "GPIO27"} {
		if l, ok := rec.Level(p); !ok || l != gpio.Low {
			t.Errorf("%s: %v", p, l)
		}
	}
	if !rec.Closed() {
		t.Error("driver not closed")
	}
}

// The log backend's lines are valid JSON logs: the line's level goes in a
// key of its own, not in the record's "level" a second time. Open logs the
// idle level the line is taken at, Out each level after it.
func TestLogDriverKeys(t *testing.T) {
	var b strings.Builder
	drv, err := devgpio.OpenDriver("log", "", slog.New(slog.NewJSONHandler(&b, nil)))
	if err != nil {
		t.Fatal(err)
	}
	l, _ := drv.Open("GPIO17", gpio.Low)
	l.Out(gpio.High)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{"Low", "High"}
	if len(lines) != len(want) {
		t.Fatalf("log %q: want %d lines", b.String(), len(want))
	}
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["level"] != "INFO" || rec["value"] != want[i] || rec["pin"] != "GPIO17" || strings.Count(line, `"level"`) != 1 {
			t.Errorf("log line %s: want the record's level INFO once and the line's value %s", line, want[i])
		}
	}
}

// TestLabelPulsesWithItsMatch: decisions that come within one pulse length
// of each other (two people at the door in one burst's time) are signalled
// each with its own label: every match pulse has its decision's label pin
// active with it, and no other label pin, so that a controller that reads
// the label pins on the match pin's rising edge reads who it was.
func TestLabelPulsesWithItsMatch(t *testing.T) {
	rec := gpiotest.NewRecorder()
	const pulse = 30 * time.Millisecond
	labels := map[string]string{"alice": "GPIO22", "bob": "GPIO23"}
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17", Unknown: "GPIO27", Labels: labels}, Pulse: pulse}, nil)
	if err != nil {
		t.Fatal(err)
	}
	decisions := []string{"alice", "bob", "", "bob", "alice"} // "": unknown
	for _, l := range decisions {
		if err := s.Signal(l != "", l); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drain(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	// Replay: at each rising edge of the match line, the label lines
	// active once every line of that decision has been driven (within
	// half a pulse: none goes idle before a pulse has passed).
	trans := rec.Transitions()
	for i, x := range trans {
		if x.Pin != "GPIO17" || x.Level != gpio.High {
			continue
		}
		lv := map[string]gpio.Level{}
		for _, y := range trans[:i+1] {
			lv[y.Pin] = y.Level
		}
		for _, y := range trans[i+1:] {
			if y.Time.Sub(x.Time) > pulse/2 {
				break
			}
			lv[y.Pin] = y.Level
		}
		var on []string
		for _, l := range []string{"alice", "bob"} {
			if lv[labels[l]] == gpio.High {
				on = append(on, l)
			}
		}
		got = append(got, strings.Join(on, "+"))
	}
	want := []string{"alice", "bob", "bob", "alice"}
	if !slices.Equal(got, want) {
		t.Errorf("label lines active at each match pulse: %q, want %q", got, want)
	}
	if n := len(rec.Pulses("GPIO27", gpio.High)); n != 1 {
		t.Errorf("%d unknown pulses, want 1", n)
	}
	// The unknown decision, on a line of its own, did not wait for the
	// match pulses queued before it.
	var unknownAt, secondMatch time.Time
	n := 0
	for _, x := range trans {
		switch {
		case x.Pin == "GPIO27" && x.Level == gpio.High && unknownAt.IsZero():
			unknownAt = x.Time
		case x.Pin == "GPIO17" && x.Level == gpio.High:
			if n++; n == 2 {
				secondMatch = x.Time
			}
		}
	}
	if !unknownAt.Before(secondMatch) {
		t.Errorf("the unknown pulse started at %v, after the second match pulse at %v: held behind pulses of other lines", unknownAt, secondMatch)
	}
}

// TestSignallerOpensIdle: with active_low, a Signaller takes every line at
// its idle level, High, through Open, and drives none of them (Low least
// of all) before a decision; a decision then pulses Low.
func TestSignallerOpensIdle(t *testing.T) {
	rec := gpiotest.NewRecorder()
	pins := devgpio.Pins{Match: "GPIO17", Unknown: "GPIO27", Labels: map[string]string{"alice": "GPIO22"}}
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: pins, Pulse: 20 * time.Millisecond, ActiveLow: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := rec.Transitions()
	var opened []string
	for _, x := range start {
		if !x.Open || x.Level != gpio.High {
			t.Errorf("at start: %s %v (opened %v), want each line only opened High", x.Pin, x.Level, x.Open)
		}
		opened = append(opened, x.Pin)
	}
	if want := []string{"GPIO17", "GPIO22", "GPIO27"}; !slices.Equal(opened, want) {
		t.Errorf("lines opened %v, want %v", opened, want)
	}
	if err := s.Signal(true, "alice"); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 5*time.Second, "alice's pulse", func() bool { return len(rec.Pulses("GPIO22", gpio.Low)) == 1 })
	if n := len(rec.Pulses("GPIO17", gpio.Low)); n != 1 {
		t.Errorf("%d match pulses, want 1", n)
	}
}

// holdAt makes rec hold the Signaller's driving goroutine the first time
// pin is driven to level, until release is called; held is closed once
// the goroutine is held. release may be called more than once: defer it
// after the Signaller's Close, which waits for that goroutine.
func holdAt(rec *gpiotest.Recorder, pin string, level gpio.Level) (held <-chan struct{}, release func()) {
	h, r := make(chan struct{}), make(chan struct{})
	var first, once sync.Once
	release = func() { once.Do(func() { close(r) }) }
	rec.OnTransition = func(x gpiotest.Transition) {
		if x.Pin == pin && x.Level == level && !x.Open {
			first.Do(func() { close(h); <-r })
		}
	}
	return h, release
}

// TestDrainRefusesNewDecisions: once a stop has begun, while Drain waits
// for the pulses queued before it, a new decision is refused with an
// error, also on a line that is free, rather than pulsed: the stop
// signals what was decided before it and nothing after.
func TestDrainRefusesNewDecisions(t *testing.T) {
	rec := gpiotest.NewRecorder()
	held, release := holdAt(rec, "GPIO17", gpio.High)
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17", Unknown: "GPIO27"}, Pulse: 5 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer release()
	if err := s.Signal(true, ""); err != nil {
		t.Fatal(err)
	}
	testutil.Within(t, 5*time.Second, "the match pulse started", func() { <-held })
	drained := make(chan error, 1)
	go func() { drained <- s.Drain(time.Minute) }()
	// Decisions asked for before Drain began are taken (up to the
	// backlog); once it has begun, they are refused.
	testutil.WaitFor(t, 5*time.Second, "a decision refused while Drain waits", func() bool {
		err := s.Signal(false, "")
		return err != nil && strings.Contains(err.Error(), "shut down")
	})
	release()
	var derr error
	testutil.Within(t, 10*time.Second, "Drain", func() { derr = <-drained })
	if derr != nil {
		t.Error(derr)
	}
	for _, p := range []string{"GPIO17", "GPIO27"} {
		if l, _ := rec.Level(p); l != gpio.Low {
			t.Errorf("%s left %v after Drain", p, l)
		}
	}
}

// TestPulseWaitsForAnEarlierDecision: a pulse on a free line still waits
// for a decision queued before it that wants that line too (held up by
// another of its lines), instead of slipping in ahead of it.
func TestPulseWaitsForAnEarlierDecision(t *testing.T) {
	rec := gpiotest.NewRecorder()
	held, release := holdAt(rec, "GPIO17", gpio.High)
	pins := devgpio.Pins{Match: "GPIO17", Labels: map[string]string{"bob": "GPIO23"}}
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: pins, Pulse: 5 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer release()
	if err := s.Pulse("GPIO17"); err != nil {
		t.Fatal(err)
	}
	testutil.Within(t, 5*time.Second, "the first pulse started", func() { <-held })
	// While GPIO17 is active: bob's decision waits for it; a pulse on
	// GPIO23 alone comes after bob's.
	if err := s.Signal(true, "bob"); err != nil {
		t.Fatal(err)
	}
	if err := s.Pulse("GPIO23"); err != nil {
		t.Fatal(err)
	}
	release()
	if err := s.Drain(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, x := range rec.Transitions() {
		if x.Level == gpio.High && !x.Open {
			order = append(order, x.Pin)
		}
	}
	if want := []string{"GPIO17", "GPIO17", "GPIO23", "GPIO23"}; !slices.Equal(order, want) {
		t.Errorf("pulses started on %v, want %v: the first pulse, bob's decision, then the pulse queued after it", order, want)
	}
}

// TestSetPulseKeepsAPositiveLength: SetPulse with a length that is not
// positive changes nothing: a pulse still lasts the length set before,
// not a pulse of no length that no controller would see.
func TestSetPulseKeepsAPositiveLength(t *testing.T) {
	rec := gpiotest.NewRecorder()
	const pulse = 20 * time.Millisecond
	s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17"}, Pulse: pulse}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetPulse(0)
	s.SetPulse(-time.Second)
	if err := s.Pulse("GPIO17"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got := rec.Pulses("GPIO17", gpio.High); len(got) != 1 || got[0] < pulse {
		t.Errorf("pulses %v, want one of at least %v", got, pulse)
	}
}

// TestNewSignallerRefusesNoPulse: a pulse length that is not positive is
// refused at the start, before any line is taken, rather than pulses no
// controller would see.
func TestNewSignallerRefusesNoPulse(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Millisecond} {
		rec := gpiotest.NewRecorder()
		if s, err := devgpio.NewSignaller(rec, devgpio.SignalOptions{Pins: devgpio.Pins{Match: "GPIO17"}, Pulse: d}, nil); err == nil {
			s.Close()
			t.Errorf("pulse %v: a Signaller was made", d)
		}
		if tr := rec.Transitions(); len(tr) != 0 {
			t.Errorf("pulse %v: lines taken: %v", d, tr)
		}
	}
}
