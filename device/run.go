package device

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/config"
	"setmatch/device/gpio"
	"setmatch/device/journal"
	"setmatch/device/spool"
	"setmatch/internal/finite"
	"setmatch/model"
	"setmatch/setfile"
)

// Options configures a Runner.
type Options struct {
	Config *config.Config
	Log    *slog.Logger
	// Driver replaces the GPIO backend named in the config (tests pass a
	// *gpiotest.Recorder). The Runner closes it.
	Driver gpio.Driver
	// BatchWorkers is the number of batches handled at once (default 1:
	// each batch already uses daemon.workers goroutines, and one at a time
	// keeps arrival order and the lowest latency).
	BatchWorkers int
	// QueueLen bounds the names waiting for a worker (default 4096); more
	// stay in new/ until a rescan.
	QueueLen int
	// Observe, if set, is called with each journal record after its line is
	// on disk (benchmarks and tests).
	Observe func(*journal.Record)
	// JournalRetry is the first wait before writing a journal line again
	// after a failure (default 1 s, doubling up to a minute).
	JournalRetry time.Duration
}

// Loaded is a validated model with its matcher, ready to use.
type Loaded struct {
	Path    string
	Model   *model.Model
	Matcher *model.Matcher
	SHA256  string // of the model file
	Size    int64
}

// ID is a short form of the model checksum used in the journal.
func (l *Loaded) ID() string { return l.SHA256[:16] }

// LoadModel reads, checks and prepares the model file that cfg names,
// with daemon.workers goroutines per batch (0 = one per CPU). The checksum
// is of the very bytes decoded.
func LoadModel(cfg *config.Config) (*Loaded, error) {
	path := cfg.Model
	mt, info, err := model.ReadMatcher(path, cfg.Daemon.Workers)
	if err != nil {
		return nil, modelOpenError(cfg, err)
	}
	return &Loaded{Path: path, Model: mt.Model(), Matcher: mt, SHA256: info.SHA256, Size: info.Size}, nil
}

// modelOpenError returns err, the error of reading the model file cfg
// names: a file that is missing, or that this user may not read, as the
// error of the key model at the place of the file that set it, with what
// to do; any other as it is (the model package says what is wrong).
func modelOpenError(cfg *config.Config, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return cfg.KeyError("model", fmt.Errorf("%w (put the model file there, or set model to its path: a relative path is taken from the folder of the configuration file that sets it; `setmatch train` writes model files)", err))
	case errors.Is(err, fs.ErrPermission):
		return cfg.KeyError("model", fmt.Errorf("%w (setmatchd's user must read it: sudo chgrp setmatch %s && sudo chmod 0640 %s, and search every folder above it)", err, cfg.Model, cfg.Model))
	}
	return err
}

// state is what a batch is handled with; a reload swaps it whole.
type state struct {
	cfg     *config.Config
	model   *Loaded
	matcher *model.Matcher // the model's matcher with the configured threshold
	limits  setfile.Limits
	burst   burstPipeline // how image bursts are read
}

func newState(cfg *config.Config, m *Loaded) (*state, error) {
	mb := int64(cfg.Spool.MaxBatchBytes)
	// The model's input dimension is checked from the .npy header or the
	// first CSV frame, before the body is parsed.
	lim := setfile.Limits{MaxRows: cfg.Spool.MaxFrames, Cols: m.Model.InputDim(), Knobs: setfile.Knobs{Rows: "spool.max_frames"}}
	if mb > 0 {
		// In memory a float32 .npy doubles and a CSV can grow 4×
		// (saturating: config caps mb far below that).
		lim.MaxBytes = min(mb, math.MaxInt64/4) * 4
		lim.Knobs.Bytes = "spool.max_batch_bytes: the limit in memory is four times it"
	}
	// The model's threshold unless the configuration sets one (a model
	// that decides by a vote has one per member, and takes only inf).
	mt := m.Matcher
	if t := cfg.Decision.Threshold; t != nil {
		var err error
		if mt, err = m.Matcher.WithThreshold(*t); err != nil {
			return nil, cfg.KeyError("decision.threshold", err)
		}
	}
	return &state{cfg: cfg, model: m, matcher: mt, limits: lim, burst: newBurstPipeline(cfg, m)}, nil
}

// Runner is the appliance's run loop: spool -> batch -> match -> pins ->
// journal -> done/.
type Runner struct {
	opt     Options
	log     *slog.Logger
	spool   *spool.Spool
	journal *journal.Journal
	sig     *gpio.Signaller
	q       *spool.Queue
	st      atomic.Pointer[state]
	obs     observer // the daemon's outputs (outputs.go); set before Start

	reloadMu sync.Mutex // one reload at a time
	decided  atomic.Int64
	failed   atomic.Int64
	// busy is the batch in hand (nil between batches): when it was
	// taken, with its monotonic reading, so that a step of the wall clock
	// (NTP setting a Pi's clock) adds nothing to stalled's reading, and the time limit
	// it is read and matched under.
	busy atomic.Pointer[busyBatch]

	unclaimableMu sync.Mutex
	unclaimable   map[string]bool // bursts said once not to be claimable (firstUnclaimable)

	pruneMu      sync.Mutex
	lastPruneErr string // the error of the last prune, said once (prune)

	closeOnce sync.Once
	closeErr  error

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	w      *spool.Watcher
	grace  graceState // the batch in hand's deadline after a stop (grace.go)
}

// New loads the model, opens the spool, the journal and the GPIO lines. A
// spool or journal that another daemon holds is refused first (Claim),
// before the model is read. On any error nothing is left open.
func New(opt Options) (r *Runner, err error) {
	cfg := opt.Config
	if cfg == nil {
		return nil, errors.New("device: no configuration")
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	r = &Runner{opt: opt, log: opt.Log}
	var closers []func() error
	defer func() {
		if err != nil {
			for i := len(closers) - 1; i >= 0; i-- {
				closers[i]()
			}
			if opt.Driver != nil {
				opt.Driver.Close()
			}
		}
	}()
	// A spool or journal that another setmatchd holds is refused before
	// the model is read, which for a large one takes seconds and hundreds
	// of MB: their locks are taken first (spool.Claim, journal.Claim),
	// held through the load and handed to spool.Open and journal.Open,
	// which keep them, and the start changes nothing before.
	sl, err := spool.Claim(cfg.Spool.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if sl != nil {
			sl.Close()
		}
	}()
	jl, err := journal.Claim(cfg.Journal.Path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if jl != nil {
			jl.Close()
		}
	}()
	m, err := LoadModel(cfg)
	if err != nil {
		return nil, err
	}
	for _, w := range labelPinWarnings(cfg, m) {
		opt.Log.Warn(w)
	}
	// Refused (decision.threshold) before anything is opened.
	st, err := newState(cfg, m)
	if err != nil {
		return nil, err
	}
	sopt := spoolOptions(cfg)
	sopt.Lock, sl = sl, nil
	sp, err := spool.Open(sopt)
	if err != nil {
		return nil, err
	}
	closers = append(closers, sp.Close)
	if err := sp.Unlocked(); err != nil {
		opt.Log.Warn(err.Error())
	}
	j, err := journal.OpenLocked(cfg.Journal.Path, int64(cfg.Journal.MaxBytes), cfg.Journal.Keep, jl)
	jl = nil
	if err != nil {
		return nil, err
	}
	closers = append(closers, j.Close)
	if err := j.Unlocked(); err != nil {
		opt.Log.Warn(err.Error())
	}
	if n := j.Repaired(); n > 0 {
		opt.Log.Warn("journal: cut off what followed its last complete record (a power cut or crash during a write); the batch it was written for, if any, had not left cur/ and is handled again", "path", cfg.Journal.Path, "bytes", n)
	}
	drv := opt.Driver
	if drv == nil {
		if drv, err = gpio.OpenDriver(cfg.GPIO.Backend, cfg.GPIO.Chip, opt.Log); err != nil {
			return nil, err
		}
		closers = append(closers, drv.Close)
	}
	sig, err := gpio.NewSignaller(drv, signalOptions(cfg), opt.Log)
	if err != nil {
		return nil, err
	}
	r.spool, r.journal, r.sig = sp, j, sig
	r.st.Store(st)
	return r, nil
}

func spoolOptions(cfg *config.Config) spool.Options {
	return spool.Options{
		Dir:            cfg.Spool.Dir,
		KeepDone:       cfg.Spool.Done != "delete",
		DoneMaxFiles:   cfg.Spool.DoneMaxFiles,
		DoneMaxBytes:   int64(cfg.Spool.DoneMaxBytes),
		DoneMaxAge:     cfg.Spool.DoneMaxAge.Duration,
		FailedMaxFiles: cfg.Spool.FailedMaxFiles,
		FailedMaxBytes: int64(cfg.Spool.FailedMaxBytes),
		FailedMaxAge:   0, // failed/ is capped by count and bytes, not age: its batches are evidence
		TmpMaxAge:      cfg.Spool.TmpMaxAge.Duration,
	}
}

func signalOptions(cfg *config.Config) gpio.SignalOptions {
	p := gpio.Pins{Labels: map[string]string{}}
	if cfg.GPIO.Backend != "none" {
		p.Match, p.Unknown = cfg.GPIO.MatchPin, cfg.GPIO.UnknownPin
		for l, n := range cfg.GPIO.LabelPins {
			p.Labels[l] = n
		}
	}
	return gpio.SignalOptions{Pins: p, Pulse: cfg.GPIO.Pulse.Duration, ActiveLow: cfg.GPIO.ActiveLow}
}

// labelPinWarnings says of each label pin of cfg whose label model m does
// not hold (a typo, or a person forgotten) that its pin does not pulse.
// The daemon starts all the same, and -check and the log warn: a door
// kept from starting, after a power cut, by the pin of a person since
// forgotten would decide no one.
func labelPinWarnings(cfg *config.Config, m *Loaded) []string {
	var w []string
	for _, p := range unknownLabelPins(cfg.GPIO, m) {
		w = append(w, labelPinWarning(cfg, m, p))
	}
	return w
}

// labelPinWarning is labelPinWarnings' words of the pin p.
func labelPinWarning(cfg *config.Config, m *Loaded, p config.Pin) string {
	return labelPinError(cfg, m, p).Error() + "; until then its pin does not pulse"
}

// unknownLabelPins returns the label pins of g whose label model m does not
// have, sorted by label.
func unknownLabelPins(g config.GPIO, m *Loaded) []config.Pin {
	known := map[string]bool{}
	for _, l := range m.Model.Labels() {
		known[l] = true
	}
	var pins []config.Pin
	for _, p := range g.Pins() {
		if p.Label != "" && !known[p.Label] {
			pins = append(pins, p)
		}
	}
	return pins
}

// labelPinError is the error of cfg's label pin p, whose label model m does
// not have.
func labelPinError(cfg *config.Config, m *Loaded, p config.Pin) error {
	return cfg.KeyError(p.Key, fmt.Errorf("label %q is not in model %s (its labels: %s): give one of them, or remove the key",
		p.Label, m.Path, strings.Join(m.Model.Classes(), ", ")))
}

// Model returns the model in use.
func (r *Runner) Model() *Loaded { return r.st.Load().model }

// Config returns the configuration in use.
func (r *Runner) Config() *config.Config { return r.st.Load().cfg }

// Stats returns the number of batches decided (a label or unknown) and
// failed since start.
func (r *Runner) Stats() (decided, failed int64) { return r.decided.Load(), r.failed.Load() }

// Start begins watching the spool and handling batches until ctx ends or
// Stop is called: batches left in cur/ first, then what is in new/.
func (r *Runner) Start(ctx context.Context) error {
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.startGrace()
	qlen := r.opt.QueueLen
	if qlen <= 0 {
		qlen = 4096
	}
	r.q = spool.NewQueue(qlen)
	r.prune()
	w, err := spool.Watch(r.ctx, r.spool, r.q, r.Config().Spool.RescanInterval.Duration, r.log, r.prune)
	if err != nil {
		r.cancel()
		return err
	}
	r.w = w
	n := max(r.opt.BatchWorkers, 1)
	for range n {
		r.wg.Add(1)
		go r.work()
	}
	return nil
}

// Stop asks the workers to finish the batch in hand and stop; batches not
// started stay in new/ (or cur/, for those left by an earlier run). The batch
// in hand has daemon.stop_grace to finish; then its matching is given up and
// it stays in cur/ for the next start.
func (r *Runner) Stop() {
	if r.cancel != nil {
		r.cancel()
	}
}

// Wait waits for the workers and the watcher to end after Stop (or the end
// of Start's context), lets the pulses already decided finish (at most
// drainMax), then drives all pins idle.
func (r *Runner) Wait() error {
	r.wg.Wait()
	if r.w != nil {
		r.w.Wait()
	}
	if r.q != nil {
		r.q.Close()
	}
	return r.sig.Drain(drainMax)
}

// drainMax bounds how long a stop waits for pulses in progress: well inside
// systemd's stop timeout.
const drainMax = 3 * time.Second

// Close releases the pins (idle), the journal and the spool. Later calls
// return the first call's result.
func (r *Runner) Close() error {
	r.closeOnce.Do(func() {
		r.closeErr = errors.Join(r.sig.Close(), r.journal.Close(), r.spool.Close())
	})
	return r.closeErr
}

func (r *Runner) work() {
	defer r.wg.Done()
	for {
		it, ok := r.q.Pop(r.ctx)
		if !ok {
			return
		}
		if r.ctx.Err() != nil {
			// Stopping: not started, so it stays where it is.
			r.q.Done(it.Name)
			return
		}
		r.handle(it)
		r.q.Done(it.Name)
	}
}

// handle takes one batch from new/ (or cur/) to done/ or failed/. Every
// path leaves the file in cur/, done/ or failed/: none loses it.
func (r *Runner) handle(it spool.Item) {
	st := r.st.Load()
	r.busy.Store(&busyBatch{since: time.Now(), limit: st.cfg.Daemon.BatchTimeout.Duration})
	defer r.busy.Store(nil)
	var arrived time.Time
	var err error
	if it.Claimed {
		arrived, err = r.spool.ClaimedAt(it.Name)
	} else {
		arrived, err = r.spool.Claim(it.Name)
	}
	if errors.Is(err, spool.ErrGone) {
		return // claimed by someone else, or handled already
	}
	if errors.Is(err, spool.ErrNotWritable) {
		// Offered again at every rescan until the camera's side is
		// mended: said once for each name.
		if r.firstUnclaimable(it.Name) {
			r.log.Error("cannot claim burst: it stays in new/ until it is group-writable", "file", it.Name, "err", err)
		}
		return
	}
	if err != nil {
		r.log.Error("cannot claim batch", "file", it.Name, "err", err)
		return
	}
	rec := &journal.Record{File: it.Name, Arrived: arrived.UTC(), Model: st.model.ID(), Retry: it.Claimed,
		Divergence: st.model.Model.Divergence.String()}
	if it.Claimed {
		// Only attempts that reached the read count (decideBatch).
		n, err := r.spool.MatchAttempts(it.Name)
		if err != nil {
			r.log.Warn("cannot read the attempts at an interrupted batch", "file", it.Name, "err", err)
		}
		if n >= spool.MaxMatchAttempts {
			// Not read again, but its line says what every line of
			// its kind does: a burst's listing, a file's size.
			r.recordUnread(st, it.Name, rec)
			r.fail(rec, fmt.Sprintf("setmatchd stopped %d times while reading or matching this batch (crash, kill or power loss): not retried again; move it back to new/ to try once more", n))
			r.spool.EndMatch(it.Name)
			return
		}
	}
	d, err := r.decide(st, it.Name, rec)
	if errors.Is(err, errStopping) {
		r.log.Warn("stopping: matching given up after daemon.stop_grace; the batch stays in cur/ for the next start", "file", it.Name)
		return
	}
	if err != nil {
		r.fail(rec, err.Error())
		return
	}
	// A dropped pulse the signaller says itself, once as drops begin and
	// then as a sum, not once a batch.
	if err := r.sig.Signal(d.Known, d.Label); err != nil && !errors.Is(err, gpio.ErrDropped) {
		r.log.Warn("gpio", "file", it.Name, "err", err)
	}
	now := time.Now()
	rec.LatencyMS = ms(now.Sub(arrived))
	rec.Known = d.Known
	rec.Decision = model.Unknown
	if d.Known {
		rec.Decision = d.Label
	}
	rec.Best = st.model.Model.Sets[d.Best].Label
	rec.BestSet = st.model.Model.Sets[d.Best].Name
	rec.Score = finite.Ptr(d.Score)
	if d.RunnerUp >= 0 {
		rec.RunnerUp = d.RunnerLabel
		rec.RunnerSc = finite.Ptr(d.RunnerScore)
	}
	rec.Time = time.Now().UTC()
	// Waiting for a writable journal is not being stuck: the watchdog must
	// not restart the daemon for a full disk.
	r.busy.Store(nil)
	if !r.appendDurably(rec) {
		return // stopping: the batch stays in cur/ and is handled again at start
	}
	if err := r.spool.Finish(it.Name); err != nil {
		r.log.Error("batch stays in cur/ (handled again at restart)", "file", it.Name, "err", err)
	}
	r.decided.Add(1)
	attrs := []any{"file", it.Name, "decision", rec.Decision, "best", rec.Best, "score", d.Score,
		"frames", rec.Frames, "latency_ms", math.Round(rec.LatencyMS*10) / 10}
	if rec.Retry {
		attrs = append(attrs, "retry", true) // as the journal line says
	}
	r.log.Info("batch", attrs...)
	r.afterMove()
	r.observe(rec)
}

// maxUnclaimable bounds the names firstUnclaimable remembers.
const maxUnclaimable = 1024

// firstUnclaimable reports whether name is a burst the daemon could not
// claim for the first time (ErrNotWritable), and remembers it; after
// maxUnclaimable names it forgets them all, so each is said again once.
func (r *Runner) firstUnclaimable(name string) bool {
	r.unclaimableMu.Lock()
	defer r.unclaimableMu.Unlock()
	if r.unclaimable[name] {
		return false
	}
	if r.unclaimable == nil || len(r.unclaimable) >= maxUnclaimable {
		r.unclaimable = make(map[string]bool)
	}
	r.unclaimable[name] = true
	return true
}

// busyBatch is the batch in hand, for stalled: the daemon stops pinging the
// systemd watchdog when it has been in hand for longer than its
// daemon.batch_timeout and a watchdog interval, so that a wedged batch gets
// the daemon restarted.
type busyBatch struct {
	since time.Time     // when it was taken
	limit time.Duration // the daemon.batch_timeout it was taken under
}

// syncClaims is spool.Spool.SyncClaims; tests replace it to see when it
// is called and to make it fail.
var syncClaims = (*spool.Spool).SyncClaims

// appendDurably writes rec to the journal once the batch's claim into cur/
// is on disk (a power cut must not put a journaled batch back in new/),
// retrying with backoff while either cannot be written (a full or failing
// disk: durably): the batch stays in cur/, and nothing new is claimed
// meanwhile, so batches wait safely in new/ rather than leave the spool
// without a record. It returns false if the daemon stops first.
func (r *Runner) appendDurably(rec *journal.Record) bool {
	return r.durably(journalNotWritten, rec.File, func() error {
		if err := syncClaims(r.spool); err != nil {
			return err
		}
		return r.journal.Append(rec)
	})
}

// journalNotWritten is the log message of appendDurably's retries, with the
// advice that follows err: a permission error (a folder the daemon's user
// may not write: a rotation's rename, a journal made as root) is mended by
// an owner and mode, not by space; a full disk or quota (ENOSPC, EDQUOT),
// or any other error of the disk, by space or a repair.
func journalNotWritten(err error) string {
	const msg = "journal cannot be written, or the claim in cur/ synced before its line: the batch stays in cur/ until both can; "
	if errors.Is(err, fs.ErrPermission) {
		return msg + "the daemon's user may not write there (permission denied): the folder of journal.path, the journal and spool.dir must be writable by the daemon's user (the package's /var/lib/setmatch is setmatch's, mode 0750: sudo chown setmatch:setmatch /var/lib/setmatch; sudo chmod 0750 /var/lib/setmatch)"
	}
	return msg + "free space on, or repair, the disk of journal.path and spool.dir"
}

// decide reads and matches the claimed batch. A panic while doing so (a bug
// met by some input) fails that batch instead of the daemon: restarted by
// systemd, the daemon would meet the same batch in cur/ again and again.
func (r *Runner) decide(st *state, name string, rec *journal.Record) (d model.Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("panic while handling a batch", "file", name, "panic", p, "stack", string(debug.Stack()))
			d, err = model.Decision{}, fmt.Errorf("internal error while handling %s: %v (please report it with the batch file)", name, p)
		}
	}()
	return r.decideBatch(st, name, rec)
}

// beforeRead, if set (by tests), is called as decideBatch begins to read a
// batch.
var beforeRead func(name string)

func (r *Runner) decideBatch(st *state, name string, rec *journal.Record) (model.Decision, error) {
	// Count the attempts from before the read: a batch that kills the
	// daemon while it is read (an image that takes all memory to decode)
	// or matched, again and again, is failed (handle). Every return,
	// a stop's included, ends the attempt.
	if err := r.spool.BeginMatch(name); err != nil {
		r.log.Warn("cannot mark the match attempt", "file", name, "err", err)
	}
	defer r.spool.EndMatch(name)
	// One time limit for the read and the match (a burst of large frames
	// takes a while to decode), and a stop gives up either.
	ctx, cancel := r.batchContext(st)
	defer cancel()
	if beforeRead != nil {
		beforeRead(name)
	}
	start := time.Now()
	x, err := r.readBatch(ctx, st, name, rec)
	// What the read took, whether it, or a check after it, fails.
	rec.ReadMS = ms(time.Since(start))
	if ctx.Err() != nil { // over the limit or stopping, during the read or at its end
		return model.Decision{}, r.matchErr(st, name, rec.Frames, rec.Burst, ctx.Err())
	}
	if err != nil {
		return model.Decision{}, err
	}
	n, dim := x.Dims()
	rec.Frames = n
	if n < st.cfg.Decision.MinFrames {
		return model.Decision{}, fmt.Errorf("batch %s has %d frame(s), fewer than decision.min_frames = %d: a set's density needs several frames; send a longer burst", name, n, st.cfg.Decision.MinFrames)
	}
	if want := st.model.Model.InputDim(); dim != want {
		// A burst's features are the model's pipeline's own: only the
		// size of its frames can change their number.
		why := " (was the batch made with the same feature extractor as the model?)"
		if f := st.model.Model.Features; rec.Burst && f != nil && f.Pipeline.SizeNote() != "" {
			why = ": " + f.Pipeline.SizeNote()
		}
		return model.Decision{}, fmt.Errorf("batch %s has %d features per frame, model %s expects %d%s", name, dim, st.model.Path, want, why)
	}
	t := time.Now()
	res, err := st.matcher.MatchContext(ctx, x)
	rec.MatchMS = ms(time.Since(t))
	if err != nil {
		return model.Decision{}, r.matchErr(st, name, n, rec.Burst, err)
	}
	rec.Bandwidth = res.Bandwidth
	// The nearest class's threshold (model.Spread); a vote's decision is
	// its deciding member's, by that member's.
	rec.Threshold = finite.Ptr(res.Threshold)
	rec.Votes = res.Votes
	return res.Decision, nil
}

// readFile reads the claimed batch file cur/name (.npy or CSV), open as f
// with its facts fi (spool.OpenClaimed).
func (r *Runner) readFile(st *state, name string, f *os.File, fi fs.FileInfo, rec *journal.Record) (*mat.Dense, error) {
	b, err := spool.ReadBatch(f, fi, name, int64(st.cfg.Spool.MaxBatchBytes))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	rec.SHA256 = hex.EncodeToString(sum[:])
	rec.Bytes = int64(len(b))
	return setfile.Read(bytes.NewReader(b), name, st.limits)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// afterMove prunes done/ and failed/ when a tenth of a cap has come in
// since the last prune (spool.Spool.PruneDue), so that they stay near
// their caps between the timed prunes.
func (r *Runner) afterMove() {
	if r.spool.PruneDue() {
		r.prune()
	}
}

func (r *Runner) prune() {
	n, err := r.spool.Prune(time.Now())
	if n > 0 {
		r.log.Debug("pruned done/ and failed/", "removed", n)
	}
	// A batch that cannot be removed is met at every prune: its error is
	// said when it is new, not at every rescan.
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	r.pruneMu.Lock()
	said := msg == r.lastPruneErr
	r.lastPruneErr = msg
	r.pruneMu.Unlock()
	if err != nil && !said {
		r.log.Warn("pruning done/ and failed/", "err", err)
	}
}

// Reload reads the model file cfg names (again, even if it is the file in
// use), validates it, and only then swaps it in. On error the old configuration and model stay in use. Keys
// that need a restart (spool, journal, GPIO backend and pins, log) are
// reported in the returned warnings and otherwise ignored; changed pins
// are looked up, and a name that does not resolve is warned of too.
func (r *Runner) Reload(cfg *config.Config) (warnings []string, err error) {
	r.reloadMu.Lock()
	defer r.reloadMu.Unlock()
	p, err := r.prepareReload(cfg)
	if err != nil {
		return nil, err
	}
	return p.warnings, r.applyReload(p)
}

// preparedReload is a reload whose files are read and checked
// (prepareReload), not yet in use (applyReload).
type preparedReload struct {
	old, st  *state
	warnings []string
}

// prepareReload does what Reload does but the swap: it reads the model file
// cfg names and checks it and cfg against what is in use, with no effect on
// the Runner. The daemon runs it in the background, and applies its result
// only if no stop came meanwhile.
func (r *Runner) prepareReload(cfg *config.Config) (*preparedReload, error) {
	old := r.st.Load()
	m, err := LoadModel(cfg)
	if err != nil {
		return nil, partialModel(err)
	}
	if err := sameInputDim(old.model, m); err != nil {
		return nil, err
	}
	// Keys that need a restart keep their values in use, so that what the
	// Runner reports matches what it does.
	live, warnings := cfg.ReloadOver(old.cfg)
	warnings = append(warnings, newPinWarnings(cfg.GPIO, old.cfg.GPIO)...)
	// A pin for a label the new model lacks (a person forgotten) no longer
	// pulses: the model is taken all the same, so that a forget takes
	// effect at once, and the pin is warned of, as at a start
	// (labelPinWarnings). A label pin's key names its label: the same key
	// in both is the same pin, warned of once.
	warned := map[string]bool{}
	for _, p := range unknownLabelPins(cfg.GPIO, m) {
		warned[p.Key] = true
		warnings = append(warnings, labelPinWarning(cfg, m, p))
	}
	for _, p := range unknownLabelPins(live.GPIO, m) {
		if !warned[p.Key] {
			warnings = append(warnings, fmt.Sprintf("%s, in use until setmatchd is restarted: label %q is not in model %s, so its pin does not pulse", p.Key, p.Label, m.Path))
		}
	}
	st, err := newState(live, m)
	if err != nil {
		return nil, err
	}
	return &preparedReload{old: old, st: st, warnings: warnings}, nil
}

// applyReload puts p in use, unless another reload was applied since p was
// prepared (p was checked against what that one replaced).
func (r *Runner) applyReload(p *preparedReload) error {
	if !r.st.CompareAndSwap(p.old, p.st) {
		return errors.New("another reload was applied while this one read its files: reload again")
	}
	r.sig.SetPulse(p.st.cfg.GPIO.Pulse.Duration)
	return nil
}

// newPinWarnings looks up the pins of g, a configuration read on reload,
// when they differ from old, those in use. A reload keeps the pins in use
// (ReloadOver warns that they need a restart), so a pin name that does
// not resolve, or a chip that is not there, would only come out at that
// restart, which refuses it: one warning for each, with what to do.
func newPinWarnings(g, old config.GPIO) []string {
	if g.SameOutputs(old) || g.Backend == "none" {
		return nil
	}
	const then = " (a reload keeps the pins in use until a restart): correct it, and check with setmatchd -check before restarting"
	find, err := gpio.Lookup(g.Backend, g.Chip)
	if err != nil {
		return []string{fmt.Sprintf("%v. setmatchd refuses to start with this [gpio] table%s", err, then)}
	}
	var warnings []string
	for _, p := range g.Pins() {
		if err := find(p.Name); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v. setmatchd refuses to start with this pin%s", p.Key, err, then))
		}
	}
	return warnings
}

// partialModel adds what to do to the error of a model file that reads as
// one half written (cut short, empty, or not the bytes its checksum was
// made of): read while it is written in place (cp, scp), or copied in part.
func partialModel(err error) error {
	if errors.Is(err, model.ErrTruncated) || errors.Is(err, model.ErrChecksum) || errors.Is(err, model.ErrEmpty) {
		return fmt.Errorf("%w: it was read while being written, or was copied in part; the daemon reads it again when it changes. Copy a model in under another name in the same folder and rename it over the model file (setmatch train --out, enroll and forget do so)", err)
	}
	return err
}
