package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"

	"setmatch/config"
)

// newLogger returns the slog logger the configuration asks for, writing to w
// (standard error: journald adds timestamps when JOURNAL_STREAM is set).
func newLogger(c config.Log, w io.Writer) *slog.Logger {
	opt := &slog.HandlerOptions{Level: c.SlogLevel()}
	if strings.EqualFold(c.Format, "json") {
		return slog.New(slog.NewJSONHandler(w, opt))
	}
	if os.Getenv("JOURNAL_STREAM") != "" {
		// journald stamps every line already.
		opt.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}
	}
	return slog.New(slog.NewTextHandler(w, opt))
}

// DaemonOptions configures Daemon.
type DaemonOptions struct {
	ConfigPath string
	Stderr     io.Writer
	// Version is the daemon's version, shown in Home Assistant.
	Version string
}

// Daemon runs setmatchd until ctx ends or SIGTERM/SIGINT arrives: it loads
// the configuration and model, starts the run loop, tells systemd READY=1,
// reloads on SIGHUP and when the model file is replaced, pings the watchdog
// from this loop, and on the way out finishes the batch in hand, drives the
// pins idle and tells systemd STOPPING=1. With [mqtt] it publishes every
// decision, with [metrics] it serves Prometheus metrics (outputs.go); on the
// way out the broker gets what is still in the outbox and "offline". It
// returns nil after a clean stop.
func Daemon(ctx context.Context, opt DaemonOptions) error {
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	// Take the signals before anything else, so that a SIGTERM during
	// start-up is not fatal. A stop has a channel of its own: signal.Notify
	// drops a signal that finds its channel full, and a burst of SIGHUPs
	// must not crowd out the SIGTERM after it. SIGHUPs that come while a
	// reload runs make one reload more, of what the files hold by then.
	hups := make(chan os.Signal, 1)
	stops := make(chan os.Signal, 1)
	signal.Notify(hups, syscall.SIGHUP)
	signal.Notify(stops, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(hups)
	defer signal.Stop(stops)

	cfg, err := config.Load(opt.ConfigPath)
	if err != nil {
		return err
	}
	log := newLogger(cfg.Log, opt.Stderr)
	// Watch the model file before it is read: a file replaced while the
	// daemon starts (reading and preparing a large model takes seconds)
	// is then reloaded once it runs, rather than missed.
	mw := newModelWatch(log)
	defer mw.close()
	mw.watch(cfg.Model)
	r, err := New(Options{Config: cfg, Log: log})
	if err != nil {
		return err
	}
	defer r.Close()
	if afterLoad != nil {
		afterLoad()
	}
	out, err := startOutputs(cfg, opt.Version, log)
	if err != nil {
		return err
	}
	defer out.close() // at once on an early return; after the runner's drain below
	r.obs = out
	out.setModel(r.Model())
	m := r.Model()
	log.Info("starting", "config", strings.Join(cfg.Files, ","), "model", m.Path, "model_sha256", m.ID(),
		"gallery_sets", len(m.Model.Sets), "spool", cfg.Spool.Dir, "journal", cfg.Journal.Path, "gpio", cfg.GPIO.Backend)
	for _, w := range r.DecisionWarnings() {
		log.Warn(w)
	}

	// The model file's bytes and the decoding's temporaries are garbage now:
	// give them back to the system rather than carry them as resident memory.
	debug.FreeOSMemory()

	if err := r.Start(ctx); err != nil {
		return err
	}
	out.watchRunner(r)
	d := &daemonLoop{configPath: opt.ConfigPath, log: log, r: r, out: out, mw: mw, runDir: runtimeDir()}
	d.writeStatus() // no reload yet: the pid, for setmatchd -reload
	notify(log, daemon.SdNotifyReady, "STATUS=watching "+cfg.Spool.Dir)

	stopWatchdog := d.startWatchdog(cfg.Daemon.Watchdog)
	defer stopWatchdog()
	d.run(ctx, hups, stops)

	notify(log, daemon.SdNotifyStopping)
	r.Stop()
	err = r.Wait()
	decided, failed := r.Stats()
	log.Info("stopped", "decided", decided, "failed", failed)
	if err != nil {
		log.Error("driving pins idle", "err", err)
	}
	// Every decision is made: the broker gets the rest of the outbox.
	out.close()
	return r.Close()
}

// afterLoad, if set (by tests), is called by Daemon once the model is
// loaded.
var afterLoad func()

// reloadLoading and reloadLoaded, if set (by tests), are called by the
// goroutine of a reload before it reads the files and once it has sent
// what it read to the reload.
var reloadLoading, reloadLoaded func()

// daemonLoop is what Daemon's main loop works with once the run loop has
// started: the reloads, and the systemd watchdog's ticks.
type daemonLoop struct {
	configPath string
	log        *slog.Logger
	r          *Runner
	out        *outputs
	mw         *modelWatch
	// wd ticks at half the systemd watchdog interval iv; nil when the
	// watchdog is off.
	wd <-chan time.Time
	iv time.Duration
	// runDir is the runtime directory where the outcome of the reloads is
	// recorded (status), "" for none; statusFailed is set while that fails.
	runDir       string
	status       reloadStatus
	statusFailed bool
}

// startWatchdog sets d.wd ticking at half systemd's watchdog interval when
// systemd asks for pings and the configuration enables them (enabled), and
// returns the function that stops the ticker. Where systemd asks for pings
// and the configuration disables them, it tells systemd to expect none
// (WATCHDOG_USEC=0), which would otherwise kill the daemon one interval
// after start.
func (d *daemonLoop) startWatchdog(enabled bool) (stop func()) {
	iv, err := daemon.SdWatchdogEnabled(false)
	d.iv = iv
	if err != nil {
		d.log.Warn("systemd watchdog settings", "err", err)
		return func() {}
	}
	if iv <= 0 {
		return func() {}
	}
	if !enabled {
		d.log.Info("daemon.watchdog = false: told systemd to expect no watchdog pings (WatchdogSec= of the unit is off until the daemon restarts)", "watchdog_sec", iv)
		notify(d.log, "WATCHDOG_USEC=0")
		return func() {}
	}
	t := time.NewTicker(iv / 2)
	d.wd = t.C
	d.log.Debug("pinging the systemd watchdog", "every", iv/2)
	return t.Stop
}

// run waits for ctx to end or SIGTERM/SIGINT on stops, reloading on SIGHUP
// (hups) and when the model file is replaced, and pinging the watchdog.
func (d *daemonLoop) run(ctx context.Context, hups, stops <-chan os.Signal) {
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-stops:
			d.log.Info("stopping", "signal", s.String())
			return
		case <-hups:
			if !d.reload(ctx, stops, triggerSIGHUP, d.loadConfig) {
				return
			}
		case <-d.mw.fire:
			if !d.reload(ctx, stops, triggerModelFile, d.loadModel) {
				return
			}
		case <-d.wd:
			d.ping()
		}
	}
}

// The triggers of a reload, as the log and the status line say them.
const (
	triggerSIGHUP    = "SIGHUP"
	triggerModelFile = "model file changed"
)

// loaded is what the load of a reload read and checked: the reload to put in
// use, and what to do once it is (then, if not nil).
type loaded struct {
	p    *preparedReload
	then func()
}

// ping pings the systemd watchdog, unless the batch in hand has been in
// hand for longer than its daemon.batch_timeout and a watchdog interval:
// then systemd restarts the daemon.
func (d *daemonLoop) ping() {
	if b, stalled := d.r.stalled(d.iv); stalled {
		d.log.Error("one batch has been in hand for longer than daemon.batch_timeout and a watchdog interval: not pinging, so that systemd restarts the daemon", "busy", b)
		return
	}
	notify(d.log, daemon.SdNotifyWatchdog)
}

// reload tells systemd RELOADING=1, runs load (triggered by what) in the
// background while it keeps the watchdog fed, applies what load read, logs
// the outcome, tells systemd READY=1 again and records the outcome for
// setmatchd -reload (reloadstatus.go). load only reads and checks: nothing
// is in use until this loop applies it. A stop (on stops, or ctx's end)
// during the load does not wait for it: reload returns false at once, what
// the load reads is never applied, and the daemon stops with the
// configuration and model it had.
func (d *daemonLoop) reload(ctx context.Context, stops <-chan os.Signal, what string, load func() (loaded, error)) bool {
	started := monotonicNow()
	notify(d.log, daemon.SdNotifyReloading, daemon.SdNotifyMonotonicUsec())
	// Load in the background and keep the watchdog fed: reading and
	// checking a large model on a Pi can take a while.
	type result struct {
		l   loaded
		err error
	}
	done := make(chan result, 1)
	go func() {
		if reloadLoading != nil {
			reloadLoading()
		}
		l, err := load()
		// Read before the send, which orders it before the reload's end
		// (and so before a later test sets it again).
		loadedHook := reloadLoaded
		done <- result{l, err}
		if loadedHook != nil {
			loadedHook()
		}
	}()
	var res result
	givenUp := func(s os.Signal) bool {
		d.log.Info("stopping during a reload: the reload is given up", "signal", s.String(), "trigger", what)
		return false
	}
	for waiting := true; waiting; {
		select {
		case res = <-done:
			waiting = false
		case <-d.wd:
			d.ping()
		case s := <-stops:
			return givenUp(s)
		case <-ctx.Done():
			return false
		}
	}
	// A stop that came with the load's end wins: select chose between
	// them at random.
	select {
	case s := <-stops:
		return givenUp(s)
	case <-ctx.Done():
		return false
	default:
	}
	err := res.err
	if err == nil {
		err = d.r.applyReload(res.l.p)
	}
	status := "watching " + d.r.Config().Spool.Dir
	if err != nil {
		d.log.Error("reload failed: keeping the configuration and model in use", "trigger", what, "err", err)
		// A reload by the model file's change, or by a SIGHUP sent by
		// hand, has no one waiting for it: the unit's status line says
		// it too, until a reload succeeds. A status is one line.
		status = fmt.Sprintf("reload failed (%s, %s): keeping the configuration and model in use; %s", what,
			time.Now().Format(time.DateTime), strings.Join(strings.Fields(err.Error()), " "))
	} else {
		// What a reload cannot apply, or a label pin the new model
		// lacks (after setmatch forget).
		for _, w := range res.l.p.warnings {
			d.log.Warn(w)
		}
		if res.l.then != nil {
			res.l.then()
		}
		m := d.r.Model()
		d.out.setModel(m)
		d.log.Info("reloaded", "trigger", what, "model", m.Path, "model_sha256", m.ID(), "gallery_sets", len(m.Model.Sets), "threshold", d.r.ThresholdText())
		for _, w := range d.r.DecisionWarnings() {
			d.log.Warn(w)
		}
	}
	debug.FreeOSMemory()
	notify(d.log, daemon.SdNotifyReady, "STATUS="+status)
	d.recordReload(what, started, err)
	return true
}

// loadConfig reads the configuration files again and the model file they
// name, and checks them against what is in use; once applied, the model
// file they name is watched.
func (d *daemonLoop) loadConfig() (loaded, error) {
	c, err := config.Load(d.configPath)
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == d.configPath && errors.Is(pe.Err, fs.ErrNotExist) {
		// config's advice, to give -config FILE, fits a start only.
		return loaded{}, fmt.Errorf("%w: a reload reads the configuration file the daemon started with; put it back there", pe)
	}
	if err != nil {
		return loaded{}, err
	}
	p, err := d.r.prepareReload(c)
	if err != nil {
		return loaded{}, err
	}
	p.warnings = append(p.warnings, d.out.mqttFileWarnings(c.MQTT)...)
	return loaded{p: p, then: func() { d.mw.watch(c.Model) }}, nil
}

// loadModel reads the model file named by the configuration in use again.
func (d *daemonLoop) loadModel() (loaded, error) {
	p, err := d.r.prepareReload(d.r.Config())
	return loaded{p: p}, err
}

func notify(log *slog.Logger, state ...string) {
	if _, err := daemon.SdNotify(false, strings.Join(state, "\n")); err != nil {
		log.Warn("sd_notify", "err", err)
	}
}
