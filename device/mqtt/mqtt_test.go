package mqtt

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"setmatch/config"
	"setmatch/device/mqtt/mqtttest"
	"setmatch/internal/testutil"
)

// record is the part of a journal record the tests look at.
type record struct {
	File     string `json:"file"`
	Decision string `json:"decision"`
	Known    bool   `json:"known"`
}

var labels = []string{"alice", "bob", "unknown", "carol", "failed"}

// payload is the JSON of the i-th test decision, as the journal writes it
// (with its newline).
func payload(i int) []byte {
	l := labels[i%len(labels)]
	b, _ := json.Marshal(record{File: fmt.Sprintf("b-%03d.npy", i), Decision: l, Known: l != "unknown" && l != "failed"})
	return append(b, '\n')
}

// files returns the file names of the decisions received, in order.
func files(t *testing.T, msgs []mqtttest.Message) []string {
	t.Helper()
	var f []string
	for _, m := range msgs {
		var r record
		if err := json.Unmarshal([]byte(m.Payload), &r); err != nil {
			t.Fatalf("message %q is not a record: %v", m.Payload, err)
		}
		if want := labels[fileIndex(t, r.File)%len(labels)]; r.Decision != want {
			t.Errorf("%s: decision %q, want %q", r.File, r.Decision, want)
		}
		f = append(f, r.File)
	}
	return f
}

func fileIndex(t *testing.T, f string) int {
	var i int
	if _, err := fmt.Sscanf(f, "b-%03d.npy", &i); err != nil {
		t.Fatalf("file %q: %v", f, err)
	}
	return i
}

func testOptions(url, topic string, log *testutil.LockedBuffer) Options {
	return Options{
		Broker:          url,
		Topic:           topic,
		ClientID:        "setmatchd-" + strings.ReplaceAll(topic, "/", "-"),
		DiscoveryPrefix: "homeassistant",
		Version:         "0.1.0",
		KeepAlive:       5 * time.Second,
		ConnectTimeout:  2 * time.Second,
		MinBackoff:      20 * time.Millisecond,
		MaxBackoff:      200 * time.Millisecond,
		Logger:          slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

// uniqueTopic keeps tests that share one broker apart.
func uniqueTopic(t *testing.T) string {
	return fmt.Sprintf("setmatch-test/%s-%d", t.Name(), time.Now().UnixNano())
}

// gatedPublisher starts a broker and a gate to it, a subscriber to the
// test's own topic followed by what (such as "/decision") and a publisher
// on that topic through the gate. It returns the gate, the publisher (the
// caller closes it), the subscriber and the topic.
func gatedPublisher(ctx context.Context, t *testing.T, what string) (*mqtttest.Gate, *Publisher, *mqtttest.Subscriber, string) {
	t.Helper()
	b := mqtttest.New(ctx, t, false)
	g := mqtttest.NewGate(t, b.Addr)
	topic := uniqueTopic(t)
	sub := subscribe(ctx, t, b.URL, "", "", topic+what)
	p, err := New(testOptions(g.URL(), topic, new(testutil.LockedBuffer)))
	if err != nil {
		t.Fatal(err)
	}
	return g, p, sub, topic
}

func TestPublishDecisions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, false)
	topic := uniqueTopic(t)
	sub := subscribe(ctx, t, b.URL, "", "", topic+"/#")
	disc := subscribe(ctx, t, b.URL, "", "", "homeassistant/sensor/+/decision/config")
	log := new(testutil.LockedBuffer)
	o := testOptions(b.URL, topic, log)
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())

	const n = 25
	for i := range n {
		p.Publish(payload(i))
	}
	testutil.WaitForCtx(t, ctx, fmt.Sprintf("%d decisions arrived on %s/decision", n, topic), func() bool { return len(sub.On(topic+"/decision")) >= n })
	got := files(t, sub.On(topic+"/decision"))
	want := make([]string, n)
	for i := range n {
		want[i] = fmt.Sprintf("b-%03d.npy", i)
	}
	if !slices.Equal(got, want) {
		t.Errorf("decisions received:\n%v\nwant, in order:\n%v", got, want)
	}
	for _, m := range sub.On(topic + "/decision") {
		if m.Retained || strings.HasSuffix(m.Payload, "\n") {
			t.Errorf("decision message retained %v, payload %q: want not retained, no newline", m.Retained, m.Payload)
		}
	}
	// The subscriber may see the last message before the publisher sees
	// its acknowledgement.
	testutil.WaitForCtx(t, ctx, "every decision was acknowledged", func() bool { return p.Published() == n })
	if !p.Connected() || p.Published() != n || p.OutboxLen() != 0 || p.Dropped() != 0 {
		t.Errorf("connected %v, published %d, outbox %d, dropped %d; want true, %d, 0, 0", p.Connected(), p.Published(), p.OutboxLen(), p.Dropped(), n)
	}

	// A subscriber that comes later gets the last decision and "online",
	// retained.
	testutil.WaitForCtx(t, ctx, "the state was published", func() bool { return len(sub.On(topic+"/state")) > 0 })
	late := subscribe(ctx, t, b.URL, "", "", topic+"/#")
	testutil.WaitForCtx(t, ctx, "the late subscriber got the retained state and availability", func() bool {
		return len(late.On(topic+"/state")) > 0 && len(late.On(topic+"/availability")) > 0
	})
	st := late.On(topic + "/state")
	if f := files(t, st[len(st)-1:]); !st[len(st)-1].Retained || f[0] != want[n-1] {
		t.Errorf("retained state: %q (retained %v), want the last decision %s", st[len(st)-1].Payload, st[len(st)-1].Retained, want[n-1])
	}
	if av := late.On(topic + "/availability"); av[0].Payload != "online" || !av[0].Retained {
		t.Errorf("retained availability %q (retained %v), want online", av[0].Payload, av[0].Retained)
	}
	// The decisions themselves are not retained: a subscriber that comes
	// later gets only those made after it subscribed (a retained one would
	// come first).
	lateDecisions := subscribe(ctx, t, b.URL, "", "", topic+"/decision")
	p.Publish(payload(n))
	testutil.WaitForCtx(t, ctx, "the decision made after the late subscription", func() bool { return len(lateDecisions.On(topic+"/decision")) > 0 })
	if f := files(t, lateDecisions.On(topic+"/decision")); f[0] != fmt.Sprintf("b-%03d.npy", n) {
		t.Errorf("a later subscriber got %v, want only %s: a decision was retained", f, fmt.Sprintf("b-%03d.npy", n))
	}

	// Home Assistant discovery.
	dt := "homeassistant/sensor/" + nodeID(o.ClientID) + "/decision/config"
	testutil.WaitForCtx(t, ctx, "the discovery config arrived", func() bool { return len(disc.On(dt)) > 0 })
	var cfg map[string]any
	if err := json.Unmarshal([]byte(disc.On(dt)[0].Payload), &cfg); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{
		"state_topic": topic + "/state", "json_attributes_topic": topic + "/state",
		"availability_topic": topic + "/availability", "value_template": "{{ 'stranger' if value_json.decision == 'unknown' else value_json.decision }}",
		"unique_id": nodeID(o.ClientID) + "_decision",
	} {
		if cfg[k] != v {
			t.Errorf("discovery %s = %v, want %v", k, cfg[k], v)
		}
	}

	// Close: "offline", retained.
	if err := p.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	testutil.WaitForCtx(t, ctx, "offline after Close", func() bool {
		av := sub.On(topic + "/availability")
		return len(av) > 0 && av[len(av)-1].Payload == "offline"
	})
	if p.Connected() {
		t.Error("connected after Close")
	}
	p.Publish(payload(99)) // after Close: ignored, no panic
	if p.OutboxLen() != 0 {
		t.Errorf("Publish after Close queued a message")
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("errors logged:\n%s", log)
	}
}

// TestLastWill cuts the connection without a DISCONNECT, as a crash or a
// pulled cable would: the broker publishes the last will "offline"; the
// publisher reconnects and says "online" again.
func TestLastWill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, p, sub, topic := gatedPublisher(ctx, t, "/availability")
	defer p.Close(context.Background())
	avail := func() []string {
		var s []string
		for _, m := range sub.On(topic + "/availability") {
			s = append(s, m.Payload)
		}
		return s
	}
	testutil.WaitForCtx(t, ctx, "online", func() bool { return slices.Equal(avail(), []string{"online"}) })
	g.Cut()
	testutil.WaitForCtx(t, ctx, "the broker published the last will", func() bool { return slices.Equal(avail(), []string{"online", "offline"}) })
	testutil.WaitForCtx(t, ctx, "the publisher saw the connection go", func() bool { return !p.Connected() })
	g.Reopen()
	testutil.WaitForCtx(t, ctx, "online again after reconnecting", func() bool { return slices.Equal(avail(), []string{"online", "offline", "online"}) })
}

// TestOutage: decisions made while the broker cannot be reached wait in
// the outbox and all arrive, in order, when it can again.
func TestOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, p, sub, topic := gatedPublisher(ctx, t, "/decision")
	defer p.Close(context.Background())
	const n = 40
	for i := range n / 2 {
		p.Publish(payload(i))
	}
	testutil.WaitForCtx(t, ctx, "the first half arrived", func() bool { return len(sub.On(topic+"/decision")) == n/2 })
	g.Cut()
	testutil.WaitForCtx(t, ctx, "the publisher saw the connection go", func() bool { return !p.Connected() })
	for i := n / 2; i < n; i++ {
		p.Publish(payload(i))
	}
	if p.OutboxLen() != n/2 {
		t.Errorf("outbox holds %d while the broker is away, want %d", p.OutboxLen(), n/2)
	}
	g.Reopen()
	testutil.WaitForCtx(t, ctx, "every decision arrived", func() bool { return len(sub.On(topic+"/decision")) >= n })
	got := files(t, sub.On(topic+"/decision"))
	for i := range n {
		if want := fmt.Sprintf("b-%03d.npy", i); got[i] != want {
			t.Fatalf("decisions received out of order or lost:\n%v", got)
		}
	}
	if p.Dropped() != 0 {
		t.Errorf("dropped %d", p.Dropped())
	}
}

// TestLostInFlight: a decision sent but never acknowledged, because the
// connection died on the way to the broker, is sent again.
func TestLostInFlight(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, p, sub, topic := gatedPublisher(ctx, t, "/decision")
	defer p.Close(context.Background())
	testutil.WaitForCtx(t, ctx, "connected", p.Connected)
	g.Blackhole.Store(true)
	p.Publish(payload(7))
	testutil.WaitForCtx(t, ctx, "the decision was sent into the void", func() bool { return g.Discarded.Load() > 0 })
	g.Cut()
	g.Blackhole.Store(false)
	g.Reopen()
	testutil.WaitForCtx(t, ctx, "the decision arrived after reconnecting", func() bool { return len(sub.On(topic+"/decision")) > 0 })
	if f := files(t, sub.On(topic+"/decision")); f[0] != "b-007.npy" {
		t.Errorf("received %v", f)
	}
}

// TestBrokerKilledAndRestarted kills mosquitto (SIGKILL) in the middle of a
// stream of decisions and starts it again: no decision is lost.
func TestBrokerKilledAndRestarted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if emulated() {
		t.Skipf("an emulated test binary cannot start and kill mosquitto (golang/go#69259); TestOutage covers the outage through %s", envBroker)
	}
	b := mqtttest.Start(ctx, t, false)
	// The publisher goes through a gate, held shut after the restart until
	// the new subscriber is in place (without it, a subscriber that
	// reconnects after the publisher would miss messages it was never
	// subscribed for).
	g := mqtttest.NewGate(t, b.Addr)
	topic := uniqueTopic(t)
	sub1 := subscribe(ctx, t, b.URL, "", "", topic+"/decision")
	log := new(testutil.LockedBuffer)
	p, err := New(testOptions(g.URL(), topic, log))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	const n = 60
	for i := range n / 3 {
		p.Publish(payload(i))
	}
	testutil.WaitForCtx(t, ctx, "the first third arrived", func() bool { return len(sub1.On(topic+"/decision")) >= n/3 })
	b.Kill()
	for i := n / 3; i < n; i++ {
		p.Publish(payload(i))
	}
	testutil.WaitForCtx(t, ctx, "the publisher saw the broker go", func() bool { return !p.Connected() })
	g.Cut()
	testutil.WaitForCtx(t, ctx, "a failed reconnection was logged", func() bool { return strings.Contains(log.String(), "mqtt connect failed") })
	if err := b.Restart(ctx); err != nil {
		t.Fatalf("restarting mosquitto: %v\n%s", err, b.Log())
	}
	sub2 := subscribe(ctx, t, b.URL, "", "", topic+"/decision")
	g.Reopen()
	testutil.WaitForCtx(t, ctx, "the rest arrived after the restart", func() bool { return len(sub2.On(topic+"/decision")) >= n-n/3 })
	seen := make(map[string]int)
	for _, f := range append(files(t, sub1.On(topic+"/decision")), files(t, sub2.On(topic+"/decision"))...) {
		seen[f]++
	}
	for i := range n {
		if f := fmt.Sprintf("b-%03d.npy", i); seen[f] == 0 {
			t.Errorf("decision %s lost", f)
		}
	}
	// The subscriber may see the last message before the publisher sees
	// its acknowledgement.
	testutil.WaitForCtx(t, ctx, "the outbox is empty", func() bool { return p.OutboxLen() == 0 })
	if p.Dropped() != 0 {
		t.Errorf("dropped %d", p.Dropped())
	}
}

// TestWrongPassword: the refusal is logged with what to check; Publish
// returns at once all the same, and a full outbox drops the oldest.
func TestWrongPassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, true)
	topic := uniqueTopic(t)
	log := new(testutil.LockedBuffer)
	o := testOptions(b.URL, topic, log)
	o.Username, o.Password, o.Outbox = testUser, "wrong-password", 10
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitForCtx(t, ctx, "the refused login was logged", func() bool { return p.LastError() != nil })
	if e := p.LastError().Error(); !strings.Contains(e, "refused the login") || !strings.Contains(e, "check mqtt.username") {
		t.Errorf("LastError = %q, want it to say the login was refused and what to check", e)
	}
	if l := log.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "refused the login") {
		t.Errorf("log does not hold the error:\n%s", l)
	}
	// Publish must not wait for the broker: 25 calls finish well within
	// the test's deadline although nothing can be sent.
	done := make(chan struct{})
	go func() {
		for i := range 25 {
			p.Publish(payload(i))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Publish blocked while the broker refuses the login")
	}
	if p.Connected() || p.OutboxLen() != 10 || p.Dropped() != 15 {
		t.Errorf("connected %v, outbox %d, dropped %d; want false, 10, 15", p.Connected(), p.OutboxLen(), p.Dropped())
	}
	if !strings.Contains(log.String(), "mqtt outbox full") {
		t.Errorf("the first drop was not logged:\n%s", log)
	}
	cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
	defer ccancel()
	if err := p.Close(cctx); err == nil || !strings.Contains(err.Error(), "10 decisions not delivered") {
		t.Errorf("Close = %v, want 10 decisions not delivered", err)
	}
}

// TestPassword: the right password gets in, read from a file as
// FromConfig does.
func TestPassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, true)
	topic := uniqueTopic(t)
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(testPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := config.Default().MQTT
	c.Broker, c.Topic, c.Username, c.PasswordFile, c.ClientID = b.URL, topic, testUser, pw, "pw-test"
	log := new(testutil.LockedBuffer)
	o, err := FromConfig(c, "0.1.0", slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if o.Password != testPassword {
		t.Fatalf("password read as %q", o.Password)
	}
	o.MinBackoff, o.MaxBackoff = 20*time.Millisecond, 200*time.Millisecond
	sub := subscribe(ctx, t, b.URL, testUser, testPassword, topic+"/decision")
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	p.Publish(payload(3))
	testutil.WaitForCtx(t, ctx, "the decision arrived", func() bool { return len(sub.On(topic+"/decision")) == 1 })
	if err := p.Close(ctx); err != nil {
		t.Error(err)
	}
	if p.LastError() != nil {
		t.Errorf("LastError = %v", p.LastError())
	}
}

// TestDiscoveryOff: with no discovery prefix, no discovery config is
// published, under no prefix: before the decision, whose arrival shows
// that what came before it has arrived, the broker got "online" only.
func TestDiscoveryOff(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, false)
	all := subscribe(ctx, t, b.URL, "", "", "#")
	topic := uniqueTopic(t)
	o := testOptions(b.URL, topic, new(testutil.LockedBuffer))
	o.DiscoveryPrefix = ""
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	p.Publish(payload(1))
	testutil.WaitForCtx(t, ctx, "the decision arrived", func() bool { return len(all.On(topic+"/decision")) == 1 })
	for _, prefix := range []string{"", "homeassistant"} {
		if dt := discoveryTopic(prefix, o.ClientID); len(all.On(dt)) > 0 {
			t.Errorf("discovery off, yet a discovery config on %q: %v", dt, all.On(dt))
		}
	}
}

// TestCloseCountsTheUndelivered: Close says how many decisions it could
// not deliver, down to a single one.
func TestCloseCountsTheUndelivered(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "tcp://" + ln.Addr().String()
	ln.Close() // nothing listens there: every attempt is refused
	p, err := New(testOptions(url, uniqueTopic(t), new(testutil.LockedBuffer)))
	if err != nil {
		t.Fatal(err)
	}
	p.Publish(payload(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Close(ctx); err == nil || !strings.Contains(err.Error(), "1 decision not delivered to") {
		t.Errorf("Close = %v, want 1 decision not delivered", err)
	}
}

// TestStable: a connection counts as stable (its loss resets the wait
// between attempts) once it has lasted a keepalive and twice the longest
// wait, whichever is longer: two daemons given one client id, each pushing
// the other off as it connects, then keep backing off.
func TestStable(t *testing.T) {
	for _, c := range []struct{ keepAlive, maxBackoff, want time.Duration }{
		{30 * time.Second, time.Minute, 2 * time.Minute},
		{5 * time.Minute, time.Minute, 5 * time.Minute},
	} {
		p := &Publisher{o: Options{KeepAlive: c.keepAlive, MaxBackoff: c.maxBackoff}}
		if got := p.stable(); got != c.want {
			t.Errorf("keepalive %v, longest wait %v: stable after %v, want %v", c.keepAlive, c.maxBackoff, got, c.want)
		}
	}
}

// TestNodeID: the Home Assistant node id, in the discovery topic and the
// sensor's unique id, holds only A-Z a-z 0-9 _ -, which is all Home
// Assistant takes: every other byte of the client id, such as the dots of
// the host name in the default "setmatchd-<host name>", becomes _.
func TestNodeID(t *testing.T) {
	for _, c := range []struct{ clientID, want string }{
		{"setmatchd-door_1", "setmatchd-door_1"},
		{"setmatchd-pi.example.org", "setmatchd-pi_example_org"},
		{"porte d'entrée", "porte_d_entr__e"}, // é is two bytes
		{"", "setmatchd"},
	} {
		if got := nodeID(c.clientID); got != c.want {
			t.Errorf("nodeID(%q) = %q, want %q", c.clientID, got, c.want)
		}
	}
	if got, want := discoveryTopic("homeassistant", "setmatchd-pi.lan"), "homeassistant/sensor/setmatchd-pi_lan/decision/config"; got != want {
		t.Errorf("discovery topic %q, want %q", got, want)
	}
}

// TestNewRefusesIncompleteOptions: New refuses options without a broker,
// a topic or a client id (FromConfig always gives one) rather than start
// a publisher that cannot work or whose broker names it.
func TestNewRefusesIncompleteOptions(t *testing.T) {
	for _, o := range []Options{
		{Topic: "s", ClientID: "c"},
		{Broker: "tcp://127.0.0.1:1883", ClientID: "c"},
		{Broker: "tcp://127.0.0.1:1883", Topic: "s"},
	} {
		if p, err := New(o); err == nil {
			p.Close(context.Background())
			t.Errorf("New(%+v) started a publisher", o)
		}
	}
}

func TestFromConfig(t *testing.T) {
	dir := t.TempDir()
	c := config.Default().MQTT
	c.Broker, c.Topic = "tcp://127.0.0.1:1883", "s"
	o, err := FromConfig(c, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if o.ClientID != "setmatchd-"+host || o.Outbox != 1000 || o.KeepAlive != 30*time.Second || o.DiscoveryPrefix != "homeassistant" || o.TLS != nil {
		t.Errorf("options %+v", o)
	}
	c.Username, c.PasswordFile = "u", filepath.Join(dir, "missing")
	if _, err := FromConfig(c, "", nil); err == nil || !strings.Contains(err.Error(), "mqtt.password_file") {
		t.Errorf("missing password file: %v", err)
	}
	c.PasswordFile = filepath.Join(dir, "empty")
	os.WriteFile(c.PasswordFile, []byte("\n"), 0o600)
	if _, err := FromConfig(c, "", nil); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("password file of an empty line: %v", err)
	}
	c.PasswordFile = ""
	c.Broker, c.CAFile = "ssl://127.0.0.1:8883", filepath.Join(dir, "ca.pem")
	os.WriteFile(c.CAFile, []byte("not PEM"), 0o644)
	if _, err := FromConfig(c, "", nil); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("bad CA file: %v", err)
	}
	c.CAFile = ""
	if o, err := FromConfig(c, "", nil); err != nil || o.TLS == nil {
		t.Errorf("ssl:// without CA file: TLS %v, err %v; want the system roots", o.TLS, err)
	} else if o.TLS.MinVersion < tls.VersionTLS12 {
		t.Errorf("TLS MinVersion %#x, want TLS 1.2 at least", o.TLS.MinVersion)
	}
}

func TestOutbox(t *testing.T) {
	o := newOutbox(3)
	for i := range 5 {
		o.add([]byte{byte(i)})
	}
	if o.len() != 3 || o.drops() != 2 {
		t.Fatalf("len %d drops %d, want 3 2", o.len(), o.drops())
	}
	e, _ := o.peek()
	if e.payload[0] != 2 {
		t.Fatalf("oldest %d, want 2", e.payload[0])
	}
	// The entry in flight is dropped by an overflow: removing it must not
	// remove its successor.
	o.add([]byte{5})
	if o.remove(e.seq) || o.len() != 3 {
		t.Fatalf("remove of a dropped entry changed the outbox: len %d", o.len())
	}
	var got []byte
	for {
		e, ok := o.peek()
		if !ok {
			break
		}
		got = append(got, e.payload[0])
		o.remove(e.seq)
	}
	if string(got) != string([]byte{3, 4, 5}) {
		t.Errorf("drained %v, want [3 4 5]", got)
	}
	// drop removes and counts the oldest entry, and only it.
	d := newOutbox(3)
	d.add([]byte{1})
	d.add([]byte{2})
	e, _ = d.peek()
	d.drop(e.seq + 1)
	if d.len() != 2 || d.drops() != 0 {
		t.Fatalf("drop of an entry not the oldest: len %d drops %d, want 2 0", d.len(), d.drops())
	}
	d.drop(e.seq)
	if e, _ := d.peek(); d.len() != 1 || d.drops() != 1 || e.payload[0] != 2 {
		t.Fatalf("drop of the oldest: len %d drops %d, oldest %v; want 1 1 [2]", d.len(), d.drops(), e.payload)
	}
	p := []byte{7}
	o.add(p)
	p[0] = 8
	if e, _ := o.peek(); e.payload[0] != 7 {
		t.Error("add does not copy the payload")
	}
}

// TestLostInFlightDropped: a decision whose connection is lost at each of
// maxLostSends sends is dropped, counted once and logged with what to do
// (the broker's maximum packet size); one the full outbox dropped while it
// was in flight is not dropped or logged as dropped a second time, and
// the decision that took its place stays.
func TestLostInFlightDropped(t *testing.T) {
	for _, overflow := range []bool{false, true} {
		log := new(testutil.LockedBuffer)
		p := &Publisher{o: Options{Logger: slog.New(slog.NewTextHandler(log, nil))}, box: newOutbox(1)}
		p.box.add([]byte("a"))
		e, _ := p.box.peek()
		if overflow {
			p.box.add([]byte("b"))
		}
		for range maxLostSends {
			p.lostInFlight(e, errLost)
		}
		if p.Dropped() != 1 || p.OutboxLen() != map[bool]int{false: 0, true: 1}[overflow] {
			t.Errorf("overflow %v: dropped %d, outbox %d after %d connections lost with the decision in flight", overflow, p.Dropped(), p.OutboxLen(), maxLostSends)
		}
		logged := strings.Contains(log.String(), "dropping it")
		if logged == overflow {
			t.Errorf("overflow %v: drop logged %v, want %v:\n%s", overflow, logged, !overflow, log)
		}
		if logged && !strings.Contains(log.String(), "raise") {
			t.Errorf("the drop's log does not say what to do:\n%s", log)
		}
	}
}

// TestSameClientIDBacksOff: two publishers with one client id make the
// broker close each one's connection as the other connects. They wait,
// doubling, between connections, instead of taking turns as fast as the
// broker answers, and the log says why once.
func TestSameClientIDBacksOff(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, false)
	topic := uniqueTopic(t)
	avail := subscribe(ctx, t, b.URL, "", "", topic+"/availability")
	var logs [2]*testutil.LockedBuffer
	for i := range logs {
		logs[i] = new(testutil.LockedBuffer)
		o := testOptions(b.URL, topic, logs[i])
		o.MinBackoff, o.MaxBackoff = 100*time.Millisecond, time.Second
		p, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close(context.Background())
	}
	time.Sleep(3 * time.Second)
	// Taking turns at the broker's pace gives hundreds of "online" in 3 s;
	// with waits of 0.1, 0.2, 0.4, 0.8 and 1 s (±25 %), each makes 6 to 8
	// connections.
	if n := len(avail.On(topic + "/availability")); n > 40 {
		t.Errorf("%d availability messages in 3 s: the publishers do not back off", n)
	}
	for i, l := range logs {
		if c := strings.Count(l.String(), "level=WARN msg=\"mqtt connection lost soon after it was made"); c > 1 {
			t.Errorf("publisher %d warned %d times; want once, the rest at debug level:\n%s", i, c, l.String())
		}
	}
	if !strings.Contains(logs[0].String()+logs[1].String(), "same mqtt.client_id") {
		t.Errorf("no log line names the cause:\n%s\n%s", logs[0].String(), logs[1].String())
	}
}

// TestEveryOutageSaidOver: after each outage that the log gave at
// warning or error level, it says at info that the connection is back,
// also where outages come close together (connections shorter than
// stable(), whose losses it gives at debug after the first), so that its
// last word on the broker is never an error it got over.
func TestEveryOutageSaidOver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, false)
	g := mqtttest.NewGate(t, b.Addr)
	log := new(testutil.LockedBuffer)
	p, err := New(testOptions(g.URL(), uniqueTopic(t), log))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	const outages = 3
	for range outages {
		testutil.WaitForCtx(t, ctx, "connected", p.Connected)
		failed := strings.Count(log.String(), "mqtt connect failed")
		g.Cut()
		testutil.WaitForCtx(t, ctx, "a failed reconnection", func() bool { return strings.Count(log.String(), "mqtt connect failed") > failed })
		g.Reopen()
	}
	// The line follows Connected: wait for it (a missing one fails at
	// the deadline).
	said := func() int { return strings.Count(log.String(), `level=INFO msg="mqtt connected again"`) }
	testutil.WaitForCtx(t, ctx, "each outage said over", func() bool { return said() >= outages })
	owed := false
	for _, l := range strings.Split(log.String(), "\n") {
		switch {
		case strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR"):
			owed = true
		case strings.Contains(l, `level=INFO msg="mqtt connected again"`):
			owed = false
		}
	}
	if n := said(); owed || n != outages {
		t.Errorf("%d outages, %d said over at info (a warning or error left unanswered: %v):\n%s", outages, n, owed, log.String())
	}
}

// TestStateSentAgainAfterLoss: when the connection is lost after a
// decision was acknowledged but before its state was, the state is sent
// after the reconnect, so that the retained state is the last decision.
func TestStateSentAgainAfterLoss(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, p, sub, topic := gatedPublisher(ctx, t, "/#")
	defer p.Close(context.Background())
	testutil.WaitForCtx(t, ctx, "connected", p.Connected)
	p.Publish(payload(1))
	testutil.WaitForCtx(t, ctx, "the first state", func() bool { return len(sub.On(topic+"/state")) == 1 })
	// The second decision is delivered; the connection is cut as its
	// state is sent.
	g.CutAt(topic + "/state")
	p.Publish(payload(2))
	testutil.WaitForCtx(t, ctx, "the state of the second decision", func() bool {
		s := sub.On(topic + "/state")
		return len(s) > 0 && strings.Contains(s[len(s)-1].Payload, "b-002.npy")
	})
}
