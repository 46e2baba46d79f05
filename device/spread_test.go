package device

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/model"
)

// A model that gives each class a threshold of its own decides a batch
// by its nearest class's, and the journal gives that threshold: the
// model's, or a configured decision.threshold, times the class's factor;
// setmatchd -check says so.
func TestSpreadModelJournalsTheClassThreshold(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	m := fixtureModel(t, f)
	m.Spread = &model.Spread{Exponent: 1, Factors: map[string]float64{"alice": 2, "bob": 0.5}}
	cfg, _ := useModel(t, f, r, "spread.smm", m)
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(4, 5)), "alice"))
	rec := next(t, ch)
	if rec.Best != "alice" || rec.Threshold == nil || *rec.Threshold != 2*m.Threshold {
		t.Errorf("batch of alice: nearest %q, threshold %v; want alice, %v", rec.Best, rec.Threshold, 2*m.Threshold)
	}
	th := 0.25
	cfg.Decision.Threshold = &th
	if _, err := r.Reload(&cfg); err != nil {
		t.Fatal(err)
	}
	f.Drop(t, "b.npy", devicetest.Batch(rand.New(rand.NewPCG(6, 5)), "bob"))
	rec = next(t, ch)
	if rec.Best != "bob" || rec.Threshold == nil || *rec.Threshold != 0.125 {
		t.Errorf("batch of bob with decision.threshold 0.25: nearest %q, threshold %v; want bob, 0.125", rec.Best, rec.Threshold)
	}
	if want := *rec.Score <= 0.125; rec.Known != want {
		t.Errorf("batch of bob: score %v, known %v; want %v", *rec.Score, rec.Known, want)
	}

	// setmatchd -check (the configuration file names the model) says the
	// classes have thresholds of their own.
	var out bytes.Buffer
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), "times each class's factor (0.5 to 2:") {
		t.Errorf("check of a model with a threshold for each class: %v\n%s", err, out.String())
	}
}
