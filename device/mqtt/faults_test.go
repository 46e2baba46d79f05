package mqtt

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

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
	if _, err := r.ReadByte(); err != nil { // packet type
		return 0, err
	}
	n, mul := 0, 1
	for {
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		n += int(b&0x7f) * mul
		mul *= 128
		if b&0x80 == 0 {
			break
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, err
	}
	name := int(body[0])<<8 | int(body[1])
	return body[2+name], nil
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
	o.MinBackoff, o.MaxBackoff = 300*time.Millisecond, 300*time.Millisecond
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	testutil.WaitForCtx(t, ctx, "the refused login was reported", func() bool { return p.LastError() != nil })
	// The next attempt comes after the wait (0.225 s at least), so that
	// the broker has seen exactly one attempt now.
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(levels) != 1 || levels[0] != 4 {
		t.Errorf("the broker saw CONNECTs of protocol levels %v for one attempt, want [4] (MQTT 3.1.1 only)", levels)
	}
	if e := p.LastError().Error(); !strings.Contains(e, "refused the login") {
		t.Errorf("LastError = %q, want the refused login", e)
	}
}
