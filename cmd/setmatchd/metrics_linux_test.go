package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
)

// TestDaemonMetricsConnectionFlood: clients that open many connections to
// the metrics endpoint and keep them open take no more than a few of the
// daemon's file descriptors: batches are claimed, decided and journaled
// meanwhile. The daemon runs with 128 descriptors, as the unit's
// LimitNOFILE=1024 with ten times the connections; each connection took
// one, and the spool could then open nothing ("cannot claim batch …: too
// many open files") for as long as they stayed.
func TestDaemonMetricsConnectionFlood(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	maddr := testutil.FreeAddr(t)
	f := devicetest.NewFixture(t, fmt.Sprintf("\n[metrics]\nlisten = %q\n", maddr))
	p := startDaemon(t, ctx, f)
	lim := syscall.Rlimit{Cur: 128, Max: 128}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(p.cmd.Process.Pid), syscall.RLIMIT_NOFILE, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		t.Fatalf("prlimit: %v", e)
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 200 {
		c, err := net.DialTimeout("tcp", maddr, 2*time.Second)
		if err != nil {
			break // the listen queue is full: enough
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for i := range 3 {
		f.Drop(t, fmt.Sprintf("f%d.npy", i), devicetest.Batch(rng, "alice"))
	}
	done := filepath.Join(f.Spool, spool.DirDone)
	// Well before the server's idle timeout (60 s) ends the connections.
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	testutil.WaitForCtx(t, wctx, "three batches decided while the connections are open", func() bool { return len(testutil.Names(t, done)) == 3 })
	if s := p.stderr.String(); strings.Contains(s, "too many open files") {
		t.Errorf("the daemon ran out of file descriptors:\n%s", s)
	}
	p.stop()
	if len(devicetest.ReadJournal(t, f.Journal)) != 3 {
		t.Errorf("journal: want 3 lines")
	}
}

// TestDaemonMetricsAddressNotYetAssigned: metrics.listen on the Pi's LAN
// address, which it does not have yet at boot before DHCP gave it, does
// not keep the daemon from starting and deciding (it exited at start, and
// systemd gave up after five such starts); the log says so.
func TestDaemonMetricsAddressNotYetAssigned(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	_, port, _ := net.SplitHostPort(testutil.FreeAddr(t))
	f := devicetest.NewFixture(t, fmt.Sprintf("\n[metrics]\nlisten = \"192.0.2.1:%s\"\n", port)) // TEST-NET-1: no machine's
	p := startDaemon(t, ctx, f)
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(43, 44)), "alice"))
	done := filepath.Join(f.Spool, spool.DirDone)
	testutil.WaitForCtx(t, ctx, "the batch decided", func() bool { return len(testutil.Names(t, done)) == 1 })
	if s := p.stderr.String(); !strings.Contains(s, "metrics.listen is not an address of this machine (yet)") {
		t.Errorf("the log does not say the address is not there:\n%s", s)
	}
	p.stop()
}
