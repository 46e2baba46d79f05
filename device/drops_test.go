package device

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/metrics"
	"setmatch/internal/testutil"
)

// TestPulseDropsSaidOnce: a flood of batches decided while the first one's
// pulse lasts fills the match line's backlog, and the decisions beyond it
// are not pulsed. Each is journaled as any other, and the log says that
// pulses are dropped once, not once a batch, and at the stop how many.
func TestPulseDropsSaidOnce(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	// The longest pulse: no pulse ends, and no waiting one starts, while
	// the batches are handled (a few milliseconds each: the test takes
	// them all to be decided within that minute).
	text := strings.Replace(f.ConfigText(""), `pulse = "2ms"`, `pulse = "1m"`, 1)
	if err := os.WriteFile(f.Config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	log := new(testutil.LockedBuffer)
	ch := make(chan *journal.Record, 100)
	r, err := New(Options{Config: fixtureConfig(t, f), Log: slog.New(slog.NewTextHandler(log, nil)), Driver: gpiotest.NewRecorder(),
		Observe: func(rec *journal.Record) { c := *rec; ch <- &c }})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	const n = 20 // 8 wait behind the first (the backlog), 11 or so dropped
	rng := rand.New(rand.NewPCG(81, 82))
	for i := range n {
		f.Drop(t, fmt.Sprintf("b%02d.npy", i), devicetest.Batch(rng, "alice"))
	}
	for range n {
		if rec := next(t, ch); rec.Decision != "alice" {
			t.Errorf("%s journaled as %q, want alice", rec.File, rec.Decision)
		}
	}
	if got := dropLines(log.String()); len(got) != 1 {
		t.Errorf("%d log lines of dropped pulses for %d batches, want 1:\n%s", len(got), n, strings.Join(got, "\n"))
	}
	dropped := r.sig.Dropped()
	if dropped < n-9 || dropped > n-8 {
		t.Errorf("%d decisions dropped, want %d or %d: those beyond the backlog", dropped, n-9, n-8)
	}
	// The metrics the daemon serves count them.
	out := &outputs{met: metrics.New()}
	out.watchRunner(r)
	fams, err := out.met.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := -1.0
	for _, fam := range fams {
		if fam.GetName() == "setmatch_gpio_dropped_total" {
			counted = fam.Metric[0].GetCounter().GetValue()
		}
	}
	if counted != float64(dropped) {
		t.Errorf("setmatch_gpio_dropped_total = %v, want %d (absent: -1)", counted, dropped)
	}
	// The stop (Idle, as Wait's drain ends) sums up the drops.
	r.Stop()
	r.sig.Idle()
	got := dropLines(log.String())
	want := fmt.Sprintf("gpio: line GPIO17: %d pulses dropped since ", dropped)
	if len(got) != 2 || !strings.Contains(got[1], want) {
		t.Errorf("log lines of dropped pulses after the stop:\n%s\nwant two, the second with %q", strings.Join(got, "\n"), want)
	}
}

// dropLines returns the lines of log that speak of dropped pulses.
func dropLines(log string) []string {
	var out []string
	for l := range strings.Lines(log) {
		if strings.Contains(l, "dropped") {
			out = append(out, strings.TrimSuffix(l, "\n"))
		}
	}
	return out
}
