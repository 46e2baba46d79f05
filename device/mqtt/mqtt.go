// Package mqtt publishes setmatchd's decisions to an MQTT broker with the
// Eclipse Paho client (MQTT 3.1.1).
//
// Topics, for a configured topic T:
//
//	T/decision      every decision: the journal record as JSON (QoS 1, not retained)
//	T/state         the last decision delivered (QoS 1, retained; sent
//	                again after a reconnect until the broker has it)
//	T/availability  "online" after each connect, "offline" on Close and as the
//	                last will when the connection drops (QoS 1, retained)
//
// and, unless discovery is off, the Home Assistant discovery config of one
// sensor on <prefix>/sensor/<node>/decision/config (retained, at each
// connect): its state is the last decision, its attributes the record.
//
// Publish never blocks: it appends to a bounded in-memory outbox and
// returns. One goroutine connects (with exponential backoff between
// attempts, and after a connection that ended before stable had passed,
// as the broker ends it for a second client with the same id), then
// sends the outbox in order, one message at a time, and
// removes a message only when the broker has acknowledged it (PUBACK).
// Delivery is thus at least once: a message whose acknowledgement was lost
// with the connection is sent again. When the outbox is full the oldest
// message is dropped and counted (Dropped), and so is a decision whose
// acknowledgement was lost with the connection maxLostSends times in a
// row, such as one the broker closes the connection for because it is
// over the broker's maximum packet size (which MQTT 3.1.1 does not tell
// a client): it would otherwise be sent after every reconnect and hold
// back every decision behind it. The journal stays the record of every
// decision. The log says the full outbox's drops once as they begin, then
// sums them up at most once a minute while they go on, and what is left
// at Close (dropped).
package mqtt

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"

	"setmatch/config"
	"setmatch/internal/dropcount"
)

const (
	online  = "online"
	offline = "offline"
	qos     = 1
	// maxLostSends is how many connections in a row may be lost while one
	// decision waits for its acknowledgement before that decision is
	// dropped. A connection lost by chance with a decision in flight
	// leaves it two more; the broker closing the connection for the
	// decision itself costs three short connections and their waits.
	maxLostSends = 3
	// dropEvery is the least time between two log lines of the decisions
	// the full outbox dropped.
	dropEvery = time.Minute
)

// clock is the time of the drops that the log says; tests step it.
var clock = time.Now

// Options configure a Publisher. FromConfig makes them from the [mqtt]
// section of the configuration.
type Options struct {
	Broker   string // "tcp://host:1883", "ssl://host:8883", …
	Topic    string // topic prefix T: T/decision, T/state, T/availability
	ClientID string // must be unique on the broker
	Username string
	Password string
	// TLS is used for ssl://, tls://, mqtts:// and wss:// brokers; nil =
	// the system's roots.
	TLS *tls.Config
	// KeepAlive is the MQTT keepalive (default 30s).
	KeepAlive time.Duration
	// Outbox is the number of messages held while the broker is away
	// (default 1000).
	Outbox int
	// DiscoveryPrefix is the Home Assistant discovery prefix; "" = no
	// discovery.
	DiscoveryPrefix string
	// Version is shown as the device's software version in Home Assistant.
	Version string
	// ConnectTimeout bounds one connection attempt and the wait for one
	// acknowledgement (default 10s).
	ConnectTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait between connection
	// attempts, which doubles after each failure (defaults 1s and 1m).
	MinBackoff, MaxBackoff time.Duration
	// Logger receives connection events and errors (default slog.Default()).
	Logger *slog.Logger
	// Files are what FromConfig read of the password and TLS files, for
	// a reload to tell one rewritten since (Files.Changed); the publisher
	// does not use them.
	Files Files
}

// Publisher sends decisions to the broker. Its methods are safe for
// concurrent use.
type Publisher struct {
	o             Options
	c             paho.Client
	box           *outbox
	decisionTopic string
	stateTopic    string
	availTopic    string

	wake      chan struct{}   // a message was added (capacity 1)
	quit      chan struct{}   // closed by Close: deliver what can be, go offline, stop
	ctx       context.Context // cancelled when Close gives up waiting
	cancel    context.CancelFunc
	done      chan struct{} // closed when run returns
	closeOnce sync.Once

	connected atomic.Bool
	published atomic.Uint64

	// drops is what the log has said of the decisions the full outbox
	// dropped, dropTimer the timer of its next sum while one waits, and
	// dropsClosed that Close has summed up the rest. dmu guards them.
	dmu         sync.Mutex
	drops       dropcount.Count
	dropTimer   *time.Timer
	dropsClosed bool

	// state is the last decision delivered, for T/state; stateDue that
	// the broker has not acknowledged it there yet. Only run's goroutine
	// uses them.
	state    []byte
	stateDue bool

	// since is when the current connection was asked for. Only run's
	// goroutine uses it.
	since time.Time

	// sending is the decision waiting for its acknowledgement (seq 0:
	// none); lostSeq the sequence number of the decision whose
	// acknowledgement the last lost connection took, lostSends how many
	// connections in a row did. Only run's goroutine uses them.
	sending   entry
	lostSeq   uint64
	lostSends int
	// saidDown is that a warning or an error of the connection was
	// logged since the last line that said it was up (down): the next
	// connection is then said at info, so that the log's last word on
	// the broker is never an error it got over. Only run's goroutine
	// uses it.
	saidDown bool

	mu      sync.Mutex
	lost    chan struct{} // closed when the current connection is lost
	lostErr error         // why Paho lost it (onLost); nil when we closed it
	lastErr error         // of the last failed connection attempt
}

// stable is how long a connection must last for its end to count as a
// loss rather than the broker closing it at once: a keepalive, and twice
// the longest wait, so that two clients with one id, each closing the
// other's connection as it makes its own, both keep backing off.
func (p *Publisher) stable() time.Duration {
	return max(p.o.KeepAlive, 2*p.o.MaxBackoff)
}

// New starts a Publisher: it connects in the background and keeps
// reconnecting until Close. It returns an error only for options that
// cannot work; a broker that cannot be reached or refuses the login is
// logged (and reported by LastError), never returned.
func New(o Options) (*Publisher, error) {
	if o.Broker == "" || o.Topic == "" {
		return nil, errors.New("mqtt: broker and topic must be set")
	}
	if o.ClientID == "" {
		return nil, errors.New("mqtt: client id must be set")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.KeepAlive, 30*time.Second)
	if o.KeepAlive > config.MaxKeepAlive {
		// Paho would send it cut to 16 bits: 65536 s as 0, no keepalive.
		return nil, fmt.Errorf("mqtt: keepalive %v is longer than MQTT's %v", o.KeepAlive, config.MaxKeepAlive)
	}
	def(&o.ConnectTimeout, 10*time.Second)
	def(&o.MinBackoff, time.Second)
	def(&o.MaxBackoff, time.Minute)
	o.MaxBackoff = max(o.MaxBackoff, o.MinBackoff)
	if o.Outbox <= 0 {
		o.Outbox = 1000
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With("broker", o.Broker)
	p := &Publisher{
		o:             o,
		box:           newOutbox(o.Outbox),
		decisionTopic: o.Topic + "/decision",
		stateTopic:    o.Topic + "/state",
		availTopic:    o.Topic + "/availability",
		wake:          make(chan struct{}, 1),
		quit:          make(chan struct{}),
		done:          make(chan struct{}),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	po := paho.NewClientOptions().
		AddBroker(o.Broker).
		SetClientID(o.ClientID).
		SetUsername(o.Username).
		SetPassword(o.Password).
		// The outbox is the session: a clean session each time, and
		// reconnection is done here, where each failure can be reported.
		SetCleanSession(true).
		// MQTT 3.1.1 only: without it Paho follows every failed attempt
		// with a second one in MQTT 3.1, which doubles each refusal in
		// the broker's log and each attempt's time, and stays on 3.1 once
		// that one got in.
		SetProtocolVersion(4).
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetKeepAlive(o.KeepAlive).
		SetConnectTimeout(o.ConnectTimeout).
		SetWriteTimeout(o.ConnectTimeout).
		SetWill(p.availTopic, offline, qos, true).
		SetConnectionLostHandler(p.onLost)
	if o.TLS != nil {
		po.SetTLSConfig(o.TLS)
	}
	p.c = paho.NewClient(po)
	go p.run()
	return p, nil
}

// Publish queues one decision, the journal record as JSON (a final newline
// is removed), for <topic>/decision and <topic>/state. It never blocks and
// copies payload. When the outbox is full the oldest queued decision is
// dropped. After Close it does nothing.
func (p *Publisher) Publish(payload []byte) {
	select {
	case <-p.quit:
		return
	default:
	}
	if p.box.add(bytes.TrimRight(payload, "\n")) {
		p.dropped()
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Connected reports whether the publisher is connected to the broker now.
func (p *Publisher) Connected() bool { return p.connected.Load() }

// OutboxLen returns the number of decisions waiting for the broker.
func (p *Publisher) OutboxLen() int { return p.box.len() }

// Dropped returns the number of decisions dropped: from a full outbox, and
// after maxLostSends connections in a row were lost while each waited for
// its acknowledgement.
func (p *Publisher) Dropped() uint64 { return p.box.drops() }

// Published returns the number of decisions the broker acknowledged
// (a decision sent again after a lost acknowledgement counts again).
func (p *Publisher) Published() uint64 { return p.published.Load() }

// LastError returns why the last connection attempt failed, or nil once
// connected.
func (p *Publisher) LastError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr
}

// Close delivers what is in the outbox while connected, publishes
// "offline" on the availability topic, disconnects, and returns when done
// or when ctx ends, whichever comes first (then, while connected, after at
// most 1.25 s more for "offline" and the disconnect). It logs the
// decisions the full outbox dropped since the last sum, and returns an
// error naming the number of decisions not delivered, if any.
func (p *Publisher) Close(ctx context.Context) error {
	p.closeOnce.Do(func() { close(p.quit) })
	select {
	case <-p.done:
	case <-ctx.Done():
		p.cancel()
		<-p.done
	}
	p.cancel()
	p.flushDrops()
	switch n := p.box.len(); n {
	case 0:
	case 1:
		return fmt.Errorf("mqtt: 1 decision not delivered to %s (the journal has it)", p.o.Broker)
	default:
		return fmt.Errorf("mqtt: %d decisions not delivered to %s (the journal has them)", n, p.o.Broker)
	}
	return nil
}

// dropped logs a decision the full outbox dropped as dropcount.Count
// says: the first of a run of drops at once, then a sum of them a minute
// after the last line, while they go on (the last sum at most a minute
// after the last drop), and at Close what is left (flushDrops). The sum
// comes from a timer (time.AfterFunc, sumDrops), started while drops wait
// for one: run's goroutine cannot time it, as it waits on the broker in
// five places (a connection attempt, the wait between attempts, an
// acknowledgement, a lost connection's end, an empty outbox, this one
// without end), and a sum at the next Publish would wait for the next
// decision, which may come hours later.
func (p *Publisher) dropped() {
	now := clock()
	p.dmu.Lock()
	defer p.dmu.Unlock()
	if p.drops.Drop(now, dropEvery) {
		p.o.Logger.Warn("mqtt outbox full: dropping the oldest decisions until the broker takes them; further drops are summed up once a minute while they go on (the journal has every decision)",
			"outbox", p.o.Outbox)
	}
	p.timeDropsLocked(now)
}

// timeDropsLocked starts the timer of the next sum of dropped decisions
// where drops wait for one and no timer runs, unless Close has summed up
// the rest. p.dmu is held.
func (p *Publisher) timeDropsLocked(now time.Time) {
	if p.dropTimer != nil || p.dropsClosed {
		return
	}
	if w, ok := p.drops.Wait(now, dropEvery); ok {
		p.dropTimer = time.AfterFunc(w, p.sumDrops)
	}
}

// sumDrops, the timer's, logs the sum of the dropped decisions where it
// is due, and starts the timer again where one is still to come.
func (p *Publisher) sumDrops() {
	now := clock()
	p.dmu.Lock()
	defer p.dmu.Unlock()
	if p.dropsClosed {
		return
	}
	p.dropTimer = nil
	if n, since, ok := p.drops.Due(now, dropEvery); ok {
		p.logDrops(n, since)
	}
	p.timeDropsLocked(now)
}

// flushDrops, at Close, stops the timer and logs the dropped decisions in
// no sum yet.
func (p *Publisher) flushDrops() {
	p.dmu.Lock()
	defer p.dmu.Unlock()
	p.dropsClosed = true
	if p.dropTimer != nil {
		p.dropTimer.Stop()
		p.dropTimer = nil
	}
	if n, since := p.drops.Flush(); n > 0 {
		p.logDrops(n, since)
	}
}

// logDrops is the log line of n decisions the full outbox dropped since a
// time.
func (p *Publisher) logDrops(n uint64, since time.Time) {
	p.o.Logger.Warn("mqtt outbox full: decisions dropped (the journal has every decision)",
		"dropped", n, "since", since.UTC().Format(time.RFC3339))
}

func (p *Publisher) onLost(_ paho.Client, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lost != nil {
		close(p.lost)
		p.lost = nil
	}
	p.lostErr = err // run says what it means, once it knows how long the connection lasted
}

var errStopped = errors.New("mqtt: publisher closed")

// run connects, serves the connection until it is lost, and again, until
// Close.
func (p *Publisher) run() {
	defer close(p.done)
	defer func() {
		if p.c.IsConnectionOpen() {
			p.c.Disconnect(250)
		}
	}()
	backoff := p.o.MinBackoff
	short := 0 // connections in a row that ended before stable() had passed
	for {
		select {
		case <-p.quit:
			return // not connected: nothing can be delivered
		default:
		}
		lost, err := p.connect()
		if errors.Is(err, errStopped) {
			return
		}
		if err != nil {
			p.reportFailure(err, backoff)
			// ±25 % so that many daemons do not come back in step.
			if !p.sleep(time.Duration(float64(backoff) * (0.75 + 0.5*rand.Float64()))) {
				return
			}
			backoff = min(2*backoff, p.o.MaxBackoff)
			continue
		}
		p.mu.Lock()
		p.lastErr = nil
		p.mu.Unlock()
		p.connected.Store(true)
		// A failed attempt is said at error level first (reportFailure),
		// so saidDown covers every connection after one.
		switch {
		case p.saidDown:
			p.o.Logger.Info("mqtt connected again", "topic", p.o.Topic, "outbox", p.box.len())
		case short > 1:
			p.o.Logger.Debug("mqtt connected again", "topic", p.o.Topic, "outbox", p.box.len())
		default:
			p.o.Logger.Info("mqtt connected", "topic", p.o.Topic, "outbox", p.box.len())
		}
		p.saidDown = false
		closing := p.serve(lost)
		p.connected.Store(false)
		if closing {
			p.goOffline()
			return
		}
		if p.c.IsConnectionOpen() {
			p.c.Disconnect(0) // a send failed on an open connection
		} else {
			// Paho is still winding the connection down; Connect fails
			// until it has.
			t := time.NewTimer(p.o.ConnectTimeout)
			select {
			case <-lost:
			case <-t.C:
			}
			t.Stop()
		}
		p.mu.Lock()
		err = p.lostErr
		p.lostErr = nil
		p.mu.Unlock()
		inFlight := err != nil && p.sending.seq != 0 // lost, not closed here
		if inFlight {
			p.lostInFlight(p.sending, err)
		}
		p.sending = entry{}
		up := time.Since(p.since)
		if up >= p.stable() {
			short, backoff = 0, p.o.MinBackoff
			if err != nil {
				p.down(slog.LevelWarn, "mqtt connection lost; reconnecting", "err", err)
			}
			continue
		}
		// The connection ended at once, as the broker ends it for a second
		// client with the same id: wait as after a failed attempt. When
		// the broker did not end it (err nil: it was closed here, after a
		// publish the broker did not acknowledge, which serve logged),
		// the wait is not explained by a second client.
		short++
		if err != nil && !inFlight { // lostInFlight said why
			lvl := slog.LevelWarn
			if short > 1 {
				lvl = slog.LevelDebug // said once; the wait grows meanwhile
			}
			p.down(lvl, "mqtt connection lost soon after it was made; reconnecting after a wait, which doubles while this repeats: the broker stopped or restarted, or, where this repeats, another client with the same mqtt.client_id makes the broker close the older one (its log says so)",
				"err", err, "after", up.Round(time.Millisecond), "client_id", p.o.ClientID)
		}
		if !p.sleep(time.Duration(float64(backoff) * (0.75 + 0.5*rand.Float64()))) {
			return
		}
		backoff = min(2*backoff, p.o.MaxBackoff)
	}
}

// connect makes one connection attempt; lost is closed when the
// connection is lost.
func (p *Publisher) connect() (lost chan struct{}, err error) {
	lost = make(chan struct{})
	p.since = time.Now()
	p.mu.Lock()
	p.lost, p.lostErr = lost, nil
	p.mu.Unlock()
	tok := p.c.Connect()
	select {
	case <-tok.Done():
	case <-p.quit:
		p.c.Disconnect(0)
		return nil, errStopped
	case <-p.ctx.Done():
		p.c.Disconnect(0)
		return nil, errStopped
	}
	if err := tok.Error(); err != nil {
		return nil, p.explain(err)
	}
	return lost, nil
}

// explain turns a connection error into one that says what to check.
func (p *Publisher) explain(err error) error {
	var nerr *net.OpError
	switch {
	case errors.Is(err, packets.ErrorRefusedBadUsernameOrPassword), errors.Is(err, packets.ErrorRefusedNotAuthorised):
		return fmt.Errorf("the broker refused the login (%v): check mqtt.username (%q) and the password in mqtt.password_file", err, p.o.Username)
	case errors.Is(err, packets.ErrorRefusedIDRejected):
		return fmt.Errorf("the broker rejected the client id %q (%v): set another mqtt.client_id", p.o.ClientID, err)
	case errors.Is(err, packets.ErrorRefusedBadProtocolVersion):
		return fmt.Errorf("the broker does not speak MQTT 3.1.1 (%v)", err)
	case errors.As(err, new(*tls.CertificateVerificationError)), errors.As(err, new(tls.RecordHeaderError)):
		return fmt.Errorf("TLS with the broker failed: %v (check mqtt.ca_file, and that the broker URL's host name is in its certificate)", err)
	case errors.As(err, &nerr) && nerr.Op == "remote error":
		// A TLS alert from the broker (crypto/tls reports them so).
		return fmt.Errorf("the broker refused the TLS connection: %v (check mqtt.cert_file and mqtt.key_file: a client certificate the broker trusts, if it asks for one; and mqtt.ca_file)", err)
	case err.Error() == "status is already connected or reconnecting":
		// Paho's own words, for a connection it is still closing.
		return errors.New("the last connection is still being closed; trying again")
	case isClosed(err):
		// The broker took the TCP connection, then closed it: on a dial,
		// as a reset during the handshake. The cause is said without the
		// connection's addresses, so that a repeat reads the same.
		cause := "EOF"
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			cause = "connection reset by peer"
		}
		return fmt.Errorf("the broker closed the connection before accepting the login (%s): %s", cause, p.portHint())
	case errors.As(err, &nerr) && nerr.Op == "dial":
		return fmt.Errorf("cannot reach the broker: %v (is it running and reachable, and may the service use the network?)", err)
	case isTimeout(err):
		return fmt.Errorf("the broker took the connection but did not answer the login within %v: %s", p.o.ConnectTimeout, p.portHint())
	case errors.As(err, &nerr):
		return fmt.Errorf("the connection to the broker failed before the login was accepted: %v: %s", withoutSource(err, nerr), p.portHint())
	case errors.Is(err, packets.ErrorNetworkError):
		return fmt.Errorf("the broker's answer to the login is not MQTT (%v): check that mqtt.broker names the broker's MQTT port", strings.TrimPrefix(err.Error(), packets.ErrorNetworkError.Error()+" : "))
	}
	return err
}

// portHint says what to check when the broker took the connection but
// did not accept the login.
func (p *Publisher) portHint() string {
	if u, err := url.Parse(p.o.Broker); err == nil && (u.Scheme == "ssl" || u.Scheme == "tls" || u.Scheme == "mqtts" || u.Scheme == "wss") {
		return "check that the broker speaks TLS on this port (" + u.Scheme + ":// wants its TLS listener, usually port 8883; a listener without TLS, usually 1883, is tcp://), and what its log says of this client"
	}
	tlsScheme := "ssl://"
	if strings.HasPrefix(p.o.Broker, "ws://") {
		tlsScheme = "wss://"
	}
	return "check that this is the broker's port without TLS (a TLS port, usually 8883, needs " + tlsScheme + "), and the broker's log for why: a client id or topic it refuses (mqtt.client_id, mqtt.topic), too many connections"
}

// isClosed reports whether err is the peer closing or resetting the
// connection.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}

// isTimeout reports whether err is a deadline that passed.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &t) && t.Timeout()
}

// withoutSource is err's text without the local address of nerr, which
// changes at every attempt.
func withoutSource(err error, nerr *net.OpError) string {
	s := strings.TrimPrefix(err.Error(), packets.ErrorNetworkError.Error()+" : ")
	if nerr.Source != nil {
		s = strings.ReplaceAll(s, nerr.Source.String()+"->", "")
	}
	return s
}

// reportFailure logs a failed attempt: at error level when the reason is
// new, at debug level when it repeats.
func (p *Publisher) reportFailure(err error, backoff time.Duration) {
	p.mu.Lock()
	same := p.lastErr != nil && p.lastErr.Error() == err.Error()
	p.mu.Unlock()
	lvl := slog.LevelError
	if same {
		lvl = slog.LevelDebug
	}
	p.down(lvl, "mqtt connect failed; decisions wait in the outbox",
		"err", err, "retry_in", backoff.Round(time.Millisecond), "outbox", p.box.len())
	p.mu.Lock()
	p.lastErr = err // after the log line: LastError != nil means it was logged
	p.mu.Unlock()
}

// down logs a line of the connection's trouble at lvl, and where that is
// a warning or worse, that the next connection is to be said at info
// (saidDown). Only run's goroutine calls it.
func (p *Publisher) down(lvl slog.Level, msg string, args ...any) {
	p.o.Logger.Log(context.Background(), lvl, msg, args...)
	p.saidDown = p.saidDown || lvl >= slog.LevelWarn
}

// sleep waits d; false if the publisher is closing.
func (p *Publisher) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.quit:
		return false
	case <-p.ctx.Done():
		return false
	}
}

// serve announces availability and discovery, then sends the outbox until
// the connection is lost (false) or Close was called and everything that
// could be sent was (true).
func (p *Publisher) serve(lost chan struct{}) (closing bool) {
	closed := func() bool {
		select {
		case <-p.quit:
			return true
		default:
			return false
		}
	}
	// failed says why a send failed on a connection still open (a broker
	// that stopped acknowledging), whichever message it was, and ends the
	// connection.
	failed := func(err error) bool {
		if p.c.IsConnectionOpen() && p.ctx.Err() == nil {
			p.down(slog.LevelWarn, "mqtt publish failed; reconnecting", "err", err)
		}
		return closed()
	}
	if err := p.send(lost, p.availTopic, true, []byte(online)); err != nil {
		return failed(err)
	}
	if p.o.DiscoveryPrefix != "" {
		cfg := discoveryConfig(p.o.Topic, p.o.ClientID, p.o.Version)
		if err := p.send(lost, discoveryTopic(p.o.DiscoveryPrefix, p.o.ClientID), true, cfg); err != nil {
			return failed(err)
		}
	}
	for {
		e, ok := p.box.peek()
		if !ok {
			if p.stateDue {
				if err := p.send(lost, p.stateTopic, true, p.state); err != nil {
					return failed(err)
				}
				p.stateDue = false
			}
			select {
			case <-p.wake:
				continue
			case <-lost:
				return false
			case <-p.quit:
				if p.box.len() > 0 {
					continue // added just before Close
				}
				return true
			case <-p.ctx.Done():
				return true
			}
		}
		p.sending = e
		if err := p.send(lost, p.decisionTopic, false, e.payload); err != nil {
			return failed(err)
		}
		p.sending = entry{}
		p.published.Add(1)
		if p.box.remove(e.seq) {
			p.state, p.stateDue = e.payload, true
		}
	}
}

// lostInFlight counts a connection lost while decision e waited for its
// acknowledgement, and drops e from the outbox when this was the
// maxLostSends-th in a row (unless the full outbox dropped it already).
func (p *Publisher) lostInFlight(e entry, err error) {
	if e.seq != p.lostSeq {
		p.lostSeq, p.lostSends = e.seq, 0
	}
	p.lostSends++
	if p.lostSends < maxLostSends {
		p.o.Logger.Debug("mqtt connection lost while a decision waited for its acknowledgement; sending it again after reconnecting",
			"err", err, "attempt", p.lostSends, "of", maxLostSends)
		return
	}
	if !p.box.drop(e.seq) {
		return // the full outbox dropped it meanwhile, and counted it
	}
	p.down(slog.LevelWarn, "mqtt connection lost at each send of one decision: dropping it (the journal has it); a broker closes the connection so for a message over its maximum packet size: raise the broker's max_packet_size above payload_bytes and the topic, or see the broker's log for why it closed the connection",
		"err", err, "attempts", maxLostSends, "payload_bytes", len(e.payload), "dropped", p.box.drops())
}

var errLost = errors.New("connection lost")

// send publishes one message with QoS 1 and waits for its acknowledgement.
func (p *Publisher) send(lost chan struct{}, topic string, retained bool, payload []byte) error {
	tok := p.c.Publish(topic, qos, retained, payload)
	t := time.NewTimer(p.o.ConnectTimeout)
	defer t.Stop()
	select {
	case <-tok.Done():
		return tok.Error()
	case <-lost:
		return errLost
	case <-p.ctx.Done():
		return p.ctx.Err()
	case <-t.C:
		return fmt.Errorf("no acknowledgement from the broker within %v", p.o.ConnectTimeout)
	}
}

// goOffline publishes "offline" and disconnects. It waits at most a second
// for the acknowledgement, also after Close's context ended: a clean
// disconnect cancels the last will, so this is the only "offline" a
// subscriber gets.
func (p *Publisher) goOffline() {
	tok := p.c.Publish(p.availTopic, qos, true, offline)
	t := time.NewTimer(time.Second)
	select {
	case <-tok.Done():
	case <-t.C:
	}
	t.Stop()
	p.c.Disconnect(250)
}
