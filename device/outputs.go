package device

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"setmatch/config"
	"setmatch/device/journal"
	"setmatch/device/metrics"
	"setmatch/device/mqtt"
	"setmatch/model"
)

// observer is told of every decision (known, unknown or failed) by the
// Runner, after the batch's journal line was written: the journal stays the
// record of truth, what an observer does with the record comes second.
// Decided must not block; it runs on the worker that handled the batch.
type observer interface {
	Decided(rec *journal.Record)
}

// outputs are the daemon's optional outputs besides the pins and the
// journal: the MQTT publisher ([mqtt]) and the Prometheus metrics
// ([metrics]). Both are read at start only (config.ReloadOver).
type outputs struct {
	log *slog.Logger
	pub *mqtt.Publisher // nil without [mqtt]
	// mqttFiles are the password and TLS files pub read (mqtt.Files).
	mqttFiles mqtt.Files
	met       *metrics.Metrics // nil without [metrics]
	srv       *metrics.Server

	closeOnce sync.Once
}

// closeMax bounds how long a stop waits for the broker to take the
// decisions still in the outbox, and scrapes in progress to finish: with
// the runner's drain, well inside systemd's stop timeout (TimeoutStopSec).
const closeMax = 5 * time.Second

// startOutputs starts what cfg asks for: the MQTT publisher connects in
// the background (a broker that cannot be reached is logged and retried,
// not an error), the metrics server listens at once (an address that
// cannot be listened on is an error). version is shown in Home Assistant.
// On error nothing is left running.
func startOutputs(cfg *config.Config, version string, log *slog.Logger) (*outputs, error) {
	o := &outputs{log: log}
	if cfg.MQTT.Enabled() {
		po, err := mqtt.FromConfig(cfg.MQTT, version, log)
		if err != nil {
			return nil, err
		}
		if o.pub, err = mqtt.New(po); err != nil {
			return nil, err
		}
		o.mqttFiles = po.Files
	}
	if cfg.Metrics.Enabled() {
		o.met = metrics.New()
		if o.pub != nil {
			o.met.WatchMQTT(o.pub)
		}
		srv, err := o.met.Serve(cfg.Metrics.Listen, log)
		if err != nil {
			o.close()
			return nil, err
		}
		o.srv = srv
		log.Info("serving metrics", "url", "http://"+srv.Addr().String()+"/metrics")
	}
	return o, nil
}

// Decided publishes rec and counts it.
func (o *outputs) Decided(rec *journal.Record) {
	if o.met != nil {
		result := metrics.Unknown
		switch {
		case rec.Decision == model.Failed:
			result = metrics.Failed
		case rec.Known:
			result = metrics.Known
		}
		o.met.Decision(result, time.Duration(rec.LatencyMS*float64(time.Millisecond)))
	}
	if o.pub != nil {
		// The journal line's JSON (json.Marshal as journal.Append does).
		b, err := json.Marshal(rec)
		if err != nil {
			o.log.Error("mqtt: cannot encode the record (it is in the journal)", "file", rec.File, "err", err)
			return
		}
		o.pub.Publish(b)
	}
}

// setModel names the model in use in the metrics.
func (o *outputs) setModel(m *Loaded) {
	if o.met != nil {
		o.met.SetModel(m.ID(), modelMethod(m))
	}
}

// modelMethod is the method a model decides with, for the metrics' model
// info, as setmatch inspect names it (e.g. nn-h, nn-h-dr, kfda-hl).
func modelMethod(m *Loaded) string { return m.Model.MethodName() }

// watchRunner makes the metrics read the queue length and the decisions
// whose pulses were dropped from r at each scrape.
func (o *outputs) watchRunner(r *Runner) {
	if o.met != nil {
		o.met.QueueLengthFunc(r.QueueLen)
		o.met.DroppedPulsesFunc(r.sig.Dropped)
	}
}

// close delivers what the MQTT outbox holds (publishing "offline" and
// disconnecting) and stops the metrics server, each within closeMax. What
// could not be delivered is logged: the journal has it. Later calls do
// nothing.
func (o *outputs) close() { o.closeOnce.Do(o.closeNow) }

func (o *outputs) closeNow() {
	ctx, cancel := context.WithTimeout(context.Background(), closeMax)
	defer cancel()
	if o.pub != nil {
		if err := o.pub.Close(ctx); err != nil {
			o.log.Warn("mqtt closed", "err", err)
		}
	}
	if o.srv != nil {
		if err := o.srv.Shutdown(ctx); err != nil {
			o.log.Warn("metrics server shut down", "err", err)
		}
	}
}

// observe tells the Runner's observers of rec: Options.Observe, then the
// daemon's outputs.
func (r *Runner) observe(rec *journal.Record) {
	if r.opt.Observe != nil {
		r.opt.Observe(rec)
	}
	if r.obs != nil {
		r.obs.Decided(rec)
	}
}

// QueueLen returns the number of batches waiting for a worker (0 before
// Start).
func (r *Runner) QueueLen() int {
	if q := r.q; q != nil {
		return q.Len()
	}
	return 0
}

// mqttFileWarnings says, for a reload to c, that the publisher keeps
// what it read at start of a password or TLS file rewritten in place
// since (mqtt.Files.Changed): none without [mqtt].
func (o *outputs) mqttFileWarnings(c config.MQTT) []string {
	if o == nil || o.pub == nil {
		return nil
	}
	if keys := o.mqttFiles.Changed(c); len(keys) > 0 {
		return []string{"[mqtt] " + strings.Join(keys, ", ") + ": the file holds other bytes than at start, or can no longer be read, and the publisher keeps what it read then (its login and TLS): restart setmatchd to apply"}
	}
	return nil
}
