package device

import (
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// A stop right after a decision must not cut its pulse short: Drain lets the
// queued pulses run to their end (within its bound), then idles the lines.
func TestDrainFinishesPulses(t *testing.T) {
	rec := NewRecorder()
	const pulse = 40 * time.Millisecond
	s, err := NewSignaller(rec, SignalOptions{Pins: Pins{Match: "GPIO17", Unknown: "GPIO27"}, Pulse: pulse}, nil)
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
	got := pulses(rec.Transitions(), "GPIO17", gpio.High)
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
	rec2 := NewRecorder()
	s2, _ := NewSignaller(rec2, SignalOptions{Pins: Pins{Match: "GPIO17"}, Pulse: time.Hour}, nil)
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
