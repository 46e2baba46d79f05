package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"setmatch/device/devicetest"
	"setmatch/device/journal"
	"setmatch/device/metrics/metricstest"
	"setmatch/device/mqtt/mqtttest"
	"setmatch/device/spool"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// The daemon's MQTT and metrics outputs, end to end: the real setmatchd
// against Debian's mosquitto (device/mqtt/mqtttest: a broker of the test's
// own on the host, those of scripts/mosquitto-test.sh under qemu-user),
// and its metrics endpoint over HTTP.

// outputsConfig is the [mqtt] (and, with a metrics address, [metrics])
// configuration of a test; the client id is the test's own, so that two
// daemons never share one on a broker.
func outputsConfig(t *testing.T, broker, topic, metricsAddr, extraMQTT string) string {
	id := "setmatchd-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	s := fmt.Sprintf("\n[mqtt]\nbroker = %q\ntopic = %q\nclient_id = %q\n%s", broker, topic, id, extraMQTT)
	if metricsAddr != "" {
		s += fmt.Sprintf("\n[metrics]\nlisten = %q\n", metricsAddr)
	}
	return s
}

// journalLines returns the journal's lines by file (the last line of each).
func journalLines(t *testing.T, path string) map[string]string {
	t.Helper()
	recs, lines := devicetest.ReadJournalLines(t, path)
	out := map[string]string{}
	for i, r := range recs {
		out[r.File] = lines[i]
	}
	return out
}

// decisionFiles returns the files named by decision messages, in order.
func decisionFiles(t *testing.T, msgs []mqtttest.Message) []string {
	t.Helper()
	var files []string
	for _, m := range msgs {
		var r journal.Record
		if err := json.Unmarshal([]byte(m.Payload), &r); err != nil {
			t.Fatalf("decision message %q is not a journal record: %v", m.Payload, err)
		}
		files = append(files, r.File)
	}
	return files
}

// distinct counts the distinct strings of s.
func distinct(s []string) int {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return len(m)
}

// TestDaemonMQTTAndMetrics: N batches (known, unknown and one malformed)
// give N messages on setmatch/decision, each the batch's journal line;
// the metrics endpoint counts what the journal holds; on stop the daemon
// publishes "offline".
func TestDaemonMQTTAndMetrics(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	b := mqtttest.New(ctx, t, false)
	maddr := testutil.FreeAddr(t)
	f := devicetest.NewFixture(t, outputsConfig(t, b.URL, "setmatch", maddr, ""))
	sub := mqtttest.Subscribe(ctx, t, b.URL, "", "", "setmatch/decision")
	avail := mqtttest.Subscribe(ctx, t, b.URL, "", "", "setmatch/availability")
	p := startDaemon(t, ctx, f)

	rng := rand.New(rand.NewPCG(31, 32))
	labels := []string{"alice", "bob", "stranger", "carol", "alice", "stranger", "bob", "carol", "alice", "bob"}
	for i, l := range labels {
		f.Drop(t, fmt.Sprintf("m%02d.npy", i), devicetest.Batch(rng, l))
	}
	os.WriteFile(filepath.Join(f.Spool, spool.DirTmp, "broken.csv"), []byte("1,2\n3,x\n"), 0o644)
	os.Rename(filepath.Join(f.Spool, spool.DirTmp, "broken.csv"), filepath.Join(f.Spool, spool.DirNew, "broken.csv"))
	n := len(labels) + 1
	testutil.WaitForCtx(t, ctx, fmt.Sprintf("%d messages on setmatch/decision", n), func() bool { return len(sub.On("setmatch/decision")) >= n })
	testutil.WaitForCtx(t, ctx, "online on setmatch/availability", func() bool {
		a := avail.On("setmatch/availability")
		return len(a) > 0 && a[len(a)-1].Payload == "online"
	})

	// Each message is its batch's journal line, made before it.
	lines := journalLines(t, f.Journal)
	msgs := sub.On("setmatch/decision")
	if len(msgs) != n || len(lines) != n {
		t.Errorf("%d messages and %d journal lines for %d batches", len(msgs), len(lines), n)
	}
	for i, m := range msgs {
		var r journal.Record
		if err := json.Unmarshal([]byte(m.Payload), &r); err != nil {
			t.Fatalf("message %q: %v", m.Payload, err)
		}
		if m.Payload != lines[r.File] {
			t.Errorf("message %d is not the journal line of %s:\n got %s\nwant %s", i, r.File, m.Payload, lines[r.File])
		}
		want := "failed"
		if r.File != "broken.csv" {
			var k int
			fmt.Sscanf(r.File, "m%02d.npy", &k)
			want = devicetest.Expected(labels[k])
		}
		if r.Decision != want {
			t.Errorf("%s: decision %q in the message, want %q", r.File, r.Decision, want)
		}
	}

	// The metrics count what the journal holds.
	count := map[string]float64{}
	var model string
	for _, r := range devicetest.ReadJournal(t, f.Journal) {
		switch {
		case r.Decision == "failed":
			count["failed"]++
		case r.Known:
			count["known"]++
		default:
			count["unknown"]++
		}
		model = r.Model
	}
	if count["known"] == 0 || count["unknown"] == 0 || count["failed"] != 1 {
		t.Errorf("journal counts %v: want every result", count)
	}
	fams, _ := metricstest.Scrape(ctx, t, "http://"+maddr+"/metrics")
	for _, res := range []string{"known", "unknown", "failed"} {
		if v, ok := metricstest.Value(fams, "setmatch_batches_total", "result", res); !ok || v != count[res] {
			t.Errorf("setmatch_batches_total{result=%q} = %v (present %v), the journal has %v", res, v, ok, count[res])
		}
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"setmatch_decision_latency_seconds", nil, float64(n)},
		{"setmatch_queue_length", nil, 0},
		{"setmatch_model_info", []string{"sha256", model}, 1},
		{"setmatch_mqtt_connected", nil, 1},
		{"setmatch_mqtt_outbox_length", nil, 0},
		{"setmatch_mqtt_dropped_total", nil, 0},
		{"setmatch_mqtt_published_total", nil, float64(n)},
	} {
		if v, ok := metricstest.Value(fams, c.name, c.labels...); !ok || v != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, v, ok, c.want)
		}
	}

	p.stop()
	testutil.WaitForCtx(t, ctx, "offline on setmatch/availability", func() bool {
		a := avail.On("setmatch/availability")
		return len(a) > 0 && a[len(a)-1].Payload == "offline"
	})
	if _, err := net.DialTimeout("tcp", maddr, time.Second); err == nil {
		t.Errorf("metrics still served at %s after the daemon stopped", maddr)
	}
}

// TestDaemonMQTTBrokerRestart: the broker is killed mid-stream and
// started again; the daemon goes on deciding and journaling meanwhile, and
// every decision reaches a subscriber (QoS 1 and the outbox). The daemon
// reaches the broker through a gate, closed while the broker is down and
// opened once the new subscriber is in place, so that no message can pass
// before it subscribed.
func TestDaemonMQTTBrokerRestart(t *testing.T) {
	if testexec.Emulated() {
		t.Skip("an emulated test binary cannot start and kill mosquitto (golang/go#69259); TestOutage in device/mqtt covers outages through a gate")
	}
	ctx := testContext(t, e2eBudget)
	b := mqtttest.Start(ctx, t, false)
	g := mqtttest.NewGate(t, b.Addr)
	// A short keepalive: the daemon notices the dead broker within seconds.
	f := devicetest.NewFixture(t, outputsConfig(t, g.URL(), "setmatch", "", "keepalive = \"2s\"\n"))
	sub1 := mqtttest.Subscribe(ctx, t, b.URL, "", "", "setmatch/decision")
	p := startDaemon(t, ctx, f)
	rng := rand.New(rand.NewPCG(33, 34))
	const third = 10
	drop := func(from int) {
		for i := from; i < from+third; i++ {
			f.Drop(t, fmt.Sprintf("r%02d.npy", i), devicetest.Batch(rng, []string{"alice", "bob", "stranger"}[i%3]))
		}
	}
	done := filepath.Join(f.Spool, spool.DirDone)
	drop(0)
	testutil.WaitForCtx(t, ctx, "the first third on the decision topic", func() bool { return len(sub1.On("setmatch/decision")) >= third })

	b.Kill()
	g.Cut()
	drop(third)
	testutil.WaitForCtx(t, ctx, "the second third decided while the broker is down", func() bool { return len(testutil.Names(t, done)) == 2*third })
	testutil.WaitForCtx(t, ctx, "the lost connection in the log", func() bool { return strings.Contains(p.stderr.String(), "mqtt connect failed") })

	if err := b.Restart(ctx); err != nil {
		t.Fatalf("restarting mosquitto: %v\n%s", err, b.Log())
	}
	sub2 := mqtttest.Subscribe(ctx, t, b.URL, "", "", "setmatch/decision")
	g.Reopen()
	drop(2 * third)
	got := func() []string {
		return append(decisionFiles(t, sub1.On("setmatch/decision")), decisionFiles(t, sub2.On("setmatch/decision"))...)
	}
	testutil.WaitForCtx(t, ctx, "every decision on the decision topic", func() bool { return distinct(got()) == 3*third })
	p.stop()

	if n := len(devicetest.ReadJournal(t, f.Journal)); n != 3*third {
		t.Errorf("journal has %d lines, want %d", n, 3*third)
	}
	if !strings.Contains(p.stderr.String(), "mqtt connected again") {
		t.Errorf("no reconnection in the log:\n%s", p.stderr)
	}
	t.Logf("%d messages for %d decisions (at least once)", len(got()), 3*third)
}

// TestDaemonMQTTWrongPassword: a broker that refuses the login gives a
// clear error in the log; the daemon keeps deciding and journaling, and
// says on stop what it could not deliver.
func TestDaemonMQTTWrongPassword(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	b := mqtttest.New(ctx, t, true)
	pw := filepath.Join(t.TempDir(), "mqtt-password")
	if err := os.WriteFile(pw, []byte("wrong-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	maddr := testutil.FreeAddr(t)
	f := devicetest.NewFixture(t, outputsConfig(t, b.URL, "setmatch", maddr,
		fmt.Sprintf("username = %q\npassword_file = %q\n", mqtttest.User, pw)))
	p := startDaemon(t, ctx, f)
	testutil.WaitForCtx(t, ctx, "the refused login in the log", func() bool { return strings.Contains(p.stderr.String(), "the broker refused the login") })
	for _, want := range []string{"level=ERROR", "check mqtt.username", mqtttest.User, "mqtt.password_file"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, p.stderr)
		}
	}
	rng := rand.New(rand.NewPCG(35, 36))
	for i := range 5 {
		f.Drop(t, fmt.Sprintf("w%d.npy", i), devicetest.Batch(rng, "alice"))
	}
	done := filepath.Join(f.Spool, spool.DirDone)
	testutil.WaitForCtx(t, ctx, "five batches decided without the broker", func() bool { return len(testutil.Names(t, done)) == 5 })
	// The outputs hear of a batch after it is in done/: the outbox may be
	// a decision short at first, and must reach five (and stay there,
	// checked on stop below).
	var fams map[string]*dto.MetricFamily
	last := -1.0
	testutil.WaitForCtx(t, ctx, "five decisions in the MQTT outbox", func() bool {
		fams, _ = metricstest.Scrape(ctx, t, "http://"+maddr+"/metrics")
		v, _ := metricstest.Value(fams, "setmatch_mqtt_outbox_length")
		if v != last {
			t.Logf("setmatch_mqtt_outbox_length = %v", v) // shown if the wait fails
			last = v
		}
		return v == 5
	})
	if v, ok := metricstest.Value(fams, "setmatch_mqtt_connected"); !ok || v != 0 {
		t.Errorf("setmatch_mqtt_connected = %v (present %v), want 0", v, ok)
	}
	p.stop()
	recs := devicetest.ReadJournal(t, f.Journal)
	if len(recs) != 5 {
		t.Errorf("journal has %d lines, want 5", len(recs))
	}
	for _, r := range recs {
		if r.Decision != "alice" {
			t.Errorf("%s: %s", r.File, r.Decision)
		}
	}
	if !strings.Contains(p.stderr.String(), "5 decisions not delivered") {
		t.Errorf("the stop does not say what was not delivered:\n%s", p.stderr)
	}
}
