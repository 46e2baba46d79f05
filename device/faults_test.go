package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/config"
	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/features"
	"setmatch/internal/testutil"
	"setmatch/model"
)

// newRunner starts a Runner on f's configuration with log handler h.
func newRunner(t *testing.T, f *devicetest.Fixture, h slog.Handler) (*Runner, <-chan *journal.Record) {
	t.Helper()
	cfg := fixtureConfig(t, f)
	ch := make(chan *journal.Record, 100)
	r, err := New(Options{Config: cfg, Log: slog.New(h), Driver: gpiotest.NewRecorder(), JournalRetry: 5 * time.Millisecond,
		Observe: func(r *journal.Record) { c := *r; ch <- &c }})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r, ch
}

// A reason that cannot be written (a full disk) keeps the failed batch in
// cur/, retried with backoff, with no temporary file and no false "stays in
// cur/" line; once the disk takes it, reason and journal line are written
// and the batch moves to failed/.
func TestFailureWaitsForItsReason(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	retries := &msgCounter{prefix: "the reason of a failed batch cannot be written"}
	r, ch := newRunner(t, f, retries)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	// As a full disk would (for root too): no file can be made in
	// failed/.reasons/, here because it is not a folder for a while.
	reasons := filepath.Join(f.Spool, spool.DirFailed, spool.DirReasons)
	if err := os.Remove(reasons); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reasons, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	// Written aside and renamed in, as a camera does: the daemon must not
	// see the file before its bytes.
	tmp := filepath.Join(f.Spool, spool.DirTmp, "bad.csv")
	if err := os.WriteFile(tmp, []byte("1,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.RenameIn(t, tmp)
	testutil.WaitFor(t, 10*time.Second, "three reason retries", func() bool { return retries.n.Load() >= 3 })
	if got := devicetest.Batches(t, filepath.Join(f.Spool, spool.DirCur)); len(got) != 1 || got[0] != "bad.csv" {
		t.Errorf("cur/ holds %v, want bad.csv kept until its reason is written", got)
	}
	if got := devicetest.Batches(t, filepath.Join(f.Spool, spool.DirFailed)); len(got) != 0 {
		t.Errorf("failed/ holds %v before the reason was written", got)
	}
	if _, err := os.Stat(f.Journal); err == nil && len(devicetest.ReadJournal(t, f.Journal)) != 0 {
		t.Error("journal line written before the reason")
	}
	os.Remove(reasons)
	os.Mkdir(reasons, 0o750)
	rec := next(t, ch)
	if rec.File != "bad.csv" || rec.Decision != "failed" {
		t.Fatalf("record %+v", rec)
	}
	if b, err := os.ReadFile(filepath.Join(reasons, "bad.csv")); err != nil || !strings.Contains(string(b), "line 1") {
		t.Errorf("reason %q, %v", b, err)
	}
	if got := testutil.Names(t, reasons); len(got) != 1 {
		t.Errorf("failed/.reasons/ holds %v: a temporary file was left", got)
	}
	if got := len(devicetest.ReadJournal(t, f.Journal)); got != 1 {
		t.Errorf("journal has %d lines, want 1", got)
	}
	if retries.stays.Load() != 0 {
		t.Error(`logged "batch stays in cur/" though it moved`)
	}
}

// A batch over daemon.batch_timeout fails with a reason that names the key.
func TestBatchTimeout(t *testing.T) {
	f := devicetest.NewFixture(t, "[daemon]\nbatch_timeout = \"1ms\"\n")
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	rng := rand.New(rand.NewPCG(71, 72))
	f.Drop(t, "big.npy", devicetest.Sample(rng, devicetest.TinyCenters["alice"], 5000, devicetest.TinyD, 0.5))
	rec := next(t, ch)
	if rec.Decision != "failed" || !strings.Contains(rec.Reason, "daemon.batch_timeout") || !strings.Contains(rec.Reason, "(spool.max_frames)") {
		t.Errorf("record %+v, want a failure naming daemon.batch_timeout and spool.max_frames", rec)
	}
}

// A batch file over a set-file limit fails with a reason that names the
// key that sets the limit: spool.max_frames for its frames, given in a
// drop-in.
func TestBatchOverFrameLimit(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	dropIn := filepath.Join(filepath.Dir(f.Config), "conf.d", "frames.toml")
	if err := os.MkdirAll(filepath.Dir(dropIn), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dropIn, []byte("[spool]\nmax_frames = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	rng := rand.New(rand.NewPCG(73, 74))
	f.Drop(t, "long.npy", devicetest.Sample(rng, devicetest.TinyCenters["alice"], 10, devicetest.TinyD, 0.5))
	rec := next(t, ch)
	if want := "10 frames (rows) exceed the limit of 4; split the set or raise the limit (spool.max_frames)"; rec.Decision != "failed" || !strings.Contains(rec.Reason, want) {
		t.Errorf("record %+v, want a failure saying %q", rec, want)
	}
}

// A stop gives the batch in hand daemon.stop_grace, then leaves it in cur/
// for the next start, without a journal line and without counting an
// attempt against it.
func TestStopGraceLeavesBatchInCur(t *testing.T) {
	f := devicetest.NewFixture(t, "[daemon]\nstop_grace = \"50ms\"\n")
	r, _ := newRunner(t, f, slog.DiscardHandler)
	rng := rand.New(rand.NewPCG(73, 74))
	f.Drop(t, "big.npy", devicetest.Sample(rng, devicetest.TinyCenters["alice"], 10000, devicetest.TinyD, 0.5))
	cur := filepath.Join(f.Spool, spool.DirCur)
	testutil.WaitFor(t, 10*time.Second, "the attempt marker of big.npy", func() bool {
		_, err := os.Stat(filepath.Join(cur, ".big.npy.retry"))
		return err == nil
	})
	start := time.Now()
	r.Stop()
	r.Wait()
	r.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("stop took %v with a grace of 50ms", d)
	}
	if got := testutil.Names(t, cur); len(got) != 1 || got[0] != "big.npy" {
		t.Errorf("cur/ holds %v, want big.npy alone (no attempt marker)", got)
	}
	if _, err := os.Stat(f.Journal); err == nil && len(devicetest.ReadJournal(t, f.Journal)) != 0 {
		t.Error("a journal line for a batch given up at a stop")
	}
}

// A reload refuses a model with another input dimension and keeps the old.
func TestReloadRefusesOtherInputDim(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	r, _ := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	m := fixtureModel(t, f)
	bigD, d := m.W.Dims()
	w := mat.NewDense(bigD+1, d, nil)
	w.Slice(0, bigD, 0, d).(*mat.Dense).Copy(m.W)
	m.W, m.Mean = w, append(m.Mean, 0)
	other := filepath.Join(f.Dir, "wider.smm")
	if err := model.WriteFile(other, m); err != nil {
		t.Fatal(err)
	}
	cfg := *r.Config()
	cfg.Model = other
	old := r.Model().ID()
	_, err := r.Reload(&cfg)
	if err == nil || !strings.Contains(err.Error(), "takes 7 features per frame, the model in use") {
		t.Errorf("reload of a model with D+1: %v", err)
	}
	if r.Model().ID() != old {
		t.Error("the model changed after a refused reload")
	}
}

// msgCounter is a slog.Handler that counts the records whose message starts
// with prefix, and those that say a batch stays in cur/.
var _ slog.Handler = (*msgCounter)(nil)

type msgCounter struct {
	prefix string
	n      atomic.Int64
	stays  atomic.Int64
}

func (c *msgCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *msgCounter) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *msgCounter) WithGroup(string) slog.Handler            { return c }

func (c *msgCounter) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, c.prefix) {
		c.n.Add(1)
	}
	if strings.HasPrefix(r.Message, "batch stays in cur/") {
		c.stays.Add(1)
	}
	return nil
}

// setmatchd -check says the pid of the daemon running on the spool (on
// Linux), and does not need the spool's lock: it runs beside the daemon.
func TestCheckSpoolInUse(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	const inUse = "spool:    in use by setmatchd pid"
	sp, err := spool.Open(spool.Options{Dir: f.Spool})
	if err != nil {
		t.Fatal(err)
	}
	sp.Close()
	var out strings.Builder
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), "writable by the spool group") || strings.Contains(out.String(), inUse) {
		t.Fatalf("check of a spool no daemon runs on: %v\n%s", err, out.String())
	}
	if sp, err = spool.Open(spool.Options{Dir: f.Spool}); err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	out.Reset()
	err = Check(f.Config, &out)
	want := fmt.Sprintf("%s %d, which holds the lock of its cur/: a second setmatchd on it refuses to start\n", inUse, os.Getpid())
	if err != nil || (runtime.GOOS == "linux") != strings.Contains(out.String(), want) {
		t.Errorf("check of a spool in use: %v\n%s", err, out.String())
	}
}

// setmatchd -check names the setmatchd that writes the journal, where the
// system says it (Linux), and takes no lock: it succeeds beside it.
func TestCheckJournalInUse(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	const inUse = "journal:  in use by setmatchd pid"
	j, err := journal.Open(f.Journal, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	var out strings.Builder
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), f.Journal+": writable") || strings.Contains(out.String(), inUse) {
		t.Fatalf("check of a journal no daemon writes: %v\n%s", err, out.String())
	}
	if j, err = journal.Open(f.Journal, 0, 1); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	out.Reset()
	err = Check(f.Config, &out)
	want := fmt.Sprintf("%s %d, which holds its lock %s: a second setmatchd writing it refuses to start\n", inUse, os.Getpid(), journal.LockPath(f.Journal))
	if err != nil || (runtime.GOOS == "linux") != strings.Contains(out.String(), want) {
		t.Errorf("check of a journal in use: %v\n%s", err, out.String())
	}
}

// setmatchd -check says when the spool group cannot write tmp/ or new/.
func TestCheckSpoolGroup(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	sp, err := spool.Open(spool.Options{Dir: f.Spool})
	if err != nil {
		t.Fatal(err)
	}
	sp.Close()
	var out strings.Builder
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), "writable by the spool group") {
		t.Fatalf("check of a good spool: %v\n%s", err, out.String())
	}
	// A missing tmp/ is not said to be writable: under its unit, which
	// may not set the set-group-ID bit, the daemon cannot make it.
	os.Remove(filepath.Join(f.Spool, spool.DirTmp))
	out.Reset()
	if err := Check(f.Config, &out); err != nil || strings.Contains(out.String(), "tmp/ and new/ writable") ||
		!strings.Contains(out.String(), "new/ writable by the spool group; tmp/ missing") {
		t.Errorf("check without tmp/: %v\n%s", err, out.String())
	}
	// Both missing: said of both.
	os.Remove(filepath.Join(f.Spool, spool.DirNew))
	out.Reset()
	if err := Check(f.Config, &out); err != nil || strings.Contains(out.String(), "writable") ||
		!strings.Contains(out.String(), "tmp/ and new/ missing: setmatchd makes them at start, except under its unit, where it stops with the install -d commands that make them") {
		t.Errorf("check without tmp/ and new/: %v\n%s", err, out.String())
	}
	for _, d := range []string{spool.DirTmp, spool.DirNew} {
		os.Mkdir(filepath.Join(f.Spool, d), 0o770)
		os.Chmod(filepath.Join(f.Spool, d), spool.ModeShared)
	}
	os.Chmod(filepath.Join(f.Spool, spool.DirNew), 0o750)
	out.Reset()
	err = Check(f.Config, &out)
	if err == nil || !strings.Contains(err.Error(), "the spool group cannot write it") {
		t.Errorf("check with new/ 0750: %v", err)
	}
	// tmp/ in another group than the spool's (a folder the daemon made
	// in a spool without the set-group-ID bit gets the daemon's group):
	// its mode says nothing of the cameras' group. Changing a group takes
	// root, or a group the test's user is in.
	os.Chmod(filepath.Join(f.Spool, spool.DirNew), spool.ModeShared)
	fi, err := os.Stat(f.Spool)
	if err != nil {
		t.Fatal(err)
	}
	other := 61000
	if os.Geteuid() != 0 {
		t.Skip("changing a folder's group to another than the spool's needs root")
	}
	if g := int(fi.Sys().(*syscall.Stat_t).Gid); g == other {
		other++
	}
	if err := os.Chown(filepath.Join(f.Spool, spool.DirTmp), -1, other); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Check(f.Config, &out); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("belongs to group %d", other)) {
		t.Errorf("check with tmp/ in group %d: %v\n%s", other, err, out.String())
	}
}

// setmatchd -check refuses a spool or journal path the daemon could not
// use, naming the key, and passes missing ones the daemon creates.
func TestCheckPaths(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	file := filepath.Join(f.Dir, "afile")
	os.WriteFile(file, nil, 0o644)
	readme := filepath.Join(f.Dir, "README")
	os.WriteFile(readme, []byte("# notes\nprecious\n"), 0o644)
	link := filepath.Join(f.Dir, "j-link.jsonl")
	os.Symlink(filepath.Join(f.Dir, "j3.jsonl"), link)
	for _, c := range []struct {
		name, spool, journal string
		want                 string // in the error; "" for ok with this in the output
		out                  string
	}{
		{"missing spool", filepath.Join(f.Dir, "new", "spool"), f.Journal, "", "missing; setmatchd creates it"},
		{"spool a file", file, f.Journal, "spool.dir " + file + " is not a directory", ""},
		{"spool under a file", filepath.Join(file, "spool"), f.Journal, "setmatchd cannot create it", ""},
		{"journal folder missing", f.Spool, filepath.Join(f.Dir, "nodir", "journal.jsonl"), "is missing or not a directory", ""},
		{"journal a folder", f.Spool, f.Dir, "is not a regular file", ""},
		{"missing journal", f.Spool, filepath.Join(f.Dir, "j2.jsonl"), "", "j2.jsonl: missing; setmatchd creates it"},
		{"journal the model", f.Spool, f.Model, "journal.path " + f.Model + " is the model", ""},
		{"journal the configuration", f.Spool, f.Config, "is the configuration file " + f.Config, ""},
		{"journal not a journal", f.Spool, readme, "is not a setmatch journal (its first line is not a journal record)", ""},
		{"journal a symbolic link", f.Spool, link, "is a symbolic link", ""},
	} {
		f.Spool, f.Journal = c.spool, c.journal
		f.WriteConfig(t, "")
		var out strings.Builder
		err := Check(f.Config, &out)
		switch {
		case c.want == "" && (err != nil || !strings.Contains(out.String(), c.out)):
			t.Errorf("%s: %v, want ok with %q in\n%s", c.name, err, c.out, out.String())
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "new")); err == nil {
		t.Error("-check created the missing spool's parent")
	}
}

// decision.threshold = inf makes a closed set: -check warns, and names
// the key, not the model, which has a threshold. (A model without one is
// TestDaemonReload's.)
func TestCheckWarnsClosedSet(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	var out strings.Builder
	if err := Check(f.Config, &out); err != nil || strings.Contains(out.String(), "warning:") {
		t.Fatalf("a model with a threshold: %v\n%s", err, out.String())
	}
	f.WriteConfig(t, "[decision]\nthreshold = inf\n")
	out.Reset()
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), "warning:  decision.threshold = inf in the configuration makes a closed set") {
		t.Fatalf("decision.threshold = inf: %v, want a warning in\n%s", err, out.String())
	}
	// A model without a threshold, and no decision.threshold: the model is
	// named.
	f.WriteConfig(t, "")
	m, _, err := model.ReadFile(f.Model)
	if err != nil {
		t.Fatal(err)
	}
	m.Threshold = math.Inf(1)
	if err := model.WriteFile(f.Model, m); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), "warning:  the model has no threshold") {
		t.Fatalf("a model without a threshold: %v, want a warning in\n%s", err, out.String())
	}
}

// TestCheckWarnsFarThreshold: a decision.threshold ten times the
// model's own or more, or a tenth of it or less, was likely set for
// another model: -check warns, and says which way the door errs; one
// within that range is taken without a word.
func TestCheckWarnsFarThreshold(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	m, _, err := model.ReadFile(f.Model)
	if err != nil {
		t.Fatal(err)
	}
	own := m.Threshold
	for _, c := range []struct {
		times float64
		want  string
	}{
		{20, "is 20 times the model's own threshold"},
		{0.05, "is 1/20 of the model's own threshold"},
		{0, "is 0, far below the model's own threshold"},
		{2, ""},
		{0.5, ""},
	} {
		f.WriteConfig(t, fmt.Sprintf("[decision]\nthreshold = %v\n", c.times*own))
		var out strings.Builder
		if err := Check(f.Config, &out); err != nil {
			t.Fatalf("%v times: %v", c.times, err)
		}
		warned := strings.Contains(out.String(), "warning:  decision.threshold = ")
		if warned != (c.want != "") || !strings.Contains(out.String(), c.want) {
			t.Errorf("%v times the model's %v: want a warning %q in\n%s", c.times, own, c.want, out.String())
		}
	}
}

// TestCheckNamesMQTTClient: with [mqtt], -check says what the broker and
// Home Assistant will know the daemon as.
func TestCheckNamesMQTTClient(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	f.WriteConfig(t, "[mqtt]\nbroker = \"tcp://127.0.0.1:1883\"\ntopic = \"site/door\"\nclient_id = \"door 1\"\n")
	var out strings.Builder
	if err := Check(f.Config, &out); err != nil || !strings.Contains(out.String(), "mqtt:     client id door 1, Home Assistant discovery on homeassistant/sensor/door_1/decision/config\n") {
		t.Fatalf("%v\n%s", err, out.String())
	}
}

// TestBatchLogSaysRetry: the log line of a batch handled again after an
// interrupted run says so, as its journal line does.
func TestBatchLogSaysRetry(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(9, 10))
	leaveInCur(t, f, "left.npy", devicetest.Batch(rng, "carol"))
	f.Drop(t, "fresh.npy", devicetest.Batch(rng, "alice"))
	var log testutil.LockedBuffer
	r, ch := newRunner(t, f, slog.NewTextHandler(&log, nil))
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	for range 2 {
		next(t, ch)
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "msg=batch ") && strings.Contains(l, "file=left.npy") != strings.Contains(l, "retry=true") {
			t.Errorf("batch log line: %s", l)
		}
	}
	if !strings.Contains(log.String(), "retry=true") {
		t.Errorf("no batch line says retry:\n%s", log.String())
	}
}

// TestAttemptCountedFromRead: the attempt marker is written before the
// batch is read, so that a daemon killed while reading (an OOM kill while
// decoding a burst's frames) counts the attempt and, after
// spool.MaxMatchAttempts of them, fails the batch; it was written only
// once the batch reached the matcher, and such a batch was retried forever.
func TestAttemptCountedFromRead(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cur := filepath.Join(f.Spool, spool.DirCur)
	seen := make(chan string, 1)
	beforeRead = func(name string) {
		b, err := os.ReadFile(filepath.Join(cur, "."+name+".retry"))
		if err != nil {
			seen <- err.Error()
			return
		}
		seen <- string(b)
	}
	defer func() { beforeRead = nil }()
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	rng := rand.New(rand.NewPCG(75, 76))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	if rec := next(t, ch); rec.Decision != "alice" {
		t.Errorf("a.npy: %+v", rec)
	}
	if got := <-seen; got != "1\n" {
		t.Errorf("the attempt marker as a.npy's read begins: %q, want \"1\\n\"", got)
	}
	if got := testutil.Names(t, cur); len(got) != 0 {
		t.Errorf("cur/ holds %v after the batch", got)
	}
}

// TestReloadRefusesOtherPipeline: a reload refuses a model with the same
// number of features per frame from another feature pipeline (a model of
// feature vectors replaced by an image model, or one spec by another): every
// batch of features would be matched in the wrong space. It was taken.
func TestReloadRefusesOtherPipeline(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	r, _ := newRunner(t, f, slog.DiscardHandler)
	stop := func() { r.Stop(); r.Wait(); r.Close() }
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	D := fixtureModel(t, f).InputDim()
	old := r.Model().ID()
	var specs []string
	for _, spec := range []string{"intensity:3x2", "intensity:2x3"} {
		m := pipelineModel(fitSpec(t, spec), D)
		path := filepath.Join(f.Dir, strings.ReplaceAll(spec, ":", "-")+".smm")
		if err := model.WriteFile(path, m); err != nil {
			t.Fatal(err)
		}
		specs = append(specs, path)
	}
	cfg := *r.Config()
	cfg.Model = specs[0]
	_, err := r.Reload(&cfg)
	if err == nil || !strings.Contains(err.Error(), "reads frames with --features intensity:3x2, the model in use") ||
		!strings.Contains(err.Error(), "takes feature vectors and records no feature pipeline") || !strings.Contains(err.Error(), "restart setmatchd") {
		t.Errorf("reload of an image model over a feature-vector model of the same D: %v", err)
	}
	if r.Model().ID() != old {
		t.Error("the model changed after a refused reload")
	}
	// From one spec to another of the same D, after a restart on the first
	// (the first stopped: one runner holds a spool at a time).
	stop()
	stopped = true
	r2, _ := newRunnerModel(t, f, specs[0])
	defer func() { r2.Stop(); r2.Wait(); r2.Close() }()
	cfg = *r2.Config()
	cfg.Model = specs[1]
	if _, err := r2.Reload(&cfg); err == nil || !strings.Contains(err.Error(), "--features intensity:2x3, the model in use") {
		t.Errorf("reload of another spec of the same D: %v", err)
	}
	// The same pipeline again is taken.
	cfg.Model = specs[0]
	if _, err := r2.Reload(&cfg); err != nil {
		t.Errorf("reload of the same model: %v", err)
	}
}

// holdReads stops the runner before it reads each batch until the test
// lets it go: the batch's name comes on reading, and its read goes on at a
// value on release or once release is closed. beforeRead is reset when t
// ends.
func holdReads(t *testing.T) (reading <-chan string, release chan struct{}) {
	names, rel := make(chan string), make(chan struct{})
	beforeRead = func(name string) { names <- name; <-rel }
	t.Cleanup(func() { beforeRead = nil })
	return names, rel
}

// newRunnerModel is newRunner on f's configuration with the model at path.
func newRunnerModel(t *testing.T, f *devicetest.Fixture, path string) (*Runner, <-chan *journal.Record) {
	t.Helper()
	f.Model = path
	f.WriteConfig(t, "")
	return newRunner(t, f, slog.DiscardHandler)
}

// TestBusy: the time stalled reads counts from when the batch in hand was
// taken, while it is read, and is 0 between batches (it is measured on the
// monotonic clock, so a step of the wall clock cannot make the watchdog
// think a batch wedged); a batch within its limit is not stalled.
func TestBusy(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	reading, release := holdReads(t)
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	busy := func() time.Duration {
		d, stalled := r.stalled(time.Hour)
		if stalled {
			t.Errorf("stalled after %v, with a watchdog interval of an hour", d)
		}
		return d
	}
	if b := busy(); b != 0 {
		t.Errorf("in hand for %v before any batch, want 0", b)
	}
	rng := rand.New(rand.NewPCG(77, 78))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	<-reading
	const wait = 50 * time.Millisecond
	time.Sleep(wait)
	if b := busy(); b < wait || b > time.Minute {
		t.Errorf("in hand for %v after %v in the batch's read, want at least that", b, wait)
	}
	close(release)
	if rec := next(t, ch); rec.Decision != "alice" {
		t.Errorf("a.npy: %+v", rec)
	}
	testutil.WaitFor(t, 10*time.Second, "no batch in hand after the batch", func() bool { return busy() == 0 })
}

// TestReloadPartialModelSaysWhatToDo: a model file read on reload while it
// is written in place (cp, scp), or copied in part, is refused with what to
// do, and the model in use stays.
func TestReloadPartialModelSaysWhatToDo(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	r, _ := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	old := r.Model().ID()
	other := filepath.Join(f.Dir, "other.smm")
	devicetest.WriteTinyModel(t, other, true)
	b, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), b...)
	flipped[len(flipped)-20] ^= 1
	for _, c := range []struct {
		name  string
		bytes []byte
		what  string
	}{
		{"half", b[:len(b)/2], "truncated"},
		{"empty", nil, "empty"},
		{"a byte changed", flipped, "checksum"},
	} {
		if err := os.WriteFile(f.Model, c.bytes, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := r.Reload(r.Config())
		if err == nil || !strings.Contains(err.Error(), c.what) || !strings.Contains(err.Error(), "rename it over the model file") {
			t.Errorf("%s: reload: %v, want it to say %q and what to do", c.name, err, c.what)
		}
		if r.Model().ID() != old {
			t.Errorf("%s: the model changed after a refused reload", c.name)
		}
	}
}

// TestStallIsTheBatchsOwnLimit: a reload that lowers daemon.batch_timeout
// while a batch is in hand leaves that batch the limit it was taken under,
// and the watchdog is fed while it is within it (starved, systemd would kill
// the daemon in the middle of a batch being matched); a batch taken after the
// reload is held to the new limit.
func TestStallIsTheBatchsOwnLimit(t *testing.T) {
	f := devicetest.NewFixture(t, "[daemon]\nbatch_timeout = \"1h\"\n")
	reading, release := holdReads(t)
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	const iv = 10 * time.Millisecond
	rng := rand.New(rand.NewPCG(79, 80))
	f.Drop(t, "a.npy", devicetest.Batch(rng, "alice"))
	<-reading
	f.WriteConfig(t, "[daemon]\nbatch_timeout = \"1ms\"\n")
	cfg := fixtureConfig(t, f)
	if _, err := r.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * iv)
	if b, stalled := r.stalled(iv); stalled {
		t.Errorf("a batch %v in hand under its limit of 1h is taken as stalled after a reload set daemon.batch_timeout = 1ms", b)
	}
	release <- struct{}{}
	if rec := next(t, ch); rec.Decision != "alice" {
		t.Errorf("a.npy: %+v, want it decided under the limit it was taken under", rec)
	}
	f.Drop(t, "b.npy", devicetest.Batch(rng, "alice"))
	<-reading
	time.Sleep(5 * iv)
	if b, stalled := r.stalled(iv); !stalled {
		t.Errorf("a batch %v in hand under daemon.batch_timeout = 1ms is not taken as stalled", b)
	}
	if b, stalled := r.stalled(time.Hour); stalled {
		t.Errorf("a batch %v in hand, over daemon.batch_timeout = 1ms but not by a watchdog interval of 1h, is taken as stalled", b)
	}
	close(release)
	if rec := next(t, ch); rec.Decision != "failed" || !strings.Contains(rec.Reason, "daemon.batch_timeout") {
		t.Errorf("b.npy: %+v, want it failed by daemon.batch_timeout", rec)
	}
}

// TestFirstUnclaimable: a burst that cannot be claimed (spool.ErrNotWritable)
// is said once, though every rescan offers it again; the names remembered
// are bounded.
func TestFirstUnclaimable(t *testing.T) {
	var r Runner
	if !r.firstUnclaimable("a") || r.firstUnclaimable("a") || !r.firstUnclaimable("b") {
		t.Error("each name is not said exactly once")
	}
	for i := range 3 * maxUnclaimable {
		r.firstUnclaimable(strconv.Itoa(i))
		if n := len(r.unclaimable); n > maxUnclaimable {
			t.Fatalf("%d names remembered, more than %d", n, maxUnclaimable)
		}
	}
}

// TestCheckLabelsNotInModel: every label pin the model does not know is
// named at the place of the file that sets it, sorted, with what to do;
// it was one of them, chosen by map order, without a place.
// TestCheckMissingModelNamesFile: a relative model path in a drop-in is
// taken from the drop-in's folder (conf.d/); the error of a missing model
// names the file and line that set it, and that rule.
func TestCheckMissingModelNamesFile(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	dropin := writeDropin(t, f, "50-site.toml", "# site\nmodel = \"door/model.smm\"\n")
	err := Check(f.Config, io.Discard)
	want := dropin + ":2:1: model: open " + filepath.Join(f.Dir, "conf.d", "door", "model.smm") + ": no such file or directory"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "a relative path is taken from the folder of the configuration file that sets it") {
		t.Fatalf("%v, want an error that begins %q and says how a relative path is taken", err, want)
	}
}

// TestModelOpenError: a model file that is missing or that the daemon's
// user may not read is the error of the key model, with what to do; any
// other error is returned as it is. (Tests run as root, whom a file's mode
// does not stop: the permission case is given its error.)
func TestModelOpenError(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	cfg, err := config.Load(f.Config)
	if err != nil {
		t.Fatal(err)
	}
	other := errors.New("not a setmatch model file")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: f.Model, Err: fs.ErrNotExist}, "a relative path is taken from the folder of the configuration file that sets it"},
		{&fs.PathError{Op: "open", Path: f.Model, Err: fs.ErrPermission}, "permission denied (setmatchd's user must read it: sudo chgrp setmatch " + f.Model + " && sudo chmod 0640 " + f.Model},
		{other, "not a setmatch model file"},
	} {
		got := modelOpenError(cfg, c.err)
		if !errors.Is(got, c.err) || !strings.Contains(got.Error(), c.want) {
			t.Errorf("%v: got %v, want it wrapped with %q", c.err, got, c.want)
		}
		if c.err != other && !strings.HasPrefix(got.Error(), f.Config+":") {
			t.Errorf("%v: got %v, want it at the place of model in %s", c.err, got, f.Config)
		}
	}
}

// writeDropin writes text to the drop-in name in the fixture's conf.d/
// and returns its path.
func writeDropin(t *testing.T, f *devicetest.Fixture, name, text string) string {
	t.Helper()
	p := filepath.Join(f.Dir, "conf.d", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckLabelsNotInModel: a label pin whose label the model does not
// hold (a typo, or a person forgotten) is warned of by -check, each with
// the place of its key and what to do, and the configuration passes: the
// daemon starts with it (TestStartWarnsOfPinnedLabel).
func TestCheckLabelsNotInModel(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	dropin := writeDropin(t, f, "50-pins.toml", "[gpio.label_pins]\nzed = \"GPIO5\"\nyan = \"GPIO6\"\n")
	var out strings.Builder
	if err := Check(f.Config, &out); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "gpio.label_pins.") && strings.HasPrefix(l, "warning:  ") {
			lines = append(lines, l)
		}
	}
	want := []string{
		"warning:  " + dropin + `:3:1: gpio.label_pins.yan: label "yan" is not in model ` + f.Model,
		"warning:  " + dropin + `:2:1: gpio.label_pins.zed: label "zed" is not in model ` + f.Model,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d warnings, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) || !strings.HasSuffix(lines[i], "give one of them, or remove the key; until then its pin does not pulse") {
			t.Errorf("warning %d: %q, want it to begin %q and say what to do", i+1, lines[i], w)
		}
	}
}

// TestReloadStarvesStalledWatchdog: while a reload is loading, the
// watchdog's ticks ping systemd only as the main loop's do: not while a
// batch has been in hand past its daemon.batch_timeout and a watchdog
// interval, so that systemd restarts a wedged daemon also then.
func TestReloadStarvesStalledWatchdog(t *testing.T) {
	dir, err := os.MkdirTemp("", "notify")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)

	const iv = 10 * time.Millisecond
	r := stalledRunner(t, 81, iv)

	wd := make(chan time.Time)
	d := &daemonLoop{log: slog.New(slog.DiscardHandler), r: r, out: &outputs{log: slog.New(slog.DiscardHandler)}, wd: wd, iv: iv}
	loading, release2 := make(chan struct{}), make(chan struct{})
	done := make(chan bool)
	go func() {
		done <- d.reload(context.Background(), nil, "test", func() (loaded, error) {
			close(loading)
			<-release2
			return loaded{}, errors.New("nothing to load")
		})
	}()
	<-loading
	for range 3 {
		wd <- time.Now()
	}
	close(release2)
	<-done
	conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			break
		}
		if strings.Contains(string(buf[:n]), "WATCHDOG=1") {
			t.Fatalf("a reload pinged the watchdog with a batch stalled: %q", buf[:n])
		}
	}
}

// TestFailedBatchNotMovedIsCounted: a failed batch whose journal line is
// written is counted and published (the Observe hook, which feeds the
// metrics and MQTT) also when it cannot be moved to failed/ (here: removed
// from cur/ while in hand), as a decided batch is when it cannot be moved
// to done/, so that the metrics' sum equals the journal's lines.
func TestFailedBatchNotMovedIsCounted(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	reading, release := holdReads(t)
	r, ch := newRunner(t, f, slog.DiscardHandler)
	defer func() { r.Stop(); r.Wait(); r.Close() }()
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(83, 84)), "alice"))
	<-reading
	if err := os.Remove(filepath.Join(f.Spool, spool.DirCur, "a.npy")); err != nil {
		t.Fatal(err)
	}
	close(release)
	select {
	case rec := <-ch:
		if rec.File != "a.npy" || rec.Decision != "failed" {
			t.Errorf("observed %+v, want a.npy failed", rec)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the failed batch, journaled, was not observed")
	}
	if b, err := os.ReadFile(f.Journal); err != nil || strings.Count(string(b), "\n") != 1 {
		t.Errorf("journal %q (%v), want one line", b, err)
	}
}

// stalledRunner returns a started Runner whose one batch (seeded by seed)
// is held before its read (beforeRead) for longer than its
// daemon.batch_timeout (1 ms) and the watchdog interval iv: stalled. The
// batch is let go and the Runner stopped at the test's end.
func stalledRunner(t *testing.T, seed uint64, iv time.Duration) *Runner {
	t.Helper()
	f := devicetest.NewFixture(t, "[daemon]\nbatch_timeout = \"1ms\"\n")
	reading, release := holdReads(t)
	r, _ := newRunner(t, f, slog.DiscardHandler)
	t.Cleanup(func() {
		close(release)
		r.Stop()
		r.Wait()
		r.Close()
	})
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(seed, seed+1)), "alice"))
	<-reading
	time.Sleep(max(5*iv, 20*time.Millisecond))
	if _, stalled := r.stalled(iv); !stalled {
		t.Fatal("the batch held before its read is not stalled")
	}
	return r
}

// TestSameInputDimNamesPipelines: a model of another feature pipeline and
// another number of features per frame is refused naming both pipelines
// with their dimensions (bursts of images would not fail with it, so the
// refusal does not say they would); one of feature vectors with another
// dimension says the batches would fail.
func TestSameInputDimNamesPipelines(t *testing.T) {
	loaded := func(spec string, D int) *Loaded {
		var fit *features.Fitted
		if spec != "" {
			fit = fitSpec(t, spec)
		}
		return &Loaded{Path: fmt.Sprintf("m%d.smm", D), Model: pipelineModel(fit, D)}
	}
	for _, tc := range []struct {
		old, new *Loaded
		want     string
	}{
		{loaded("intensity:3x2", 6), loaded("intensity:4x2", 8), "model m8.smm reads frames with --features intensity:4x2 (8 features per frame), the model in use (m6.smm) reads frames with --features intensity:3x2 (6 features per frame): another feature extractor; keeping the model in use (to change the feature extractor, replace the model and restart setmatchd)"},
		{loaded("", 6), loaded("", 8), "model m8.smm takes 8 features per frame, the model in use (m6.smm) takes 6: the batches in the spool would all fail"},
		{loaded("", 6), loaded("intensity:3x2", 6), "model m6.smm reads frames with --features intensity:3x2, the model in use (m6.smm) takes feature vectors"},
		{loaded("intensity:3x2", 6), loaded("intensity:3x2", 6), ""},
	} {
		err := sameInputDim(tc.old, tc.new)
		if (tc.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
