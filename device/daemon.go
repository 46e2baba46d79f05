package device

import (
	"context"
	"io"
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
	// start-up is not fatal.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	cfg, err := config.Load(opt.ConfigPath)
	if err != nil {
		return err
	}
	log := newLogger(cfg.Log, opt.Stderr)
	r, err := New(Options{Config: cfg, Log: log})
	if err != nil {
		return err
	}
	defer r.Close()
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

	// The model file's bytes and the decoding's temporaries are garbage now:
	// give them back to the system rather than carry them as resident memory.
	debug.FreeOSMemory()

	mw := newModelWatch(log)
	defer mw.close()
	mw.watch(cfg.Model)

	if err := r.Start(ctx); err != nil {
		return err
	}
	out.watchQueue(r)
	notify(log, daemon.SdNotifyReady, "STATUS=watching "+cfg.Spool.Dir)

	var wd <-chan time.Time
	iv, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		log.Warn("systemd watchdog settings", "err", err)
	} else if iv > 0 && cfg.Daemon.Watchdog {
		t := time.NewTicker(iv / 2)
		defer t.Stop()
		wd = t.C
		log.Debug("pinging the systemd watchdog", "every", iv/2)
	}

	reload := func(what string, load func() error) {
		notify(log, daemon.SdNotifyReloading, daemon.SdNotifyMonotonicUsec())
		// Load in the background and keep the watchdog fed: reading and
		// checking a large model on a Pi can take a while.
		done := make(chan error, 1)
		go func() { done <- load() }()
		var err error
		for waiting := true; waiting; {
			select {
			case err = <-done:
				waiting = false
			case <-wd:
				notify(log, daemon.SdNotifyWatchdog)
			}
		}
		if err != nil {
			log.Error("reload failed: keeping the configuration and model in use", "trigger", what, "err", err)
		} else {
			m := r.Model()
			out.setModel(m)
			log.Info("reloaded", "trigger", what, "model", m.Path, "model_sha256", m.ID(), "gallery_sets", len(m.Model.Sets))
		}
		debug.FreeOSMemory()
		notify(log, daemon.SdNotifyReady, "STATUS=watching "+r.Config().Spool.Dir)
	}

loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case s := <-sigs:
			if s != syscall.SIGHUP {
				log.Info("stopping", "signal", s.String())
				break loop
			}
			reload("SIGHUP", func() error {
				c, err := config.Load(opt.ConfigPath)
				if err != nil {
					return err
				}
				warns, err := r.Reload(c)
				for _, w := range warns {
					log.Warn(w)
				}
				if err == nil {
					mw.watch(c.Model)
				}
				return err
			})
		case <-mw.fire:
			reload("model file changed", r.ReloadModel)
		case <-wd:
			if b := r.Busy(); b > r.stallAfter(iv) {
				log.Error("one batch has been in hand for longer than daemon.batch_timeout and a watchdog interval: not pinging, so that systemd restarts the daemon", "busy", b)
				continue
			}
			notify(log, daemon.SdNotifyWatchdog)
		}
	}
	notify(log, daemon.SdNotifyStopping)
	r.Stop()
	err = r.Wait()
	h, f := r.Stats()
	log.Info("stopped", "handled", h, "failed", f)
	if err != nil {
		log.Error("driving pins idle", "err", err)
	}
	// Every decision is made: the broker gets the rest of the outbox.
	out.close()
	return r.Close()
}

func notify(log *slog.Logger, state ...string) {
	if _, err := daemon.SdNotify(false, strings.Join(state, "\n")); err != nil {
		log.Warn("sd_notify", "err", err)
	}
}
