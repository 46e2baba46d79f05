package device

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	pgpio "periph.io/x/conn/v3/gpio"

	"setmatch/config"
	"setmatch/device/devicetest"
	"setmatch/device/gpio"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
	"setmatch/model"
)

// startRunner runs a Runner in-process on the fixture with a recording GPIO
// driver; records are sent to the returned channel.
func startRunner(t *testing.T, f *devicetest.Fixture, rec *gpiotest.Recorder) (*Runner, <-chan *journal.Record) {
	t.Helper()
	cfg := fixtureConfig(t, f)
	ch := make(chan *journal.Record, 1000)
	r, err := New(Options{Config: cfg, Driver: rec, Observe: func(r *journal.Record) { c := *r; ch <- &c }})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop(); r.Wait(); r.Close() })
	return r, ch
}

// fixtureConfig returns f's configuration, loaded from its file.
func fixtureConfig(t testing.TB, f *devicetest.Fixture) *config.Config {
	t.Helper()
	cfg, err := config.Load(f.Config)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// fixtureModel returns the model of f's configuration, read from its file.
func fixtureModel(t *testing.T, f *devicetest.Fixture) *model.Model {
	t.Helper()
	m, _, err := model.ReadFile(f.Model)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// useModel writes m to the fixture's folder as name, reloads r with it,
// and points the fixture's configuration file at it (for Check). It
// returns the configuration r runs with and the file's text.
func useModel(t *testing.T, f *devicetest.Fixture, r *Runner, name string, m *model.Model) (config.Config, []byte) {
	t.Helper()
	path := filepath.Join(f.Dir, name)
	if err := model.WriteFile(path, m); err != nil {
		t.Fatal(err)
	}
	cfg := *r.Config()
	cfg.Model = path
	if _, err := r.Reload(&cfg); err != nil {
		t.Fatalf("reload with %s: %v", name, err)
	}
	text, err := os.ReadFile(f.Config)
	if err != nil {
		t.Fatal(err)
	}
	text = bytes.Replace(text, []byte(f.Model), []byte(path), 1)
	if err := os.WriteFile(f.Config, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, text
}

func next(t *testing.T, ch <-chan *journal.Record) *journal.Record {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("timed out waiting for a batch to be handled")
		return nil
	}
}

func TestRunnerPulsesRightPins(t *testing.T) {
	for _, activeLow := range []bool{false, true} {
		t.Run(map[bool]string{false: "active-high", true: "active-low"}[activeLow], func(t *testing.T) {
			extra := ""
			if activeLow {
				extra = "" // set below: the [gpio] table is already open in the fixture
			}
			f := devicetest.NewFixture(t, extra)
			text, _ := os.ReadFile(f.Config)
			s := strings.Replace(string(text), `pulse = "2ms"`, `pulse = "30ms"`, 1)
			if activeLow {
				s = strings.Replace(s, `pulse = "30ms"`, "pulse = \"30ms\"\nactive_low = true", 1)
			}
			os.WriteFile(f.Config, []byte(s), 0o644)
			active := pgpio.Level(!activeLow)

			rec := gpiotest.NewRecorder()
			r, ch := startRunner(t, f, rec)
			rng := rand.New(rand.NewPCG(3, 4))

			f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
			got := next(t, ch)
			if got.Decision != "alice" || !got.Known || got.File != "a.npy" {
				t.Fatalf("alice batch: got %+v", got)
			}
			testutil.WaitFor(t, 5*time.Second, "alice pulses", func() bool {
				return len(rec.Pulses("GPIO17", active)) == 1 && len(rec.Pulses("GPIO22", active)) == 1
			})
			for _, p := range []string{"GPIO17", "GPIO22"} {
				d := rec.Pulses(p, active)[0]
				if d < 30*time.Millisecond || d > 3*time.Second {
					t.Errorf("%s pulse lasted %v, want 30ms (and not much more)", p, d)
				}
			}
			if n := len(rec.Pulses("GPIO27", active)); n != 0 {
				t.Errorf("unknown pin pulsed %d times for a known batch", n)
			}

			f.Drop(t, "x.npy", devicetest.Batch(rng, "stranger"))
			got = next(t, ch)
			if got.Decision != "unknown" || got.Known {
				t.Fatalf("stranger batch: got %+v", got)
			}
			testutil.WaitFor(t, 5*time.Second, "unknown pulse", func() bool { return len(rec.Pulses("GPIO27", active)) == 1 })
			if n := len(rec.Pulses("GPIO17", active)); n != 1 {
				t.Errorf("match pin pulsed %d times in all, want 1", n)
			}

			// A pulse in progress at shutdown is cut short; all lines idle.
			f.Drop(t, "b.npy", devicetest.Batch(rng, "bob"))
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
			if got := testutil.Names(t, filepath.Join(f.Spool, spool.DirDone)); len(got) != 3 {
				t.Errorf("done/ holds %v, want 3 batches", got)
			}
		})
	}
}

func TestRunnerMissingPin(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cfg := fixtureConfig(t, f)
	rec := gpiotest.NewRecorder("GPIO17", "GPIO22", "GPIO5")
	_, err := New(Options{Config: cfg, Driver: rec})
	var mp *gpio.MissingPinError
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
	if l, ok := rec.Level("GPIO17"); ok && l != pgpio.Low {
		t.Errorf("GPIO17 left %v", l)
	}
}

func TestRunnerFailuresAndCaps(t *testing.T) {
	f := devicetest.NewFixture(t, "[decision]\nmin_frames = 10\n")
	text, _ := os.ReadFile(f.Config)
	os.WriteFile(f.Config, []byte(strings.Replace(string(text), "done_max_files = 5000", "done_max_files = 3\nfailed_max_files = 2", 1)), 0o644)
	rec := gpiotest.NewRecorder()
	r, ch := startRunner(t, f, rec)
	rng := rand.New(rand.NewPCG(5, 6))

	// Garbage, too few frames, wrong width, unknown extension.
	os.MkdirAll(filepath.Join(f.Spool, spool.DirTmp), 0o770)
	bad := filepath.Join(f.Spool, spool.DirTmp, "bad.npy")
	os.WriteFile(bad, []byte("\x93NUMPY garbage"), 0o644)
	os.Rename(bad, filepath.Join(f.Spool, spool.DirNew, "bad.npy"))
	rec1 := next(t, ch)
	if rec1.Decision != "failed" || rec1.Reason == "" {
		t.Fatalf("garbage: %+v", rec1)
	}
	errText, err := os.ReadFile(filepath.Join(f.Spool, spool.DirFailed, spool.DirReasons, "bad.npy"))
	if err != nil || len(errText) == 0 {
		t.Fatalf("failed/.reasons/bad.npy: %q, %v", errText, err)
	}
	if _, err := os.Stat(filepath.Join(f.Spool, spool.DirFailed, "bad.npy")); err != nil {
		t.Fatal(err)
	}

	f.Drop(t, "short.npy", devicetest.Sample(rng, devicetest.TinyCenters["alice"], 3, devicetest.TinyD, 0.5))
	// A batch read and then refused says how long its read took.
	if r := next(t, ch); r.Decision != "failed" || !strings.Contains(r.Reason, "min_frames") || r.ReadMS <= 0 {
		t.Fatalf("short batch: %+v", r)
	}
	f.Drop(t, "wide.npy", devicetest.Sample(rng, devicetest.TinyCenters["alice"], 30, devicetest.TinyD+1, 0.5))
	if r := next(t, ch); r.Decision != "failed" || !strings.Contains(r.Reason, "features per frame") || r.ReadMS <= 0 {
		t.Fatalf("wide batch: %+v", r)
	}
	// Values around 1e155: their squared distances overflow. The batch
	// fails with the reason, where the matcher took Inf − Inf for 0.
	huge := devicetest.Sample(rng, devicetest.TinyCenters["alice"], 30, devicetest.TinyD, 0.5)
	huge.Scale(1e155, huge)
	f.Drop(t, "huge.npy", huge)
	if r := next(t, ch); r.Decision != "failed" || !strings.Contains(r.Reason, "too large") || !strings.Contains(r.Reason, "scale the features down") {
		t.Fatalf("a batch of values around 1e155: %+v", r)
	}
	// One image where a burst (a folder of them) is meant, and a link.
	one := filepath.Join(f.Spool, spool.DirTmp, "one.jpg")
	os.WriteFile(one, []byte("\xff\xd8\xff"), 0o644)
	os.Rename(one, filepath.Join(f.Spool, spool.DirNew, "one.jpg"))
	if r := next(t, ch); r.Decision != "failed" || !strings.Contains(r.Reason, "one image: a burst is a folder") {
		t.Fatalf("one image: %+v", r)
	}
	os.Symlink(bad, filepath.Join(f.Spool, spool.DirNew, "link.csv"))
	if r := next(t, ch); r.Decision != "failed" || !strings.Contains(r.Reason, "is a symbolic link") {
		t.Fatalf("a link: %+v", r)
	}
	// failed/ is capped at 2 batches (each with its reason).
	r.prune()
	if got := devicetest.Batches(t, filepath.Join(f.Spool, spool.DirFailed)); len(got) != 2 {
		t.Errorf("failed/ holds %v, want 2 batches", got)
	}
	if got := testutil.Names(t, filepath.Join(f.Spool, spool.DirFailed, spool.DirReasons)); len(got) != 2 {
		t.Errorf("failed/.reasons/ holds %v, want the reasons of 2 batches", got)
	}
	for i := range 6 {
		f.Drop(t, "ok"+string(rune('0'+i))+".npy", devicetest.Batch(rng, "bob"))
		if r := next(t, ch); r.Decision != "bob" {
			t.Fatalf("bob batch: %+v", r)
		}
	}
	r.prune()
	if got := testutil.Names(t, filepath.Join(f.Spool, spool.DirDone)); len(got) != 3 {
		t.Errorf("done/ holds %v, want the newest 3", got)
	}
	if decided, fl := r.Stats(); decided != 6 || fl != 6 {
		t.Errorf("stats: %d decided, %d failed", decided, fl)
	}
}

// leaveInCur puts x into the spool's cur/ as name, a batch a crashed run
// left there.
func leaveInCur(t *testing.T, f *devicetest.Fixture, name string, x *mat.Dense) {
	t.Helper()
	p := f.WriteTmp(t, name, x)
	if err := os.MkdirAll(filepath.Join(f.Spool, spool.DirCur), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p, filepath.Join(f.Spool, spool.DirCur, name)); err != nil {
		t.Fatal(err)
	}
}

func TestRunnerInterruptedAndReload(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(7, 8))
	// A batch left in cur/ by a crashed run, and one waiting in new/.
	leaveInCur(t, f, "left.npy", devicetest.Batch(rng, "carol"))
	f.Drop(t, "waiting.npy", devicetest.Batch(rng, "alice"))
	// One whose matching was interrupted three times: not tried again.
	// And one interrupted twice in the matcher: tried a third time.
	leaveInCur(t, f, "poison.npy", devicetest.Batch(rng, "carol"))
	os.WriteFile(filepath.Join(f.Spool, spool.DirCur, ".poison.npy.retry"), []byte("3\n"), 0o640)
	poison, err := os.Stat(filepath.Join(f.Spool, spool.DirCur, "poison.npy"))
	if err != nil {
		t.Fatal(err)
	}
	leaveInCur(t, f, "twice.npy", devicetest.Batch(rng, "bob"))
	os.WriteFile(filepath.Join(f.Spool, spool.DirCur, ".twice.npy.retry"), []byte("2\n"), 0o640)

	r, ch := startRunner(t, f, gpiotest.NewRecorder())
	got := map[string]*journal.Record{}
	var order []string
	for range 4 {
		rec := next(t, ch)
		got[rec.File] = rec
		order = append(order, rec.File)
	}
	if order[3] != "waiting.npy" {
		t.Errorf("handled in order %v: batches left in cur/ come first", order)
	}
	if rec := got["left.npy"]; rec == nil || !rec.Retry || rec.Decision != "carol" {
		t.Errorf("interrupted batch: %+v", rec)
	}
	if rec := got["waiting.npy"]; rec == nil || rec.Retry || rec.Decision != "alice" {
		t.Errorf("waiting batch: %+v", rec)
	}
	if rec := got["poison.npy"]; rec == nil || rec.Decision != "failed" || !strings.Contains(rec.Reason, "stopped 3 times while reading or matching") {
		t.Errorf("batch interrupted 3 times in the matcher: %+v", rec)
	} else if rec.Bytes != poison.Size() {
		t.Errorf("batch interrupted 3 times: bytes %d, want its file's size %d, as every file batch's line has it", rec.Bytes, poison.Size())
	}
	if rec := got["twice.npy"]; rec == nil || rec.Decision != "bob" {
		t.Errorf("batch interrupted twice in the matcher: %+v", rec)
	}
	if left := testutil.Names(t, filepath.Join(f.Spool, spool.DirCur)); len(left) != 0 {
		t.Errorf("cur/ holds %v", left)
	}

	// A bad model is refused; the old one stays.
	oldID := r.Model().ID()
	cfg, _ := config.Load(f.Config)
	cfg.Model = filepath.Join(f.Dir, "missing.smm")
	if _, err := r.Reload(cfg); err == nil {
		t.Fatal("reload with a missing model succeeded")
	}
	if r.Model().ID() != oldID {
		t.Fatal("model changed after a failed reload")
	}
	// The swapped model decides the alice batch as bob.
	devicetest.WriteTinyModel(t, f.Model, true)
	if _, err := r.Reload(r.Config()); err != nil {
		t.Fatal(err)
	}
	if r.Model().ID() == oldID {
		t.Fatal("model id unchanged after reload")
	}
	f.Drop(t, "again.npy", devicetest.Batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "bob" || got.Model != r.Model().ID() {
		t.Errorf("after reload: %+v", got)
	}
}

// TestRunnerExactlyOnce checks that a name seen by both the event and a
// rescan is handled once, with several workers.
func TestRunnerExactlyOnce(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	// Timed rescans every millisecond race with the events.
	cfg := fixtureConfig(t, f)
	cfg.Spool.RescanInterval.Duration = time.Millisecond // below what a configuration may set
	var mu sync.Mutex
	seen := map[string]int{}
	r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder(), BatchWorkers: 3, QueueLen: 16,
		Observe: func(r *journal.Record) { mu.Lock(); seen[r.File]++; mu.Unlock() }})
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
		f.Drop(t, "b"+strconv.Itoa(i)+".npy", devicetest.Batch(rng, "carol"))
	}
	testutil.WaitFor(t, 30*time.Second, "all batches", func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == n })
	// Wait returns once the workers are done with what they hold: a second
	// handling of any name would be counted by then.
	r.Stop()
	r.Wait()
	for name, c := range seen {
		if c != 1 {
			t.Errorf("%s handled %d times", name, c)
		}
	}
	if got := len(devicetest.ReadJournal(t, f.Journal)); got != n {
		t.Errorf("journal has %d lines, want %d", got, n)
	}
}

// TestRunnerPanicFailsBatch checks that a panic while matching fails that
// batch only.
func TestRunnerPanicFailsBatch(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	r, ch := startRunner(t, f, gpiotest.NewRecorder())
	good := r.st.Load()
	broken := *good
	broken.matcher = nil // Match on a nil Matcher panics
	r.st.Store(&broken)
	rng := rand.New(rand.NewPCG(19, 20))
	f.Drop(t, "p.npy", devicetest.Batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "failed" || !strings.Contains(got.Reason, "internal error") {
		t.Fatalf("got %+v", got)
	}
	if _, err := os.Stat(filepath.Join(f.Spool, spool.DirFailed, spool.DirReasons, "p.npy")); err != nil {
		t.Fatal(err)
	}
	r.st.Store(good)
	f.Drop(t, "q.npy", devicetest.Batch(rng, "alice"))
	if got := next(t, ch); got.Decision != "alice" {
		t.Fatalf("after the panic: %+v", got)
	}
}

// reloadText writes text as f's configuration file, loads it and reloads
// r with it, returning what Reload returns.
func reloadText(t *testing.T, r *Runner, f *devicetest.Fixture, text string) ([]string, error) {
	t.Helper()
	if err := os.WriteFile(f.Config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fixtureConfig(t, f)
	return r.Reload(cfg)
}

// TestReloadForgetsPinnedLabel: a model from which a person with a label
// pin was forgotten is taken by a reload, whether the new configuration
// still names the pin or drops it (the pins in use stay until a
// restart): the forgotten person is no longer named, the pin does not
// pulse, and the reload warns of it. The reload refused such a model, so
// that the daemon kept the old one, which still let the forgotten person
// in, until a restart.
func TestReloadForgetsPinnedLabel(t *testing.T) {
	for _, dropPin := range []bool{false, true} {
		t.Run(map[bool]string{false: "pin kept", true: "pin dropped"}[dropPin], func(t *testing.T) {
			f := devicetest.NewFixture(t, "")
			rec := gpiotest.NewRecorder()
			r, ch := startRunner(t, f, rec)
			next1, _, err := fixtureModel(t, f).WithoutSets(func(s model.Set) bool { return s.Label == "alice" })
			if err != nil {
				t.Fatal(err)
			}
			if err := model.WriteFile(f.Model, next1); err != nil {
				t.Fatal(err)
			}
			text := f.ConfigText("")
			if dropPin {
				text = strings.Replace(text, "alice = \"GPIO22\"\n", "", 1)
			}
			warnings, err := reloadText(t, r, f, text)
			if err != nil {
				t.Fatalf("reload to a model without the label of a pin: %v", err)
			}
			if slices.Contains(r.Model().Model.Labels(), "alice") {
				t.Fatal("the model in use still holds alice")
			}
			if w := strings.Join(warnings, "\n"); !strings.Contains(w, "gpio.label_pins.alice") || !strings.Contains(w, "its pin does not pulse") {
				t.Errorf("warnings %q, want one of alice's pin", warnings)
			} else if n := strings.Count(w, "gpio.label_pins.alice"); n != 1 {
				t.Errorf("warnings %q name alice's pin %d times, want once", warnings, n)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
			if got := next(t, ch); got.Decision == "alice" {
				t.Errorf("alice named after she was forgotten: %+v", got)
			}
			time.Sleep(50 * time.Millisecond) // a pulse would have begun by now
			if n := len(rec.Pulses("GPIO22", pgpio.High)); n != 0 {
				t.Errorf("alice's pin pulsed %d times after she was forgotten", n)
			}
		})
	}
}

// TestModelReloadWarnsOfPinnedLabel: a model file replaced by one
// without the label of a pin (setmatch forget) is taken when the file
// changes, and the log says that the pin does not pulse, as a reload by
// SIGHUP does.
func TestModelReloadWarnsOfPinnedLabel(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cfg := fixtureConfig(t, f)
	var logs testutil.LockedBuffer
	r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder(), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop(); r.Wait(); r.Close() })
	without, _, err := fixtureModel(t, f).WithoutSets(func(s model.Set) bool { return s.Label == "alice" })
	if err != nil {
		t.Fatal(err)
	}
	if err := model.WriteFile(f.Model, without); err != nil {
		t.Fatal(err)
	}
	d := &daemonLoop{log: r.log, r: r, out: &outputs{log: slog.New(slog.DiscardHandler)}}
	if !d.reload(context.Background(), nil, triggerModelFile, d.loadModel) {
		t.Fatal("the reload of a changed model file stopped the daemon")
	}
	if slices.Contains(r.Model().Model.Labels(), "alice") {
		t.Fatal("the model in use still holds alice")
	}
	if l := logs.String(); !strings.Contains(l, "gpio.label_pins.alice") || !strings.Contains(l, "its pin does not pulse") {
		t.Errorf("log %q, want a warning that alice's pin does not pulse", l)
	}
}

// TestStartWarnsOfPinnedLabel: a daemon whose configuration gives a pin
// to a label the model does not hold (a person forgotten, then a power
// cut) starts, decides batches, and warns that the pin does not pulse.
func TestStartWarnsOfPinnedLabel(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	without, _, err := fixtureModel(t, f).WithoutSets(func(s model.Set) bool { return s.Label == "alice" })
	if err != nil {
		t.Fatal(err)
	}
	if err := model.WriteFile(f.Model, without); err != nil {
		t.Fatal(err)
	}
	var logs testutil.LockedBuffer
	r, err := New(Options{Config: fixtureConfig(t, f), Driver: gpiotest.NewRecorder(), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("a pin for a label the model lacks kept the daemon from starting: %v", err)
	}
	r.Close()
	if l := logs.String(); !strings.Contains(l, "gpio.label_pins.alice") || !strings.Contains(l, "its pin does not pulse") {
		t.Errorf("log %q, want a warning that alice's pin does not pulse", l)
	}
}

// TestReloadChecksNewPins: a reload that changes the pins keeps the ones
// in use until a restart and says so, and it looks up each new pin name
// as a start would, warning of one that does not resolve: the restart
// would refuse it. A reload that leaves the pins alone looks nothing up.
func TestReloadChecksNewPins(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	rec := gpiotest.NewRecorder()
	r, _ := startRunner(t, f, rec)
	reload := func(text string) []string {
		t.Helper()
		warnings, err := reloadText(t, r, f, text)
		if err != nil {
			t.Fatalf("reload: %v", err)
		}
		return warnings
	}
	if w := reload(f.ConfigText("")); len(w) != 0 {
		t.Errorf("a reload of the same configuration warned: %q", w)
	}
	// The log backend opens any name: only the restart is said.
	w := reload(strings.Replace(f.ConfigText(""), `match_pin = "GPIO17"`, `match_pin = "GPIO5"`, 1))
	if len(w) != 1 || !strings.Contains(w[0], "[gpio]") || !strings.Contains(w[0], "restart setmatchd to apply") {
		t.Errorf("warnings %q, want one that the pins need a restart", w)
	}
	if got := r.Config().GPIO.MatchPin; got != "GPIO17" {
		t.Errorf("match pin in use %q after the reload, want GPIO17 until a restart", got)
	}
	// periph looks the name up among the machine's lines (none here, and
	// no machine has this one).
	text := strings.Replace(f.ConfigText(""), `backend = "log"`, `backend = "periph"`, 1)
	text = strings.Replace(text, `match_pin = "GPIO17"`, `match_pin = "SETMATCH_NO_SUCH_LINE"`, 1)
	w = reload(text)
	all := strings.Join(w, "\n")
	if !strings.Contains(all, "restart setmatchd to apply") {
		t.Errorf("warnings %q do not say that the pins need a restart", w)
	}
	i := slices.IndexFunc(w, func(s string) bool { return strings.Contains(s, "SETMATCH_NO_SUCH_LINE") })
	if i < 0 {
		t.Fatalf("warnings %q do not name the pin that does not resolve", w)
	}
	for _, want := range []string{"gpio.match_pin", "no line named", "gpioinfo", "refuses to start", "setmatchd -check"} {
		if !strings.Contains(w[i], want) {
			t.Errorf("warning %q does not say %q", w[i], want)
		}
	}
	if got := r.Config().GPIO; got.Backend != "log" || got.MatchPin != "GPIO17" {
		t.Errorf("gpio in use %+v after the reload, want the log backend and GPIO17 until a restart", got)
	}
	// A chip that is not there is said once, not for each pin.
	w = reload(strings.Replace(text, "[gpio]\n", "[gpio]\nchip = \"gpiochip-nope\"\n", 1))
	if len(w) != 2 || !strings.Contains(w[1], `no GPIO chip named "gpiochip-nope"`) || !strings.Contains(w[1], "refuses to start") {
		t.Errorf("warnings %q, want the restart and the missing chip", w)
	}
}

// TestReusedNameHandledAgain: a batch that arrives under the name of one
// already handled is handled too, not taken for the first one.
func TestReusedNameHandledAgain(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	rng := rand.New(rand.NewPCG(91, 92))
	for _, label := range []string{"alice", "bob"} {
		f.Drop(t, "same.npy", devicetest.Batch(rng, label))
		if rec := next(t, ch); rec.File != "same.npy" || rec.Decision != label {
			t.Fatalf("%s's batch: %+v", label, rec)
		}
	}
}

// TestStopLeavesQueuedBatchesInNew: a batch queued but not begun when the
// daemon is told to stop stays in new/; the batch in hand is finished.
func TestStopLeavesQueuedBatchesInNew(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	reading, release := make(chan string), make(chan struct{})
	beforeRead = func(name string) {
		if name == "a.npy" {
			reading <- name
			<-release
		}
	}
	defer func() { beforeRead = nil }()
	r, ch := startRunner(t, f, gpiotest.NewRecorder())
	rng := rand.New(rand.NewPCG(93, 94))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	select {
	case <-reading:
	case <-time.After(30 * time.Second):
		t.Fatal("a.npy not read")
	}
	f.Drop(t, "b.npy", devicetest.Batch(rng, "bob"))
	testutil.WaitFor(t, 10*time.Second, "b.npy queued", func() bool { return r.q.Len() == 1 })
	r.Stop()
	close(release)
	if rec := next(t, ch); rec.File != "a.npy" || rec.Decision != "alice" {
		t.Errorf("the batch in hand: %+v, want a.npy decided", rec)
	}
	r.Wait()
	if got := testutil.Names(t, filepath.Join(f.Spool, spool.DirNew)); !slices.Equal(got, []string{"b.npy"}) {
		t.Errorf("new/ holds %v after the stop, want b.npy", got)
	}
}

// TestMinFramesIsEnough: a batch of exactly decision.min_frames frames is
// decided.
func TestMinFramesIsEnough(t *testing.T) {
	f := devicetest.NewFixture(t, "[decision]\nmin_frames = 10\n")
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	rng := rand.New(rand.NewPCG(95, 96))
	f.Drop(t, "ten.npy", devicetest.Sample(rng, devicetest.TinyCenters["alice"], 10, devicetest.TinyD, 0.5))
	if rec := next(t, ch); rec.Decision != "alice" || rec.Frames != 10 {
		t.Errorf("a batch of min_frames = 10 frames: %+v, want it decided as alice", rec)
	}
}

// TestCSVWithinMaxBatchBytes: a CSV batch within spool.max_batch_bytes is
// decided, though its frames take four times its bytes in memory.
func TestCSVWithinMaxBatchBytes(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	text, err := os.ReadFile(f.Config)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(f.Config, []byte(strings.Replace(string(text), "done_max_files = 5000", "done_max_files = 5000\nmax_batch_bytes = 400", 1)), 0o644)
	_, ch := startRunner(t, f, gpiotest.NewRecorder())
	csv := strings.Repeat("0,0,0,0,0,0\n", 30) // 360 bytes; 30×6 float64s take 1440
	tmp := filepath.Join(f.Spool, spool.DirTmp, "zeros.csv")
	if err := os.WriteFile(tmp, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.Spool, spool.DirNew, "zeros.csv")); err != nil {
		t.Fatal(err)
	}
	if rec := next(t, ch); rec.Decision != "alice" {
		t.Errorf("a CSV batch of %d bytes, max_batch_bytes = 400: %+v, want it decided as alice", len(csv), rec)
	}
}

// TestRunnerUpFirstSet: a runner-up that is the model's first gallery set
// is journaled, label and score, as any other is.
func TestRunnerUpFirstSet(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	r, ch := startRunner(t, f, gpiotest.NewRecorder())
	m := fixtureModel(t, f)
	m.Sets = slices.DeleteFunc(m.Sets, func(s model.Set) bool { return s.Name != "alice-0" && s.Label != "bob" })
	if m.Sets[0].Name != "alice-0" || len(m.Sets) != 3 {
		t.Fatalf("sets %v, want alice-0 first", m.Sets)
	}
	useModel(t, f, r, "first.smm", m)
	rng := rand.New(rand.NewPCG(97, 98))
	f.Drop(t, "b.npy", devicetest.Batch(rng, "bob"))
	if rec := next(t, ch); rec.Decision != "bob" || rec.RunnerUp != "alice" || rec.RunnerSc == nil {
		t.Errorf("b.npy: %+v, want bob with runner-up alice and its score", rec)
	}
}

// TestApplyReloadRefusesStale: a reload prepared against what another
// reload replaced meanwhile is refused, not put in use over it.
func TestApplyReloadRefusesStale(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cfg := fixtureConfig(t, f)
	r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := r.prepareReload(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	in := r.st.Load()
	if err := r.applyReload(p); err == nil {
		t.Error("a reload prepared before another was applied over it")
	}
	if r.st.Load() != in {
		t.Error("the state in use changed")
	}
}

// TestClaimGoneSaysNothing: a batch gone from new/ before it is claimed
// (another worker took it, or it was removed by hand) is no error.
func TestClaimGoneSaysNothing(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cfg := fixtureConfig(t, f)
	var log testutil.LockedBuffer
	r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder(), Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.handle(spool.Item{Name: "gone.npy"})
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("log: %s", log.String())
	}
}
