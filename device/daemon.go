package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/fsnotify/fsnotify"

	"setmatch/config"
)

// NewLogger returns the slog logger the configuration asks for, writing to w
// (standard error: journald adds timestamps when JOURNAL_STREAM is set).
func NewLogger(c config.Log, w io.Writer) *slog.Logger {
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

// Check validates the configuration at path and the model it names, looks up
// the GPIO lines (without driving them) and writes a summary to w. It is
// setmatchd -check.
func Check(path string, w io.Writer) error {
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	fmt.Fprint(w, cfg.String())
	m, err := LoadModel(cfg.Model, cfg.Daemon.Workers)
	if err != nil {
		return err
	}
	if err := checkLabels(cfg, m); err != nil {
		return err
	}
	mm := m.Model
	th := "none (closed set)"
	if t := cfg.Decision.ThresholdOr(mm.Threshold); !isInf(t) {
		th = fmt.Sprintf("%.6g", t)
	}
	fmt.Fprintf(w, "model:    %s: %d gallery sets, %d labels, D=%d -> d=%d, %s, threshold %s, sha256 %s\n",
		m.Path, len(mm.Sets), len(mm.Classes()), mm.InputDim(), mm.Dim(), mm.Divergence, th, m.SHA256)
	if cfg.GPIO.Backend == "periph" {
		drv, err := OpenDriver(cfg.GPIO.Backend, cfg.GPIO.Chip, nil)
		if err != nil {
			return err
		}
		defer drv.Close()
		for _, p := range cfg.GPIO.Pins() {
			if _, err := drv.Open(p.Name); err != nil {
				return fmt.Errorf("%s: %w", p.Key, err)
			}
		}
		fmt.Fprintf(w, "gpio:     all %d lines found\n", len(cfg.GPIO.Pins()))
	} else if _, err := OpenDriver(cfg.GPIO.Backend, cfg.GPIO.Chip, nil); err != nil {
		return err
	}
	fmt.Fprintln(w, "ok")
	return nil
}

func isInf(v float64) bool { return v > 1e308 }

// DaemonOptions configures Daemon.
type DaemonOptions struct {
	ConfigPath string
	Stderr     io.Writer
	// Driver replaces the configured GPIO backend (tests).
	Driver Driver
}

// ModelReloadDelay is how long the model file must stay quiet after a change
// before it is read again: writers that replace it in place (cp) produce
// several events.
const ModelReloadDelay = 300 * time.Millisecond

// Daemon runs setmatchd until ctx ends or SIGTERM/SIGINT arrives: it loads
// the configuration and model, starts the run loop, tells systemd READY=1,
// reloads on SIGHUP and when the model file is replaced, pings the watchdog
// from this loop, and on the way out finishes the batch in hand, drives the
// pins idle and tells systemd STOPPING=1. It returns nil after a clean stop.
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
	log := NewLogger(cfg.Log, opt.Stderr)
	r, err := New(Options{Config: cfg, Log: log, Driver: opt.Driver})
	if err != nil {
		return err
	}
	defer r.Close()
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
			if b := r.Busy(); b > iv {
				log.Error("one batch has been in hand for longer than the watchdog interval: not pinging, so that systemd restarts the daemon", "busy", b)
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
	return r.Close()
}

func notify(log *slog.Logger, state ...string) {
	if _, err := daemon.SdNotify(false, strings.Join(state, "\n")); err != nil {
		log.Warn("sd_notify", "err", err)
	}
}

// modelWatch watches the directory of the model file (the file itself is
// replaced by rename, which would end a watch on it) and fires, after
// ModelReloadDelay of quiet, when an entry of that name is created, renamed
// in or written.
type modelWatch struct {
	log   *slog.Logger
	fw    *fsnotify.Watcher
	path  string
	dir   string
	fire  chan struct{}
	set   chan string
	done  chan struct{} // closed by close
	ended chan struct{} // closed when loop returns
}

func newModelWatch(log *slog.Logger) *modelWatch {
	mw := &modelWatch{log: log, fire: make(chan struct{}, 1), set: make(chan string),
		done: make(chan struct{}), ended: make(chan struct{})}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		log.Warn("cannot watch the model file: reload with SIGHUP", "err", err)
		return mw
	}
	mw.fw = fw
	go mw.loop()
	return mw
}

// watch switches the watch to the directory of path.
func (mw *modelWatch) watch(path string) {
	if mw.fw == nil {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	select {
	case mw.set <- abs:
	case <-mw.done:
	case <-mw.ended:
	}
}

func (mw *modelWatch) loop() {
	defer close(mw.ended)
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case <-mw.done:
			t.Stop()
			return
		case p := <-mw.set:
			if d := filepath.Dir(p); d != mw.dir {
				if mw.dir != "" {
					mw.fw.Remove(mw.dir)
				}
				if err := mw.fw.Add(d); err != nil {
					mw.log.Warn("cannot watch the model's directory: reload with SIGHUP", "dir", d, "err", err)
				}
				mw.dir = d
			}
			mw.path = p
		case ev, ok := <-mw.fw.Events:
			if !ok {
				return
			}
			if ev.Name == mw.path && ev.Has(fsnotify.Create|fsnotify.Write) {
				t.Reset(ModelReloadDelay)
			}
		case err, ok := <-mw.fw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				t.Reset(ModelReloadDelay)
			} else {
				mw.log.Warn("model watch", "err", err)
			}
		case <-t.C:
			poke(mw.fire)
		}
	}
}

func (mw *modelWatch) close() {
	if mw.fw == nil {
		return
	}
	close(mw.done)
	mw.fw.Close()
}
