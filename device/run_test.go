package device

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"

	"setmatch/config"
)

// startRunner runs a Runner in-process on the fixture with a recording GPIO
// driver; records are sent to the returned channel.
func startRunner(t *testing.T, f *fixture, rec *Recorder) (*Runner, <-chan *Record) {
	t.Helper()
	cfg, err := config.Load(f.config)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *Record, 1000)
	r, err := New(Options{Config: cfg, Driver: rec, Observe: func(r *Record) { c := *r; ch <- &c }})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop(); r.Wait(); r.Close() })
	return r, ch
}

func next(t *testing.T, ch <-chan *Record) *Record {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("timed out waiting for a batch to be handled")
		return nil
	}
}

// pulses returns the (start, length) of each active period on pin.
func pulses(tr []Transition, pin string, active gpio.Level) []time.Duration {
	var out []time.Duration
	var on time.Time
	for _, x := range tr {
		if x.Pin != pin {
			continue
		}
		if x.Level == active && on.IsZero() {
			on = x.Time
		} else if x.Level != active && !on.IsZero() {
			out = append(out, x.Time.Sub(on))
			on = time.Time{}
		}
	}
	return out
}

func TestRunnerPulsesRightPins(t *testing.T) {
	for _, activeLow := range []bool{false, true} {
		t.Run(map[bool]string{false: "active-high", true: "active-low"}[activeLow], func(t *testing.T) {
			extra := ""
			if activeLow {
				extra = "" // set below: the [gpio] table is already open in the fixture
			}
			f := newFixture(t, extra)
			text, _ := os.ReadFile(f.config)
			s := strings.Replace(string(text), `pulse = "2ms"`, `pulse = "30ms"`, 1)
			if activeLow {
				s = strings.Replace(s, `pulse = "30ms"`, "pulse = \"30ms\"\nactive_low = true", 1)
			}
			os.WriteFile(f.config, []byte(s), 0o644)
			active := gpio.Level(!activeLow)

			rec := NewRecorder()
			r, ch := startRunner(t, f, rec)
			rng := rand.New(rand.NewPCG(3, 4))

			f.drop(t, "a.npy", batch(rng, "alice"))
			got := next(t, ch)
			if got.Decision != "alice" || !got.Known || got.File != "a.npy" {
				t.Fatalf("alice batch: got %+v", got)
			}
			waitFor(t, 5*time.Second, "alice pulses", func() bool {
				return len(pulses(rec.Transitions(), "GPIO17", active)) == 1 && len(pulses(rec.Transitions(), "GPIO22", active)) == 1
			})
			for _, p := range []string{"GPIO17", "GPIO22"} {
				d := pulses(rec.Transitions(), p, active)[0]
				if d < 30*time.Millisecond || d > 3*time.Second {
					t.Errorf("%s pulse lasted %v, want 30ms (and not much more)", p, d)
				}
			}
			if n := len(pulses(rec.Transitions(), "GPIO27", active)); n != 0 {
				t.Errorf("unknown pin pulsed %d times for a known batch", n)
			}

			f.drop(t, "x.npy", batch(rng, "stranger"))
			got = next(t, ch)
			if got.Decision != "unknown" || got.Known {
				t.Fatalf("stranger batch: got %+v", got)
			}
			waitFor(t, 5*time.Second, "unknown pulse", func() bool { return len(pulses(rec.Transitions(), "GPIO27", active)) == 1 })
			if n := len(pulses(rec.Transitions(), "GPIO17", active)); n != 1 {
				t.Errorf("match pin pulsed %d times in all, want 1", n)
			}

			// A pulse in progress at shutdown is cut short; all lines idle.
			f.drop(t, "b.npy", batch(rng, "bob"))
			next(t, ch)
			r.Stop()
			if err := r.Wait(); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"GPIO17", "GPIO22", "GPIO27"} {
				if l, ok := rec.Level(p); !ok || l != !active {
					t.Errorf("%s after shutdown: level %v (driven %v), want idle %v", p, l, ok, !active)
				}
			}
			if got := names(t, filepath.Join(f.spool, DirDone)); len(got) != 3 {
				t.Errorf("done/ holds %v, want 3 batches", got)
			}
		})
	}
}

func TestRunnerMissingPin(t *testing.T) {
	f := newFixture(t, "")
	cfg, err := config.Load(f.config)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder("GPIO17", "GPIO22", "GPIO5")
	_, err = New(Options{Config: cfg, Driver: rec})
	var mp *MissingPinError
	if !errors.As(err, &mp) || mp.Pin != "GPIO27" {
		t.Fatalf("got %v, want a missing pin error for GPIO27", err)
	}
	for _, want := range []string{"GPIO27", "GPIO17, GPIO22, GPIO5", "gpioinfo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if !rec.Closed() {
		t.Error("driver not closed after a failed start")
	}
	// Lines opened before the missing one are left idle.
	if l, ok := rec.Level("GPIO17"); ok && l != gpio.Low {
		t.Errorf("GPIO17 left %v", l)
	}
}

func TestRunnerFailuresAndCaps(t *testing.T) {
	f := newFixture(t, "[decision]\nmin_frames = 10\n")
	text, _ := os.ReadFile(f.config)
	os.WriteFile(f.config, []byte(strings.Replace(string(text), "done_max_files = 5000", "done_max_files = 3\nfailed_max_files = 2", 1)), 0o644)
	rec := NewRecorder()
	r, ch := startRunner(t, f, rec)
	rng := rand.New(rand.NewPCG(5, 6))

	// Garbage, too few frames, wrong width, unknown extension.
	os.MkdirAll(filepath.Join(f.spool, DirTmp), 0o770)
	bad := filepath.Join(f.spool, DirTmp, "bad.npy")
	os.WriteFile(bad, []byte("\x93NUMPY garbage"), 0o644)
	os.Rename(bad, filepath.Join(f.spool, DirNew, "bad.npy"))
	rec1 := next(t, ch)
	if rec1.Decision != "failed" || rec1.Reason == "" {
		t.Fatalf("garbage: %+v", rec1)
	}
	errText, err := os.ReadFile(filepath.Join(f.spool, DirFailed, "bad.npy.err"))
	if err != nil || len(errText) == 0 {
		t.Fatalf("failed/bad.npy.err: %q, %v", errText, err)
	}
	if _, err := os.Stat(filepath.Join(f.spool, DirFailed, "bad.npy")); err != nil {
		t.Fatal(err)
	}

	f.drop(t, "short.npy", sample(rng, tinyCenters["alice"], 3, tinyD, 0.5))
	if r := next(t, ch); r.Decision != "failed" || !strings.Contains(r.Reason, "min_frames") {
		t.Fatalf("short batch: %+v", r)
	}
	f.drop(t, "wide.npy", sample(rng, tinyCenters["alice"], 30, tinyD+1, 0.5))
	if r := next(t, ch); r.Decision != "failed" || !strings.Contains(r.Reason, "features per frame") {
		t.Fatalf("wide batch: %+v", r)
	}
	// failed/ is capped at 2 batches (each with its .err).
	r.prune()
	if got := names(t, filepath.Join(f.spool, DirFailed)); len(got) != 4 {
		t.Errorf("failed/ holds %v, want 2 batches with their .err", got)
	}
	for i := range 6 {
		f.drop(t, "ok"+string(rune('0'+i))+".npy", batch(rng, "bob"))
		if r := next(t, ch); r.Decision != "bob" {
			t.Fatalf("bob batch: %+v", r)
		}
	}
	r.prune()
	if got := names(t, filepath.Join(f.spool, DirDone)); len(got) != 3 {
		t.Errorf("done/ holds %v, want the newest 3", got)
	}
	if h, fl := r.Stats(); h != 6 || fl != 3 {
		t.Errorf("stats: %d handled, %d failed", h, fl)
	}
}

func TestRunnerInterruptedAndReload(t *testing.T) {
	f := newFixture(t, "")
	rng := rand.New(rand.NewPCG(7, 8))
	// A batch left in cur/ by a crashed run, and one waiting in new/.
	p := f.writeTmp(t, "left.npy", batch(rng, "carol"))
	os.MkdirAll(filepath.Join(f.spool, DirCur), 0o750)
	os.Rename(p, filepath.Join(f.spool, DirCur, "left.npy"))
	f.drop(t, "waiting.npy", batch(rng, "alice"))
	// One whose retry was already interrupted once: not tried a third time.
	p = f.writeTmp(t, "poison.npy", batch(rng, "carol"))
	os.Rename(p, filepath.Join(f.spool, DirCur, "poison.npy"))
	os.WriteFile(filepath.Join(f.spool, DirCur, ".poison.npy.retry"), nil, 0o640)

	r, ch := startRunner(t, f, NewRecorder())
	got := map[string]*Record{}
	var order []string
	for range 3 {
		rec := next(t, ch)
		got[rec.File] = rec
		order = append(order, rec.File)
	}
	if order[2] != "waiting.npy" {
		t.Errorf("handled in order %v: batches left in cur/ come first", order)
	}
	if rec := got["left.npy"]; rec == nil || !rec.Retry || rec.Decision != "carol" {
		t.Errorf("interrupted batch: %+v", rec)
	}
	if rec := got["waiting.npy"]; rec == nil || rec.Retry || rec.Decision != "alice" {
		t.Errorf("waiting batch: %+v", rec)
	}
	if rec := got["poison.npy"]; rec == nil || rec.Decision != "failed" || !strings.Contains(rec.Reason, "twice") {
		t.Errorf("twice-interrupted batch: %+v", rec)
	}
	if left := names(t, filepath.Join(f.spool, DirCur)); len(left) != 0 {
		t.Errorf("cur/ holds %v", left)
	}

	// A bad model is refused; the old one stays.
	oldID := r.Model().ID()
	cfg, _ := config.Load(f.config)
	cfg.Model = filepath.Join(f.dir, "missing.smm")
	if _, err := r.Reload(cfg); err == nil {
		t.Fatal("reload with a missing model succeeded")
	}
	if r.Model().ID() != oldID {
		t.Fatal("model changed after a failed reload")
	}
	// The swapped model decides the alice batch as bob.
	writeTinyModel(t, f.model, true)
	if err := r.ReloadModel(); err != nil {
		t.Fatal(err)
	}
	if r.Model().ID() == oldID {
		t.Fatal("model id unchanged after reload")
	}
	f.drop(t, "again.npy", batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "bob" || got.Model != r.Model().ID() {
		t.Errorf("after reload: %+v", got)
	}
}

// TestRunnerConcurrentSources checks that a name seen by both the event and
// a rescan is handled once, with several workers.
func TestRunnerExactlyOnce(t *testing.T) {
	f := newFixture(t, "")
	cfg, _ := config.Load(f.config)
	var mu sync.Mutex
	seen := map[string]int{}
	r, err := New(Options{Config: cfg, Driver: NewRecorder(), BatchWorkers: 3, QueueLen: 16,
		Observe: func(r *Record) { mu.Lock(); seen[r.File]++; mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 60
	for i := range n {
		f.drop(t, "b"+itoa(i)+".npy", batch(rng, "carol"))
		if i%7 == 0 {
			poke(r.w.kick) // extra rescans racing with the events
		}
	}
	waitFor(t, 30*time.Second, "all batches", func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == n })
	time.Sleep(50 * time.Millisecond)
	r.Stop()
	r.Wait()
	for name, c := range seen {
		if c != 1 {
			t.Errorf("%s handled %d times", name, c)
		}
	}
	if got := len(readJournal(t, f.journal)); got != n {
		t.Errorf("journal has %d lines, want %d", got, n)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestRunnerPanicFailsBatch checks that a panic while matching fails that
// batch only.
func TestRunnerPanicFailsBatch(t *testing.T) {
	f := newFixture(t, "")
	r, ch := startRunner(t, f, NewRecorder())
	good := r.st.Load()
	broken := *good
	bm := *good.model
	bm.Matcher = nil // Match on a nil Matcher panics
	broken.model = &bm
	r.st.Store(&broken)
	rng := rand.New(rand.NewPCG(19, 20))
	f.drop(t, "p.npy", batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "failed" || !strings.Contains(got.Reason, "internal error") {
		t.Fatalf("got %+v", got)
	}
	if _, err := os.Stat(filepath.Join(f.spool, DirFailed, "p.npy.err")); err != nil {
		t.Fatal(err)
	}
	r.st.Store(good)
	f.drop(t, "q.npy", batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "alice" {
		t.Fatalf("after the panic: %+v", got)
	}
}
