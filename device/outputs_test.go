package device

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
)

// journalReader is an observer that checks, when told of a decision, that
// the batch's journal line is on disk already.
type journalReader struct {
	path string
	mu   sync.Mutex
	seen []string
	bad  []string
}

func (j *journalReader) Decided(rec *journal.Record) {
	b, err := os.ReadFile(j.path)
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil || !strings.Contains(string(b), `"file":"`+rec.File+`"`) {
		j.bad = append(j.bad, rec.File)
	}
	j.seen = append(j.seen, rec.File+"="+rec.Decision)
}

func (j *journalReader) count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.seen)
}

// multi tells several observers.
type multi []observer

// The fakes are observers.
var (
	_ observer = (*journalReader)(nil)
	_ observer = multi(nil)
)

func (m multi) Decided(rec *journal.Record) {
	for _, o := range m {
		o.Decided(rec)
	}
}

// TestOutputsCountDecisions runs a Runner with the daemon's outputs
// (metrics only: MQTT is tested end to end in cmd/setmatchd) and checks
// that observers hear of each decision after its journal line is written
// and that the metrics count known, unknown and failed batches.
func TestOutputsCountDecisions(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cfg := fixtureConfig(t, f)
	cfg.Metrics.Listen = "127.0.0.1:0" // any free port (not a valid configuration value)
	out, err := startOutputs(cfg, "test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer out.close()
	r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	jr := &journalReader{path: f.Journal}
	r.obs = multi{jr, out}
	out.setModel(r.Model())
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	out.watchRunner(r)

	rng := rand.New(rand.NewPCG(21, 22))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	f.Drop(t, "b.npy", devicetest.Batch(rng, "bob"))
	f.Drop(t, "s.npy", devicetest.Batch(rng, "stranger"))
	os.WriteFile(filepath.Join(f.Spool, spool.DirTmp, "bad.csv"), []byte("1,x\n"), 0o644)
	os.Rename(filepath.Join(f.Spool, spool.DirTmp, "bad.csv"), filepath.Join(f.Spool, spool.DirNew, "bad.csv"))
	testutil.WaitFor(t, 30*time.Second, "four decisions", func() bool { return jr.count() == 4 })
	if len(jr.bad) > 0 {
		t.Errorf("told of %v before their journal lines were on disk", jr.bad)
	}

	fams, err := out.met.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, fam := range fams {
		for _, m := range fam.Metric {
			key := fam.GetName()
			for _, l := range m.Label {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case m.Counter != nil:
				got[key] = m.Counter.GetValue()
			case m.Gauge != nil:
				got[key] = m.Gauge.GetValue()
			case m.Histogram != nil:
				got[key] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	want := map[string]float64{
		"setmatch_batches_total,result=known":   2,
		"setmatch_batches_total,result=unknown": 1,
		"setmatch_batches_total,result=failed":  1,
		"setmatch_decision_latency_seconds":     4,
		"setmatch_queue_length":                 0,
		"setmatch_gpio_dropped_total":           0,
		"setmatch_model_info,method=" + modelMethod(r.Model()) + ",sha256=" + r.Model().ID(): 1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if m := modelMethod(r.Model()); !strings.HasPrefix(m, "nn-") && !strings.HasPrefix(m, "kfda-") {
		t.Errorf("model method %q", modelMethod(r.Model()))
	}
}
