package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"setmatch/device/metrics/metricstest"
	"setmatch/internal/testutil"
)

// value returns the value of the series of family name whose labels
// include want (name=value pairs), failing the test if there is none.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	t.Helper()
	v, ok := metricstest.Value(fams, name, want...)
	if !ok {
		t.Fatalf("no series %s%v", name, want)
	}
	return v
}

// fakeMQTT stands in for the MQTT publisher.
var _ MQTT = (*fakeMQTT)(nil)

type fakeMQTT struct {
	connected atomic.Bool
	outbox    atomic.Int64
	dropped   atomic.Uint64
}

func (f *fakeMQTT) Connected() bool   { return f.connected.Load() }
func (f *fakeMQTT) OutboxLen() int    { return int(f.outbox.Load()) }
func (f *fakeMQTT) Dropped() uint64   { return f.dropped.Load() }
func (f *fakeMQTT) Published() uint64 { return 42 }

func TestScrape(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := New()
	s, err := m.Serve("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := "http://" + s.Addr().String() + "/metrics"

	// Before any batch: every result at 0, no MQTT metrics.
	fams, body := metricstest.Scrape(ctx, t, url)
	for _, r := range []string{Known, Unknown, Failed} {
		if v := value(t, fams, "setmatch_batches_total", "result", r); v != 0 {
			t.Errorf("batches_total{result=%q} = %v at start", r, v)
		}
	}
	if strings.Contains(body, "setmatch_mqtt_") {
		t.Error("mqtt metrics without WatchMQTT")
	}
	if v := value(t, fams, "setmatch_gpio_dropped_total"); v != 0 {
		t.Errorf("gpio_dropped_total = %v at start", v)
	}
	if _, ok := fams["go_goroutines"]; !ok {
		t.Error("no Go runtime metrics")
	}

	for range 5 {
		m.Decision(Known, 30*time.Millisecond)
	}
	m.Decision(Unknown, 2*time.Second)
	m.Decision(Failed, -time.Second) // counted, latency not observed
	m.SetQueueLength(3)
	m.SetModel("0123456789abcdef", "hellinger")
	m.SetModel("5ef56d93ea4f8991", "jeffrey")
	mq := new(fakeMQTT)
	m.WatchMQTT(mq)
	mq.outbox.Store(7)
	mq.dropped.Store(2)
	m.DroppedPulsesFunc(func() uint64 { return 13 })

	fams, body = metricstest.Scrape(ctx, t, url)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"setmatch_batches_total", []string{"result", "known"}, 5},
		{"setmatch_batches_total", []string{"result", "unknown"}, 1},
		{"setmatch_batches_total", []string{"result", "failed"}, 1},
		{"setmatch_decision_latency_seconds", nil, 6},
		{"setmatch_queue_length", nil, 3},
		{"setmatch_model_info", []string{"sha256", "5ef56d93ea4f8991", "method", "jeffrey"}, 1},
		{"setmatch_gpio_dropped_total", nil, 13},
		{"setmatch_mqtt_connected", nil, 0},
		{"setmatch_mqtt_outbox_length", nil, 7},
		{"setmatch_mqtt_dropped_total", nil, 2},
		{"setmatch_mqtt_published_total", nil, 42},
	} {
		if v := value(t, fams, c.name, c.labels...); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
	if n := len(fams["setmatch_model_info"].Metric); n != 1 {
		t.Errorf("%d model_info series, want 1 (the old model's must go)", n)
	}
	// 5 × 30 ms fall in the 0.05 bucket, 2 s in the 2.5 bucket.
	for _, w := range []string{
		`setmatch_decision_latency_seconds_bucket{le="0.025"} 0`,
		`setmatch_decision_latency_seconds_bucket{le="0.05"} 5`,
		`setmatch_decision_latency_seconds_bucket{le="1"} 5`,
		`setmatch_decision_latency_seconds_bucket{le="2.5"} 6`,
		`setmatch_decision_latency_seconds_sum 2.15`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("scrape lacks %q", w)
		}
	}
	mq.connected.Store(true)
	fams, _ = metricstest.Scrape(ctx, t, url)
	if v := value(t, fams, "setmatch_mqtt_connected"); v != 1 {
		t.Errorf("mqtt_connected = %v after connecting", v)
	}
	// Read at each scrape once a function is given.
	var waiting atomic.Int64
	waiting.Store(11)
	m.QueueLengthFunc(func() int { return int(waiting.Load()) })
	fams, _ = metricstest.Scrape(ctx, t, url)
	if v := value(t, fams, "setmatch_queue_length"); v != 11 {
		t.Errorf("queue_length = %v with QueueLengthFunc, want 11", v)
	}
	waiting.Store(4)
	fams, _ = metricstest.Scrape(ctx, t, url)
	if v := value(t, fams, "setmatch_queue_length"); v != 4 {
		t.Errorf("queue_length = %v after the queue changed, want 4", v)
	}

	// Other paths: 404.
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.Addr().String()+"/", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 404 {
		t.Errorf("GET /: %v %v, want 404", resp.Status, err)
	} else {
		resp.Body.Close()
	}

	// /metrics answers GET (and HEAD) only.
	req, _ = http.NewRequestWithContext(ctx, "POST", url, strings.NewReader("x"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %v %v, want 405", resp.Status, err)
	} else {
		resp.Body.Close()
	}

	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("still serving after Shutdown")
	}
}

func TestServeAddressInUse(t *testing.T) {
	m := New()
	s, err := m.Serve("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = New().Serve(s.Addr().String(), nil)
	if err == nil || !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), "metrics.listen") {
		t.Errorf("second Serve on %s: %v, want address in use and the key to change", s.Addr(), err)
	}
}

// TestOwnRegistry: two Metrics do not share counters (and nothing goes to
// the global registry).
func TestOwnRegistry(t *testing.T) {
	a, b := New(), New()
	a.Decision(Known, time.Millisecond)
	fb, err := b.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fb {
		if f.GetName() == "setmatch_batches_total" {
			for _, m := range f.Metric {
				if m.Counter.GetValue() != 0 {
					t.Errorf("b counted a's decision")
				}
			}
		}
	}
}

// TestServeBoundsConnections: however many clients connect, the server
// holds at most MaxConns connections; the others wait in the kernel's
// queue and are served as those close. Without the bound each took a
// file descriptor, and a few hundred took every one the unit allows
// (LimitNOFILE): the daemon could then claim no batch and write no
// journal line.
func TestServeBoundsConnections(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := New().Serve("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const clients = 3 * MaxConns
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range clients {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		// A whole request, and the connection kept open afterwards, as a
		// client that keeps it alive.
		fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	// Every connection is read at once. Those the server holds answer,
	// however slow the machine; the others wait in the kernel's queue and
	// cannot, while none closes. Once MaxConns have answered, a moment more
	// lets any beyond the bound show.
	answered := make(chan bool, clients)
	for _, c := range conns {
		go func() {
			c.SetReadDeadline(time.Now().Add(15 * time.Second))
			b := make([]byte, 9)
			n, _ := io.ReadFull(c, b)
			answered <- n == len(b) && string(b) == "HTTP/1.1 " // 200, or 503 beyond the scrapes in flight
		}()
	}
	var n int
	var more <-chan time.Time
count:
	for range clients {
		select {
		case ok := <-answered:
			if ok {
				if n++; n == MaxConns {
					more = time.After(300 * time.Millisecond)
				}
			}
		case <-more:
			break count
		}
	}
	for _, c := range conns {
		c.SetReadDeadline(time.Now()) // the reads of those still queued end
	}
	if n != MaxConns {
		t.Errorf("%d of %d connections answered at once, want %d", n, clients, MaxConns)
	}
	// Once those close, a new client is served (the requests of those
	// queued are served too, and may take the two scrapes in flight a
	// moment).
	for _, c := range conns[:clients-1] {
		c.Close()
	}
	testutil.WaitForCtx(t, ctx, "a scrape after the connections closed", func() bool {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.Addr().String()+"/metrics", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// TestServeAddressNotYetAssigned: metrics.listen on an address this
// machine does not have yet (the Pi's LAN address while DHCP has not
// given it, at boot) is listened on all the same, with a warning, and
// served once the address comes; it was an error that stopped the daemon
// at start, and systemd gave up after five such starts within a minute.
func TestServeAddressNotYetAssigned(t *testing.T) {
	log := new(testutil.LockedBuffer)
	s, err := New().Serve("192.0.2.1:0", slog.New(slog.NewTextHandler(log, nil))) // TEST-NET-1: no machine's
	if err != nil {
		t.Fatalf("Serve on an address not yet assigned: %v", err)
	}
	defer s.Close()
	if l := log.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "not an address of this machine") || !strings.Contains(l, "metrics.listen") {
		t.Errorf("no warning that the address is not this machine's:\n%s", l)
	}
}

// TestServeLoopbackIsLocal: any loopback address (127.0.0.2 as well as
// 127.0.0.1) is this machine's: no warning that it is not.
func TestServeLoopbackIsLocal(t *testing.T) {
	log := new(testutil.LockedBuffer)
	s, err := New().Serve("127.0.0.2:0", slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l := log.String(); strings.Contains(l, "not an address of this machine") {
		t.Errorf("a loopback address taken for another machine's:\n%s", l)
	}
}

// TestShutdownClosesWhatIsLeft: a scrape still in progress when
// Shutdown's context ends has its connection closed, rather than left to
// its handler (which the stopping daemon would otherwise wait on, up to
// the handler's own timeout).
func TestShutdownClosesWhatIsLeft(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := New()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	m.QueueLengthFunc(func() int {
		once.Do(func() { close(entered) })
		<-release
		return 0
	})
	defer close(release)
	s, err := m.Serve("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan string, 1) // how the scrape ended
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.Addr().String()+"/metrics", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- "" // the connection was closed
			return
		}
		resp.Body.Close()
		done <- "answered " + resp.Status
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the scrape never started")
	}
	sctx, scancel := context.WithCancel(ctx)
	scancel() // the wait for scrapes in progress is over at once
	if err := s.Shutdown(sctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown = %v, want context.Canceled", err)
	}
	select {
	case got := <-done:
		if got != "" {
			t.Errorf("the scrape in progress %s, want its connection closed", got)
		}
	case <-ctx.Done():
		t.Fatal("the scrape in progress was not ended")
	}
}

// TestServeDropsSilentClients: a client that connects and sends nothing is
// disconnected once the headers are overdue, so that MaxConns such
// clients cannot hold every connection the server has and stop the
// scrapes.
func TestServeDropsSilentClients(t *testing.T) {
	defer func(d time.Duration) { readHeaderTimeout = d }(readHeaderTimeout)
	readHeaderTimeout = 50 * time.Millisecond
	s, err := New().Serve("127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The server closes the connection (EOF, or an HTTP 408 first); a
	// server that waits for ever leaves the read to its deadline.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("a client that sent nothing still held its connection after 10 s (the headers were due after %v)", readHeaderTimeout)
	}
}
