package mqtt

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// The tests run against Debian's mosquitto. On the host they start their
// own (a free loopback port, a generated configuration). An emulated test
// binary (make test-arm64: qemu-user) cannot start host programs
// (golang/go#69259): there they use the brokers named by these variables,
// which scripts/mosquitto-test.sh starts.
const (
	// envBroker names a broker that lets anyone in: "tcp://127.0.0.1:PORT".
	envBroker = "SETMATCH_TEST_MQTT_BROKER"
	// envAuthBroker names a broker with allow_anonymous false that knows
	// testUser with testPassword.
	envAuthBroker = "SETMATCH_TEST_MQTT_AUTH_BROKER"
	testUser      = "setmatch-test"
	testPassword  = "right-password"
)

// broker is a mosquitto for one test.
type broker struct {
	url  string
	addr string // host:port

	// Only for a broker this test started:
	bin  string
	conf string
	dir  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	log  *syncBuffer
}

// emulated reports whether this test binary runs under a user-mode
// emulator: /proc/cpuinfo then describes the host's processor, not one of
// GOARCH.
func emulated() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	x86 := bytes.Contains(b, []byte("vendor_id"))
	switch runtime.GOARCH {
	case "amd64", "386":
		return !x86
	default:
		return x86
	}
}

// testBroker returns a broker for t: the one named by the environment
// variable if set, else a mosquitto started for t.
func testBroker(ctx context.Context, t *testing.T, auth bool) *broker {
	t.Helper()
	env := envBroker
	if auth {
		env = envAuthBroker
	}
	if u := os.Getenv(env); u != "" {
		return &broker{url: u, addr: strings.TrimPrefix(u, "tcp://")}
	}
	if emulated() {
		t.Skipf("an emulated test binary cannot start mosquitto (golang/go#69259): set %s to a running broker (scripts/mosquitto-test.sh does)", env)
	}
	return startBroker(ctx, t, auth)
}

// startBroker starts mosquitto on a free loopback port; it is killed when
// t ends.
func startBroker(ctx context.Context, t *testing.T, auth bool) *broker {
	t.Helper()
	bin, err := exec.LookPath("mosquitto")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/mosquitto"); serr == nil {
			bin = "/usr/sbin/mosquitto"
		} else {
			t.Fatalf("mosquitto not found (%v): install it, e.g. apt-get install mosquitto mosquitto-clients, or set %s and %s to running brokers", err, envBroker, envAuthBroker)
		}
	}
	b := &broker{bin: bin, dir: t.TempDir(), log: new(syncBuffer)}
	conf := "persistence false\nlog_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n"
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		conf += "user root\n" // else mosquitto drops to user mosquitto, who cannot read the test's files
	}
	if auth {
		pw := filepath.Join(b.dir, "passwd")
		if out, err := exec.CommandContext(ctx, "mosquitto_passwd", "-b", "-c", pw, testUser, testPassword).CombinedOutput(); err != nil {
			t.Fatalf("mosquitto_passwd (from mosquitto or mosquitto-clients): %v\n%s", err, out)
		}
		conf += "allow_anonymous false\npassword_file " + pw + "\n"
	} else {
		conf += "allow_anonymous true\n"
	}
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		b.addr = fmt.Sprintf("127.0.0.1:%d", port)
		b.url = "tcp://" + b.addr
		b.conf = filepath.Join(b.dir, "mosquitto.conf")
		if err := os.WriteFile(b.conf, []byte(fmt.Sprintf("listener %d 127.0.0.1\n%s", port, conf)), 0o644); err != nil {
			t.Fatal(err)
		}
		err := b.start(ctx)
		if err == nil {
			break
		}
		if attempt == 2 {
			t.Fatalf("starting mosquitto: %v\n%s", err, b.log.String())
		}
	}
	t.Cleanup(b.kill)
	return b
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs mosquitto and waits until it accepts connections.
func (b *broker) start(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	cmd := exec.Command(b.bin, "-c", b.conf)
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		c, err := net.DialTimeout("tcp", b.addr, 100*time.Millisecond)
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
			return fmt.Errorf("mosquitto did not listen on %s: %w", b.addr, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill ends mosquitto with SIGKILL, as a crash or power cut would.
func (b *broker) kill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGKILL)
	// Wait until the port is free, so that a restart can take it.
	for range 200 {
		c, err := net.DialTimeout("tcp", b.addr, 50*time.Millisecond)
		if err != nil {
			break
		}
		c.Close()
		time.Sleep(10 * time.Millisecond)
	}
	b.cmd = nil
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gate is a TCP proxy in front of a broker that a test can cut: it then
// closes every connection through it abruptly (no DISCONNECT: the broker
// publishes the client's last will) and refuses new ones until opened.
type gate struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	open     bool
	conns    []net.Conn
	// While blackhole is set, what clients send is discarded (and
	// counted) instead of reaching the broker.
	blackhole atomic.Bool
	discarded atomic.Int64
}

func newGate(t *testing.T, upstream string) *gate {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln, upstream: upstream, open: true}
	t.Cleanup(func() { ln.Close(); g.cut() })
	go g.serve()
	return g
}

func (g *gate) url() string { return "tcp://" + g.ln.Addr().String() }

func (g *gate) serve() {
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
				if n > 0 && g.blackhole.Load() {
					g.discarded.Add(int64(n))
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

// cut closes every connection and refuses new ones.
func (g *gate) cut() {
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

func (g *gate) reopen() {
	g.mu.Lock()
	g.open = true
	g.mu.Unlock()
}

// message is one message a subscriber received.
type message struct {
	topic    string
	payload  string
	retained bool
}

// subscriber collects the messages of one subscription.
type subscriber struct {
	c    paho.Client
	mu   sync.Mutex
	msgs []message
}

// subscribe connects a Paho client to url and subscribes to filter with
// QoS 1; it returns once the broker acknowledged the subscription.
func subscribe(ctx context.Context, t *testing.T, url, user, password, filter string) *subscriber {
	t.Helper()
	s := &subscriber{}
	o := paho.NewClientOptions().AddBroker(url).SetClientID(fmt.Sprintf("sub-%d", time.Now().UnixNano())).
		SetUsername(user).SetPassword(password).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second)
	s.c = paho.NewClient(o)
	if err := wait(ctx, s.c.Connect()); err != nil {
		t.Fatalf("subscriber: connect to %s: %v", url, err)
	}
	t.Cleanup(func() { s.c.Disconnect(0) })
	tok := s.c.Subscribe(filter, 1, func(_ paho.Client, m paho.Message) {
		s.mu.Lock()
		s.msgs = append(s.msgs, message{m.Topic(), string(m.Payload()), m.Retained()})
		s.mu.Unlock()
	})
	if err := wait(ctx, tok); err != nil {
		t.Fatalf("subscriber: subscribe %s: %v", filter, err)
	}
	return s
}

// on returns the messages received on topic.
func (s *subscriber) on(topic string) []message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var m []message
	for _, x := range s.msgs {
		if x.topic == topic {
			m = append(m, x)
		}
	}
	return m
}

func wait(ctx context.Context, tok paho.Token) error {
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// eventually polls cond every 10ms until it holds or ctx ends; then it
// fails t with what.
func eventually(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
