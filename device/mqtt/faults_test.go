package mqtt

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eclipse/paho.mqtt.golang/packets"

	"setmatch/device/mqtt/mqtttest"
	"setmatch/internal/testutil"
)

// fakeBroker listens on a loopback port and hands each connection to
// handle; it returns the broker URL. It stops when t ends.
func fakeBroker(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				handle(c)
			}()
		}
	}()
	return "tcp://" + ln.Addr().String()
}

// readConnect reads one MQTT CONNECT packet from r and returns its
// protocol level (4 for MQTT 3.1.1, 3 for MQTT 3.1).
func readConnect(r *bufio.Reader) (level byte, err error) {
	level, _, err = readConnectKeepAlive(r)
	return level, err
}

// readConnectKeepAlive is readConnect that also returns the keepalive in
// seconds.
func readConnectKeepAlive(r *bufio.Reader) (level byte, keepalive int, err error) {
	if _, err := r.ReadByte(); err != nil { // packet type
		return 0, 0, err
	}
	n, mul := 0, 1
	for {
		b, err := r.ReadByte()
		if err != nil {
			return 0, 0, err
		}
		n += int(b&0x7f) * mul
		mul *= 128
		if b&0x80 == 0 {
			break
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, 0, err
	}
	name := int(body[0])<<8 | int(body[1])
	// The protocol level, the flags, the keepalive (16 bits).
	return body[2+name], int(body[2+name+2])<<8 | int(body[2+name+3]), nil
}

// TestOneConnectionPerAttempt: a broker that refuses the login is asked
// once per attempt, in MQTT 3.1.1, not a second time in MQTT 3.1 (Paho's
// fallback, which doubled every refused attempt in the broker's log and
// every attempt's time against a broker that does not answer, and could
// leave the daemon on MQTT 3.1 for good).
func TestOneConnectionPerAttempt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var levels []byte
	url := fakeBroker(t, func(c net.Conn) {
		level, err := readConnect(bufio.NewReader(c))
		if err != nil {
			return
		}
		mu.Lock()
		levels = append(levels, level)
		mu.Unlock()
		c.Write([]byte{0x20, 2, 0, 5}) // CONNACK: not authorized
	})
	log := new(testutil.LockedBuffer)
	o := testOptions(url, uniqueTopic(t), log)
	// No second attempt within the test: the wait after the first is an
	// hour (Close ends it).
	o.MinBackoff, o.MaxBackoff = time.Hour, time.Hour
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	// The failure is reported once the attempt is over, Paho's fallback
	// included, and the broker records a CONNECT before it answers it: the
	// broker has seen every CONNECT of the one attempt now.
	testutil.WaitForCtx(t, ctx, "the refused login was reported", func() bool { return p.LastError() != nil })
	mu.Lock()
	defer mu.Unlock()
	if len(levels) != 1 || levels[0] != 4 {
		t.Errorf("the broker saw CONNECTs of protocol levels %v for one attempt, want [4] (MQTT 3.1.1 only)", levels)
	}
	if e := p.LastError().Error(); !strings.Contains(e, "refused the login") {
		t.Errorf("LastError = %q, want the refused login", e)
	}
}

// TestConnectionClosedBeforeLogin: a broker that takes the TCP connection
// and then closes it, resets it or stays silent, before it accepts the
// login (a TLS port given as tcp://, a plain port as ssl://, a client id
// or topic the broker refuses, a full broker, a broker that hangs), is
// reported as such, with what to check: not as a broker that cannot be
// reached. Each repeat of the same failure is logged at debug level only,
// although each attempt comes from another local port.
func TestConnectionClosedBeforeLogin(t *testing.T) {
	for _, c := range []struct {
		name   string
		scheme string
		handle func(c net.Conn)
		want   []string
	}{
		{"closed", "tcp", func(c net.Conn) { readConnect(bufio.NewReader(c)) },
			[]string{"closed the connection before accepting the login", "ssl://", "the broker's log"}},
		{"reset", "tcp", func(c net.Conn) { c.(*net.TCPConn).SetLinger(0) },
			[]string{"closed the connection before accepting the login", "connection reset by peer", "ssl://"}},
		{"silent", "tcp", func(c net.Conn) { io.Copy(io.Discard, c) },
			[]string{"did not answer the login within 300ms", "ssl://"}},
		{"plain port as ssl", "ssl", func(c net.Conn) { c.Read(make([]byte, 512)); c.(*net.TCPConn).SetLinger(0) },
			[]string{"closed the connection before accepting the login", "speaks TLS", "tcp://"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var mu sync.Mutex
			conns := 0
			url := fakeBroker(t, func(conn net.Conn) {
				mu.Lock()
				conns++
				mu.Unlock()
				c.handle(conn)
			})
			url = c.scheme + strings.TrimPrefix(url, "tcp")
			log := new(testutil.LockedBuffer)
			o := testOptions(url, uniqueTopic(t), log)
			o.ConnectTimeout = 300 * time.Millisecond
			o.MinBackoff, o.MaxBackoff = 10*time.Millisecond, 20*time.Millisecond
			p, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close(context.Background())
			testutil.WaitForCtx(t, ctx, "four attempts", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return conns >= 4 && p.LastError() != nil
			})
			e := p.LastError().Error()
			for _, w := range c.want {
				if !strings.Contains(e, w) {
					t.Errorf("LastError = %q, want it to hold %q", e, w)
				}
			}
			if strings.Contains(e, "cannot reach") {
				t.Errorf("LastError = %q: the broker was reached", e)
			}
			if n := strings.Count(log.String(), "level=ERROR"); n != 1 {
				t.Errorf("%d errors logged for one failure repeated; want 1, the rest at debug level:\n%s", n, log)
			}
		})
	}
}

// TestHungBrokerNotTakenForSameClientID: a broker that stops
// acknowledging (hung, or the network between stalls) is said as such,
// and the wait before the next connection is not explained by a second
// client with the same client id, which it is not.
func TestHungBrokerNotTakenForSameClientID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := mqtttest.New(ctx, t, false)
	g := mqtttest.NewGate(t, b.Addr)
	topic := uniqueTopic(t)
	sub := subscribe(ctx, t, b.URL, "", "", topic+"/decision")
	log := new(testutil.LockedBuffer)
	o := testOptions(g.URL(), topic, log)
	o.ConnectTimeout = 300 * time.Millisecond
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	testutil.WaitForCtx(t, ctx, "connected", p.Connected)
	g.Blackhole.Store(true)
	p.Publish(payload(1))
	testutil.WaitForCtx(t, ctx, "the missing acknowledgement said", func() bool {
		return strings.Contains(log.String(), "no acknowledgement from the broker within 300ms")
	})
	g.Blackhole.Store(false)
	testutil.WaitForCtx(t, ctx, "the decision delivered after the broker came back", func() bool { return len(sub.On(topic+"/decision")) > 0 })
	if strings.Contains(log.String(), "same mqtt.client_id") {
		t.Errorf("a hung broker blamed on a second client with the same client id:\n%s", log)
	}
}

// TestKeepAliveFitsMQTT: MQTT carries the keepalive in 16 bits of
// seconds. One that fits is sent as given; a longer one is refused, where
// Paho sent it cut to 16 bits (24h as 5h47m44s, 65536 s as 0: no
// keepalive, and no last will from the broker when the daemon vanishes)
// while pinging at the full period.
func TestKeepAliveFitsMQTT(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan int, 1)
	url := fakeBroker(t, func(c net.Conn) {
		_, k, err := readConnectKeepAlive(bufio.NewReader(c))
		if err != nil {
			return
		}
		select {
		case got <- k:
		default:
		}
	})
	o := testOptions(url, uniqueTopic(t), new(testutil.LockedBuffer))
	o.KeepAlive = 18 * time.Hour
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	select {
	case k := <-got:
		if k != 18*3600 {
			t.Errorf("keepalive sent as %d s, want %d", k, 18*3600)
		}
	case <-ctx.Done():
		t.Fatal("no CONNECT")
	}
	for _, k := range []time.Duration{24 * time.Hour, 65536 * time.Second} {
		o.KeepAlive = k
		if p, err := New(o); err == nil || !strings.Contains(err.Error(), "keepalive") {
			if p != nil {
				p.Close(context.Background())
			}
			t.Errorf("New with keepalive %v: %v, want an error naming the keepalive", k, err)
		}
	}
}

// TestConnectAsksForNoSessionAndARetainedWill: the CONNECT asks for a
// clean session (the outbox is the session: the broker keeps nothing for
// the daemon, and Paho resends nothing of its own after a reconnect) and
// sets the last will "offline" on <topic>/availability with QoS 1,
// retained, so that a subscriber that comes after the daemon vanished
// still reads it offline, not the retained "online" of before.
func TestConnectAsksForNoSessionAndARetainedWill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan *packets.ConnectPacket, 1)
	url := fakeBroker(t, func(c net.Conn) {
		cp, ok := readPacket(c).(*packets.ConnectPacket)
		if !ok {
			return
		}
		select {
		case got <- cp:
		default:
		}
	})
	topic := uniqueTopic(t)
	o := testOptions(url, topic, new(testutil.LockedBuffer))
	o.MinBackoff, o.MaxBackoff = time.Hour, time.Hour // one attempt
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	var cp *packets.ConnectPacket
	select {
	case cp = <-got:
	case <-ctx.Done():
		t.Fatal("no CONNECT")
	}
	if !cp.CleanSession {
		t.Error("CONNECT asks the broker to keep a session")
	}
	if !cp.WillFlag || cp.WillTopic != topic+"/availability" || string(cp.WillMessage) != "offline" || cp.WillQos != 1 || !cp.WillRetain {
		t.Errorf("last will: set %v, topic %q, message %q, QoS %d, retained %v; want %q, \"offline\", QoS 1, retained",
			cp.WillFlag, cp.WillTopic, cp.WillMessage, cp.WillQos, cp.WillRetain, topic+"/availability")
	}
}

// TestCloseDeliversWhatWasJustPublished: a decision published while the
// publisher waits for the broker to acknowledge the state of the one
// before, and followed at once by Close, is delivered before the
// publisher goes offline (Close returns nil): when the acknowledgement
// comes, the publisher finds the new decision and the Close together,
// takes them in a random order, and must deliver the decision either way.
// Each round is a publisher of its own.
func TestCloseDeliversWhatWasJustPublished(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	topic := uniqueTopic(t)
	var mu sync.Mutex
	var delivered []string // the decisions acknowledged
	// The broker holds the acknowledgement of the first state of each
	// connection until the channel it hands over is closed.
	stateSeen := make(chan chan struct{})
	url := fakeBroker(t, func(c net.Conn) {
		held := false
		for {
			var ack packets.ControlPacket
			switch cp := readPacket(c).(type) {
			case *packets.ConnectPacket:
				ack = packets.NewControlPacket(packets.Connack)
			case *packets.PublishPacket:
				if cp.TopicName == topic+"/state" && !held {
					held = true
					release := make(chan struct{})
					select {
					case stateSeen <- release:
					case <-ctx.Done():
						return
					}
					select {
					case <-release:
					case <-ctx.Done():
						return
					}
				}
				if cp.TopicName == topic+"/decision" {
					mu.Lock()
					delivered = append(delivered, string(cp.Payload))
					mu.Unlock()
				}
				pa := packets.NewControlPacket(packets.Puback).(*packets.PubackPacket)
				pa.MessageID = cp.MessageID
				ack = pa
			case *packets.PingreqPacket:
				ack = packets.NewControlPacket(packets.Pingresp)
			default: // DISCONNECT, or the connection ended
				return
			}
			if ack.Write(c) != nil {
				return
			}
		}
	})
	const rounds = 20
	for i := range rounds {
		o := testOptions(url, topic, new(testutil.LockedBuffer))
		o.DiscoveryPrefix = ""
		p, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		p.Publish(payload(2 * i))
		var release chan struct{}
		select {
		case release = <-stateSeen:
		case <-ctx.Done():
			t.Fatalf("round %d: the first decision's state never came", i)
		}
		p.Publish(payload(2*i + 1))
		closed := make(chan error, 1)
		go func() { closed <- p.Close(ctx) }()
		select {
		case <-p.quit: // Close has begun
		case <-ctx.Done():
			t.Fatalf("round %d: Close did not begin", i)
		}
		close(release)
		if err := <-closed; err != nil {
			t.Fatalf("round %d: Close: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(delivered) != 2*rounds {
		t.Errorf("%d decisions delivered, want %d", len(delivered), 2*rounds)
	}
}

// readPacket reads one MQTT packet from r, nil if it cannot.
func readPacket(r io.Reader) packets.ControlPacket {
	cp, err := packets.ReadPacket(r)
	if err != nil {
		return nil
	}
	return cp
}

// TestAnnounceNotAcknowledgedSaysSo: a broker that takes the login and
// then acknowledges nothing hangs the first message of a connection, the
// "online" announcement, as it hangs a decision; the log says so alike,
// where the announcement's failure went unsaid and only the next attempts'
// failed logins were logged.
func TestAnnounceNotAcknowledgedSaysSo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := fakeBroker(t, func(c net.Conn) {
		if _, err := readConnect(bufio.NewReader(c)); err != nil {
			return
		}
		c.Write([]byte{0x20, 2, 0, 0}) // CONNACK: accepted
		io.Copy(io.Discard, c)         // and nothing acknowledged
	})
	log := new(testutil.LockedBuffer)
	o := testOptions(url, uniqueTopic(t), log)
	o.ConnectTimeout = 300 * time.Millisecond
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	testutil.WaitForCtx(t, ctx, "the missing acknowledgement of the announcement said", func() bool {
		return strings.Contains(log.String(), "no acknowledgement from the broker within 300ms")
	})
}

// TestBackoffStopsAtMax: the wait between failed connections doubles from
// MinBackoff and stays at MaxBackoff, so that a broker back after a long
// outage is reached within MaxBackoff (read from the log lines' retry_in,
// not from the clock).
func TestBackoffStopsAtMax(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "tcp://" + ln.Addr().String()
	ln.Close() // connections to it are refused at once
	log := new(testutil.LockedBuffer)
	o := testOptions(url, uniqueTopic(t), log)
	o.MinBackoff, o.MaxBackoff = time.Millisecond, 4*time.Millisecond
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	var waits []string
	testutil.WaitFor(t, 30*time.Second, "seven failed connections", func() bool {
		waits = regexp.MustCompile(`mqtt connect failed.* retry_in=(\S+)`).FindAllString(log.String(), -1)
		return len(waits) >= 7
	})
	for i, w := range waits[:7] {
		got := w[strings.LastIndex(w, "=")+1:]
		want := []string{"1ms", "2ms", "4ms"}[min(i, 2)]
		if got != want {
			t.Errorf("attempt %d: retry_in=%s, want %s (from 1ms, doubling up to 4ms)", i+1, got, want)
		}
	}
}

// TestDecisionTheBrokerDisconnectsForIsDropped: a decision the broker
// closes the connection for whenever it is sent (here one over the
// broker's max_packet_size, which MQTT 3.1.1 does not tell a client) is
// sent a bounded number of times, then dropped, logged and counted, and
// the decisions behind it are delivered, where it was sent again after
// every reconnect and held every later decision back until a full outbox
// dropped it. Under a second.
func TestDecisionTheBrokerDisconnectsForIsDropped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if emulated() {
		t.Skip("an emulated test binary cannot start a mosquitto of its own configuration (golang/go#69259)")
	}
	b := mqtttest.Start(ctx, t, false, "max_packet_size 2048")
	topic := uniqueTopic(t)
	sub := subscribe(ctx, t, b.URL, "", "", topic+"/decision")
	log := new(testutil.LockedBuffer)
	p, err := New(testOptions(b.URL, topic, log))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	big := bytes.Replace(payload(2), []byte("{"), []byte(`{"pad":"`+strings.Repeat("x", 4096)+`",`), 1)
	p.Publish(payload(1))
	p.Publish(big)
	p.Publish(payload(3))
	testutil.WaitForCtx(t, ctx, "the decisions around the refused one delivered, and it dropped", func() bool {
		return len(sub.On(topic+"/decision")) >= 2 && p.Dropped() == 1 && p.OutboxLen() == 0
	})
	if got := files(t, sub.On(topic+"/decision")); !slices.Equal(got, []string{"b-001.npy", "b-003.npy"}) {
		t.Errorf("decisions received %v, want [b-001.npy b-003.npy]", got)
	}
	if !strings.Contains(log.String(), "dropping it") {
		t.Errorf("the drop is not logged:\n%s", log)
	}
	if strings.Contains(log.String(), "same mqtt.client_id") {
		t.Errorf("the lost connections blamed on a second client with the same client id:\n%s", log)
	}
}

// TestOutboxDropsSummedWhileConnected: the decisions a full outbox drops
// while the connection stays up (a broker that takes the login and then
// acknowledges nothing but the last "offline": a slow broker at its
// worst) are said once as they begin, summed up a minute after that line
// without a reconnect, and what is left summed up at Close, where the sum
// came only at the next reconnect, and never at a Close. The clock the
// log reads is stepped, and the sum's timer, once started, fired at once.
func TestOutboxDropsSummedWhileConnected(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var now atomic.Pointer[time.Time]
	step := func(s int) {
		at := t0.Add(time.Duration(s) * time.Second)
		now.Store(&at)
	}
	step(0)
	old := clock
	clock = func() time.Time { return *now.Load() }
	t.Cleanup(func() { clock = old })
	var conns atomic.Int32
	url := fakeBroker(t, func(c net.Conn) {
		conns.Add(1)
		for {
			var ack packets.ControlPacket
			switch cp := readPacket(c).(type) {
			case *packets.ConnectPacket:
				ack = packets.NewControlPacket(packets.Connack)
			case *packets.PublishPacket:
				if string(cp.Payload) != offline {
					continue
				}
				pa := packets.NewControlPacket(packets.Puback).(*packets.PubackPacket)
				pa.MessageID = cp.MessageID
				ack = pa
			case *packets.PingreqPacket:
				continue
			default: // DISCONNECT, or the connection ended
				return
			}
			if ack.Write(c) != nil {
				return
			}
		}
	})
	log := new(testutil.LockedBuffer)
	o := testOptions(url, uniqueTopic(t), log)
	o.Outbox, o.ConnectTimeout = 2, time.Minute // the "online" waits for its acknowledgement the whole test
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing can be delivered: Close gives up waiting at once.
	stopped, stop := context.WithCancel(ctx)
	stop()
	defer p.Close(stopped)
	testutil.WaitForCtx(t, ctx, "connected", p.Connected)
	sums := regexp.MustCompile(`msg="mqtt outbox full: decisions dropped[^"]*".* dropped=(\d+) since=(\S+)`)
	said := func() (first int, got []string) {
		l := log.String()
		for _, m := range sums.FindAllStringSubmatch(l, -1) {
			got = append(got, m[1]+" since "+m[2])
		}
		return strings.Count(l, "mqtt outbox full: dropping the oldest"), got
	}
	for i := range 5 { // 3 dropped
		p.Publish(payload(i))
	}
	if first, got := said(); first != 1 || got != nil {
		t.Errorf("after the first drops: %d first lines and sums %q, want 1 and none:\n%s", first, got, log)
	}
	p.dmu.Lock()
	tm := p.dropTimer
	p.dmu.Unlock()
	if tm == nil {
		t.Fatalf("no timer of the sum started:\n%s", log)
	}
	step(60)
	tm.Reset(0)
	testutil.WaitForCtx(t, ctx, "the sum a minute after the first line", func() bool { _, got := said(); return got != nil })
	step(70)
	for i := range 2 { // 2 more dropped, within a minute of the sum
		p.Publish(payload(5 + i))
	}
	if !p.Connected() || conns.Load() != 1 {
		t.Errorf("connected %v after %d connections, want true after 1: the drops were to be summed without a reconnect", p.Connected(), conns.Load())
	}
	p.Close(stopped)
	want := []string{"3 since 2026-03-01T12:00:00Z", "2 since 2026-03-01T12:01:10Z"}
	if first, got := said(); first != 1 || !slices.Equal(got, want) || p.Dropped() != 5 {
		t.Errorf("%d first lines, sums %q, dropped %d; want 1, %q, 5:\n%s", first, got, p.Dropped(), want, log)
	}
}
