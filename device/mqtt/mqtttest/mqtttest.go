// Package mqtttest runs Debian's mosquitto for tests and subscribes to it
// with the Paho client (Subscribe); a Gate, a proxy in front of a broker,
// lets a test cut the connections through it.
//
// On the host a test starts its own broker (a free loopback port, a
// generated configuration). An emulated test binary (make test-arm64:
// qemu-user) cannot start host programs (golang/go#69259): there the tests
// use the brokers named by EnvBroker and EnvAuthBroker, which
// scripts/mosquitto-test.sh starts.
package mqtttest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

const (
	// EnvBroker names a broker that lets anyone in: "tcp://127.0.0.1:PORT".
	EnvBroker = "SETMATCH_TEST_MQTT_BROKER"
	// EnvAuthBroker names a broker with allow_anonymous false that knows
	// User with Password.
	EnvAuthBroker = "SETMATCH_TEST_MQTT_AUTH_BROKER"
	// User and Password are the one account of the broker Start starts
	// with auth, and of the broker EnvAuthBroker names.
	User     = "setmatch-test"
	Password = "right-password"
)

// Broker is a mosquitto for one test.
type Broker struct {
	URL  string // tcp://127.0.0.1:PORT
	Addr string // 127.0.0.1:PORT

	// Only for a broker this test started:
	bin  string
	conf string
	dir  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	log  testutil.LockedBuffer
}

// New returns a broker for t: the one named by EnvAuthBroker (auth) or
// EnvBroker if set, else a mosquitto started for t (skipping t when this
// binary is emulated and cannot start one).
func New(ctx context.Context, t testing.TB, auth bool) *Broker {
	t.Helper()
	env := EnvBroker
	if auth {
		env = EnvAuthBroker
	}
	if u := os.Getenv(env); u != "" {
		return &Broker{URL: u, Addr: strings.TrimPrefix(u, "tcp://")}
	}
	if testexec.Emulated() {
		t.Skipf("an emulated test binary cannot start mosquitto (golang/go#69259): set %s to a running broker (scripts/mosquitto-test.sh does)", env)
	}
	return Start(ctx, t, auth)
}

// Start starts mosquitto on a free loopback port; it is killed when t
// ends. With auth, anonymous clients are refused and User/Password let in.
// Each of extra is one more line of its configuration, such as
// "max_packet_size 1024".
func Start(ctx context.Context, t testing.TB, auth bool, extra ...string) *Broker {
	t.Helper()
	// Without mosquitto (and EnvBroker and EnvAuthBroker unset) the test
	// is skipped, or fails on a CI machine (testutil.EnvRequireTools).
	bin := testutil.Tool(t, "mosquitto", "mosquitto")
	b := &Broker{bin: bin, dir: t.TempDir()}
	conf := "persistence false\nlog_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n"
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		conf += "user root\n" // else mosquitto drops to user mosquitto, who cannot read the test's files
	}
	if auth {
		pw := filepath.Join(b.dir, "passwd")
		if out, err := exec.CommandContext(ctx, testutil.Tool(t, "mosquitto_passwd", "mosquitto"), "-b", "-c", pw, User, Password).CombinedOutput(); err != nil {
			t.Fatalf("mosquitto_passwd (from mosquitto or mosquitto-clients): %v\n%s", err, out)
		}
		conf += "allow_anonymous false\npassword_file " + pw + "\n"
	} else {
		conf += "allow_anonymous true\n"
	}
	for _, l := range extra {
		conf += l + "\n"
	}
	for attempt := 0; ; attempt++ {
		b.Addr = testutil.FreeAddr(t)
		b.URL = "tcp://" + b.Addr
		b.conf = filepath.Join(b.dir, "mosquitto.conf")
		_, port, _ := net.SplitHostPort(b.Addr)
		if err := os.WriteFile(b.conf, []byte(fmt.Sprintf("listener %s 127.0.0.1\n%s", port, conf)), 0o644); err != nil {
			t.Fatal(err)
		}
		err := b.Restart(ctx)
		if err == nil {
			break
		}
		if attempt == 2 {
			t.Fatalf("starting mosquitto: %v\n%s", err, b.Log())
		}
	}
	t.Cleanup(b.Kill)
	return b
}

// Restart runs mosquitto (again, after Kill, on the same port) and waits
// until it accepts connections or ctx ends.
func (b *Broker) Restart(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bin == "" {
		return fmt.Errorf("broker %s was not started by this test", b.URL)
	}
	cmd := exec.Command(b.bin, "-c", b.conf)
	cmd.Stdout, cmd.Stderr = &b.log, &b.log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		c, err := net.DialTimeout("tcp", b.Addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			b.cmd = cmd
			go func() { <-exited }()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("mosquitto exited: %v", err)
		case <-ctx.Done():
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("mosquitto did not listen on %s: %w", b.Addr, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Kill ends mosquitto with SIGKILL, as a crash or power cut would, and
// waits until its port is free.
func (b *Broker) Kill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGKILL)
	for range 200 {
		c, err := net.DialTimeout("tcp", b.Addr, 50*time.Millisecond)
		if err != nil {
			break
		}
		c.Close()
		time.Sleep(10 * time.Millisecond)
	}
	b.cmd = nil
}

// Log returns what mosquitto wrote.
func (b *Broker) Log() string { return b.log.String() }

// Gate is a TCP proxy in front of a broker that a test can cut: it then
// closes every connection through it abruptly (no DISCONNECT: the broker
// publishes the client's last will) and refuses new ones until opened.
type Gate struct {
	ln       net.Listener
	scheme   string
	upstream string
	mu       sync.Mutex
	open     bool
	conns    []net.Conn
	// While Blackhole is set, what clients send is discarded (and
	// counted) instead of reaching the broker.
	Blackhole atomic.Bool
	Discarded atomic.Int64
	// cutAt, when set, is bytes whose arrival from a client closes that
	// connection before they reach the broker (CutAt).
	cutAt atomic.Pointer[[]byte]
}

// CutAt makes the next read from a client that holds needle (such as a
// topic name) close that connection abruptly instead of passing it on:
// a connection lost just before one message, whatever the timing. New
// connections are let through.
func (g *Gate) CutAt(needle string) {
	b := []byte(needle)
	g.cutAt.Store(&b)
}

// NewGate starts a gate to upstream (host:port) on a free loopback port;
// it is closed when t ends.
func NewGate(t testing.TB, upstream string) *Gate {
	return NewTLSGate(t, upstream, nil)
}

// NewTLSGate is NewGate with TLS towards the clients when cfg is not nil
// (the gate ends it and speaks plain MQTT to upstream): a TLS broker for
// the client under test, in front of a broker without TLS.
func NewTLSGate(t testing.TB, upstream string, cfg *tls.Config) *Gate {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &Gate{ln: ln, upstream: upstream, open: true, scheme: "tcp"}
	if cfg != nil {
		g.ln, g.scheme = tls.NewListener(ln, cfg), "ssl"
	}
	t.Cleanup(func() { ln.Close(); g.Cut() })
	go g.serve()
	return g
}

// URL is the broker URL that goes through the gate: tcp://, or ssl://
// for a TLS gate.
func (g *Gate) URL() string { return g.scheme + "://" + g.ln.Addr().String() }

func (g *Gate) serve() {
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return
		}
		g.mu.Lock()
		open := g.open
		g.mu.Unlock()
		if !open {
			c.Close()
			continue
		}
		u, err := net.DialTimeout("tcp", g.upstream, time.Second)
		if err != nil {
			c.Close()
			continue
		}
		g.mu.Lock()
		g.conns = append(g.conns, c, u)
		g.mu.Unlock()
		go func() {
			buf := make([]byte, 4096)
			for {
				n, err := c.Read(buf)
				if at := g.cutAt.Load(); n > 0 && at != nil && bytes.Contains(buf[:n], *at) && g.cutAt.CompareAndSwap(at, nil) {
					if tc, ok := c.(*net.TCPConn); ok {
						tc.SetLinger(0)
					}
					break
				}
				if n > 0 && g.Blackhole.Load() {
					g.Discarded.Add(int64(n))
				} else if n > 0 {
					if _, werr := u.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			u.Close()
			c.Close()
		}()
		go func() { io.Copy(c, u); u.Close(); c.Close() }()
	}
}

// Cut closes every connection and refuses new ones.
func (g *Gate) Cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = false
	for _, c := range g.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // RST, as a cable pulled or a process killed
		}
		c.Close()
	}
	g.conns = nil
}

// Reopen lets connections through again.
func (g *Gate) Reopen() {
	g.mu.Lock()
	g.open = true
	g.mu.Unlock()
}

// Message is one message a Subscriber received.
type Message struct {
	Topic    string
	Payload  string
	Retained bool
}

// Subscriber collects the messages of one subscription.
type Subscriber struct {
	c    paho.Client
	mu   sync.Mutex
	msgs []Message
}

// Subscribe connects a Paho client to url and subscribes to filter with
// QoS 1; it returns once the broker acknowledged the subscription. The
// client disconnects when t ends.
func Subscribe(ctx context.Context, t testing.TB, url, user, password, filter string) *Subscriber {
	t.Helper()
	s := &Subscriber{}
	o := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("sub-%d", time.Now().UnixNano())).
		SetUsername(user).SetPassword(password).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second)
	s.c = paho.NewClient(o)
	if err := Wait(ctx, s.c.Connect()); err != nil {
		t.Fatalf("subscriber: connect to %s: %v", url, err)
	}
	t.Cleanup(func() { s.c.Disconnect(0) })
	tok := s.c.Subscribe(filter, 1, func(_ paho.Client, m paho.Message) {
		s.mu.Lock()
		s.msgs = append(s.msgs, Message{m.Topic(), string(m.Payload()), m.Retained()})
		s.mu.Unlock()
	})
	if err := Wait(ctx, tok); err != nil {
		t.Fatalf("subscriber: subscribe %s: %v", filter, err)
	}
	return s
}

// On returns the messages received on topic.
func (s *Subscriber) On(topic string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var m []Message
	for _, x := range s.msgs {
		if x.Topic == topic {
			m = append(m, x)
		}
	}
	return m
}

// Wait waits for tok or for ctx to end.
func Wait(ctx context.Context, tok paho.Token) error {
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	}
}
