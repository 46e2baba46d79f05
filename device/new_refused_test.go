package device

import (
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/model"
)

// signallerGoroutines counts the goroutines that drive a Signaller's lines.
func signallerGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "gpio.(*Signaller).run(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestNewRefusedThresholdLeavesNothing: a configuration New refuses for
// its threshold (a number on a model that decides by a vote) leaves no
// Signaller running and takes no GPIO line: nothing is left open.
func TestNewRefusedThresholdLeavesNothing(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	m := fixtureModel(t, f)
	voter, _, err := model.ReadFile(f.Model)
	if err != nil {
		t.Fatal(err)
	}
	m.Voters = []*model.Model{voter, voter}
	f.Model = filepath.Join(f.Dir, "vote.smm")
	if err := model.WriteFile(f.Model, m); err != nil {
		t.Fatal(err)
	}
	f.WriteConfig(t, "\n[decision]\nthreshold = 0.5\n")
	cfg := fixtureConfig(t, f)
	before := signallerGoroutines()
	rec := gpiotest.NewRecorder()
	r, err := New(Options{Config: cfg, Log: slog.New(slog.DiscardHandler), Driver: rec})
	if err == nil {
		r.Close()
		t.Fatal("New took a number for decision.threshold on a vote")
	}
	if !strings.Contains(err.Error(), "decision.threshold") {
		t.Errorf("New: %v, want the decision.threshold error", err)
	}
	if !rec.Closed() {
		t.Error("the driver was not closed")
	}
	if tr := rec.Transitions(); len(tr) > 0 {
		t.Errorf("lines taken for a configuration New refuses: %v", tr)
	}
	deadline := time.Now().Add(2 * time.Second)
	for signallerGoroutines() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := signallerGoroutines(); n > before {
		t.Errorf("%d Signaller goroutines after New failed, %d before: one was left running", n, before)
	}
}
