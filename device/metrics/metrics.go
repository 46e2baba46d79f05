// Package metrics exposes setmatchd's counters in the Prometheus text
// format, with the official client library and a registry of its own.
//
//	setmatch_batches_total{result="known|unknown|failed"}  counter
//	setmatch_decision_latency_seconds                       histogram, arrival in new/ to decision
//	setmatch_queue_length                                   gauge, batches waiting
//	setmatch_model_info{sha256="…",method="…"}              gauge, 1 for the model in use
//	setmatch_gpio_dropped_total                             counter, decisions whose GPIO pulses were dropped
//	setmatch_mqtt_connected                                 gauge, 1 while connected (with MQTT only)
//	setmatch_mqtt_outbox_length                             gauge, decisions waiting for the broker
//	setmatch_mqtt_dropped_total                             counter, decisions dropped from the outbox
//	setmatch_mqtt_published_total                           counter, decisions the broker acknowledged
//
// plus the Go runtime's go_* and the process's process_* metrics.
//
// Serve serves them over HTTP on /metrics (server.go), at most MaxConns
// connections at a time, on an address the machine may not have yet
// (IP_FREEBIND on Linux, freebind_linux.go).
package metrics

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Results of a batch, the values of the result label.
const (
	Known   = "known"   // matched a gallery label
	Unknown = "unknown" // rejected by the open-set threshold
	Failed  = "failed"  // could not be decided (bad file, too few frames, …)
)

// LatencyBuckets are the upper bounds, in seconds, of the latency
// histogram's buckets: from 5 ms (a small gallery on a fast machine) to 30 s
// (a long queue on a Pi).
var LatencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Metrics holds the daemon's metrics. Its methods are safe for concurrent
// use.
type Metrics struct {
	reg       *prometheus.Registry
	batches   *prometheus.CounterVec
	latency   prometheus.Histogram
	modelInfo *prometheus.GaugeVec

	queueLen atomic.Int64                  // set by SetQueueLength
	queueFn  atomic.Pointer[func() int]    // set by QueueLengthFunc, read at each scrape
	dropFn   atomic.Pointer[func() uint64] // set by DroppedPulsesFunc, read at each scrape
}

// New returns the metrics, every counter at zero, registered on a registry
// of their own.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setmatch_batches_total",
			Help: "Batches handled, by result: known (matched a label), unknown (open-set rejection), failed.",
		}, []string{"result"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "setmatch_decision_latency_seconds",
			Help:    "Time from a batch's arrival in new/ (its rename) to its decision, queueing included.",
			Buckets: LatencyBuckets,
		}),
		modelInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "setmatch_model_info",
			Help: "The model in use (value 1): the first 16 hex digits of its file's SHA-256 and its method.",
		}, []string{"sha256", "method"}),
	}
	for _, r := range []string{Known, Unknown, Failed} {
		m.batches.WithLabelValues(r) // present at 0 from the start
	}
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "setmatch_queue_length",
		Help: "Batches waiting to be handled.",
	}, m.queueLength)
	dropped := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "setmatch_gpio_dropped_total",
		Help: "Decisions whose GPIO pulses were dropped: a line of theirs had its backlog of decisions waiting, batches coming faster than its pulses end (the journal has them).",
	}, m.droppedPulses)
	m.reg.MustRegister(m.batches, m.latency, queue, m.modelInfo, dropped,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry, for tests and further collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Decision counts one handled batch: result is Known, Unknown or Failed;
// latency is the time from its arrival to its decision (not observed when
// negative, e.g. an arrival time from a clock that was set back).
func (m *Metrics) Decision(result string, latency time.Duration) {
	m.batches.WithLabelValues(result).Inc()
	if latency >= 0 {
		m.latency.Observe(latency.Seconds())
	}
}

// SetQueueLength sets the number of batches waiting (until QueueLengthFunc
// is called).
func (m *Metrics) SetQueueLength(n int) { m.queueLen.Store(int64(n)) }

// QueueLengthFunc makes every scrape read the number of batches waiting
// from f, so that the gauge is current also while one batch takes long.
// It may be called while the metrics are served.
func (m *Metrics) QueueLengthFunc(f func() int) { m.queueFn.Store(&f) }

func (m *Metrics) queueLength() float64 {
	if f := m.queueFn.Load(); f != nil {
		return float64((*f)())
	}
	return float64(m.queueLen.Load())
}

// DroppedPulsesFunc makes every scrape read the number of decisions whose
// GPIO pulses were dropped from f (0 until it is called). It may be called
// while the metrics are served.
func (m *Metrics) DroppedPulsesFunc(f func() uint64) { m.dropFn.Store(&f) }

func (m *Metrics) droppedPulses() float64 {
	if f := m.dropFn.Load(); f != nil {
		return float64((*f)())
	}
	return 0
}

// SetModel names the model in use; the previous one's series goes away.
func (m *Metrics) SetModel(sha256, method string) {
	m.modelInfo.Reset()
	m.modelInfo.WithLabelValues(sha256, method).Set(1)
}

// MQTT is what the metrics read from the MQTT publisher at each scrape;
// *mqtt.Publisher implements it.
type MQTT interface {
	Connected() bool
	OutboxLen() int
	Dropped() uint64
	Published() uint64
}

// WatchMQTT adds the setmatch_mqtt_* metrics, read from p at each scrape.
// Call it once, only when MQTT is configured.
func (m *Metrics) WatchMQTT(p MQTT) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "setmatch_mqtt_connected",
			Help: "1 while connected to the MQTT broker, else 0.",
		}, func() float64 {
			if p.Connected() {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "setmatch_mqtt_outbox_length",
			Help: "Decisions waiting for the MQTT broker.",
		}, func() float64 { return float64(p.OutboxLen()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "setmatch_mqtt_dropped_total",
			Help: "Decisions dropped from the MQTT outbox: the oldest when it is full, and one the connection was lost at each send of (the journal has them).",
		}, func() float64 { return float64(p.Dropped()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "setmatch_mqtt_published_total",
			Help: "Decisions the MQTT broker acknowledged (one sent again after a lost acknowledgement counts again).",
		}, func() float64 { return float64(p.Published()) }),
	)
}
