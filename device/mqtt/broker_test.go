package mqtt

import (
	"bytes"
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"setmatch/device/mqtt/mqtttest"
)

// The tests run against Debian's mosquitto (mqtttest): their own on the
// host, the brokers of scripts/mosquitto-test.sh under qemu-user.
const (
	envBroker    = mqtttest.EnvBroker
	testUser     = mqtttest.User
	testPassword = mqtttest.Password
)

var (
	emulated  = mqtttest.Emulated
	subscribe = mqtttest.Subscribe
	wait      = mqtttest.Wait
)

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
