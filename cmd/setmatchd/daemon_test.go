package main

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

// The end-to-end tests run the real setmatchd as a child process on a
// temporary spool with the log GPIO backend.
//
// SETMATCHD_BIN names the binary to test; the Makefile builds it outside the
// test binary (for arm64 too) and sets it. SETMATCHD_EXEC, if set, is the
// program that runs it (an emulator such as qemu-aarch64-static: without
// binfmt_misc, an arm64 child of a test binary that runs under qemu-user
// cannot be started directly). Without SETMATCHD_BIN, TestMain builds the
// daemon with `go build`, but only when this test binary runs natively:
// under qemu-user, fork/exec of the go command can hang. A daemon that
// cannot be built or found fails the tests.
var (
	daemonBin    string   // the binary to run
	daemonPrefix []string // the emulator to run it with, if any
	daemonErr    error    // why there is no binary
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "setmatchd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	daemonBin, daemonPrefix, daemonErr = findDaemon(dir)
	code := m.Run()
	os.RemoveAll(dir)
	devicetest.RemoveBenchModel()
	os.Exit(code)
}

// findDaemon returns the daemon named by SETMATCHD_BIN, or builds it into
// dir, with the emulator to run it with.
func findDaemon(dir string) (bin string, prefix []string, err error) {
	if emu := os.Getenv("SETMATCHD_EXEC"); emu != "" {
		prefix = strings.Fields(emu)
	}
	if bin = os.Getenv("SETMATCHD_BIN"); bin != "" {
		if bin, err = filepath.Abs(bin); err != nil {
			return "", nil, err
		}
		if _, err := os.Stat(bin); err != nil {
			return "", nil, fmt.Errorf("SETMATCHD_BIN: %w (make test-host and make test-arm64 build it)", err)
		}
		if prefix == nil {
			prefix, err = emulatorFor(bin)
		}
		return bin, prefix, err
	}
	gobin, err := goCommand()
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "setmatchd")
	cmd := exec.Command(gobin, "build", "-o", bin, "setmatch/cmd/setmatchd")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("building setmatchd: %v\n%s", err, out)
	}
	if prefix == nil {
		prefix, err = emulatorFor(bin)
	}
	return bin, prefix, err
}

// goCommand returns the go command for building the daemon, and an error if
// this test binary runs under an emulator (its architecture is not the go
// command's): SETMATCHD_BIN must then name a daemon built beforehand.
func goCommand() (string, error) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		if gobin, err = exec.LookPath("go"); err != nil {
			return "", fmt.Errorf("no go command to build setmatchd (%v): set SETMATCHD_BIN to a built setmatchd", err)
		}
	}
	f, err := elf.Open(gobin)
	if err != nil {
		return gobin, nil // not ELF (another OS): the go command runs natively
	}
	defer f.Close()
	native := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "386": elf.EM_386,
		"arm": elf.EM_ARM, "riscv64": elf.EM_RISCV, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390}[runtime.GOARCH]
	if f.Machine != native {
		return "", fmt.Errorf("this %s test binary runs under an emulator (the go command is %v): set SETMATCHD_BIN to a setmatchd built for %s (make test-arm64 does), it is not built from here", runtime.GOARCH, f.Machine, runtime.GOARCH)
	}
	return gobin, nil
}

// emulatorFor returns the emulator needed to run bin: none if it runs
// directly, else qemu-<arch>-static if it is installed.
func emulatorFor(bin string) ([]string, error) {
	err := exec.Command(bin, "-version").Run()
	if err == nil {
		return nil, nil
	}
	if !errors.Is(err, syscall.ENOEXEC) && !strings.Contains(err.Error(), "exec format error") {
		return nil, fmt.Errorf("running %s -version: %w", bin, err)
	}
	emu, lerr := exec.LookPath("qemu-" + map[string]string{"arm64": "aarch64", "amd64": "x86_64"}[runtime.GOARCH] + "-static")
	if lerr != nil {
		return nil, fmt.Errorf("setmatchd built for %s does not run here (%v) and no emulator was found (%v): set SETMATCHD_EXEC", runtime.GOARCH, err, lerr)
	}
	return []string{emu}, nil
}

// daemonCommand returns the command that runs the daemon with args; it is
// killed when ctx ends.
func daemonCommand(ctx context.Context, t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	if daemonErr != nil {
		t.Fatalf("no setmatchd to test: %v", daemonErr)
	}
	if os.Geteuid() == 0 && len(args) > 0 && args[0] == "-config" {
		args = append([]string{"-allow-root"}, args...) // tests run as root in CI containers
	}
	argv := append(append(append([]string(nil), daemonPrefix...), daemonBin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// e2eBudget is the deadline of one end-to-end test: the tests take seconds
// natively and well under a minute each under qemu-user, and a hang must
// fail the test long before go test's -timeout ends the whole binary.
const e2eBudget = 3 * time.Minute

// testContext returns a context that ends at the test's own deadline:
// budget from now, and earlier if go test's -timeout would strike first.
func testContext(t testing.TB, budget time.Duration) context.Context {
	t.Helper()
	d := budget
	if tt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := tt.Deadline(); ok {
			d = min(d, time.Until(dl)-30*time.Second)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// notifySocket is a NOTIFY_SOCKET for a child: it collects what the child
// sends with sd_notify.
type notifySocket struct {
	path string
	conn *net.UnixConn
	mu   sync.Mutex
	msgs []string
	n    int // sync marks sent
}

func newNotifySocket(t testing.TB) *notifySocket {
	t.Helper()
	// A short directory: socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "sdn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ns := &notifySocket{path: filepath.Join(dir, "notify")}
	ns.conn, err = net.ListenUnixgram("unixgram", &net.UnixAddr{Name: ns.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.conn.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			n, _, err := ns.conn.ReadFromUnix(buf)
			if err != nil {
				return
			}
			ns.mu.Lock()
			ns.msgs = append(ns.msgs, strings.Split(string(buf[:n]), "\n")...)
			ns.mu.Unlock()
		}
	}()
	return ns
}

func (ns *notifySocket) count(state string) int {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	n := 0
	for _, m := range ns.msgs {
		if m == state {
			n++
		}
	}
	return n
}

// drain returns once every message sent before the call has been read: it
// sends a mark of its own and waits for the reader to see it (a datagram
// socket queues messages in the order they were sent).
func (ns *notifySocket) drain(t testing.TB, ctx context.Context) {
	t.Helper()
	ns.mu.Lock()
	ns.n++
	mark := fmt.Sprintf("TEST_DRAIN=%d", ns.n)
	ns.mu.Unlock()
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: ns.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(mark)); err != nil {
		t.Fatal(err)
	}
	testutil.WaitForCtx(t, ctx, "the notify socket to be read", func() bool { return ns.count(mark) == 1 })
}

type daemonProc struct {
	t      testing.TB
	ctx    context.Context
	cmd    *exec.Cmd
	stderr *testutil.LockedBuffer // the child's standard error
	notify *notifySocket
	done   chan struct{}
	err    error
}

// startDaemon starts setmatchd on f's config, with env added to its
// environment, and waits for READY=1. The daemon is killed when ctx ends.
func startDaemon(t testing.TB, ctx context.Context, f *devicetest.Fixture, env ...string) *daemonProc {
	t.Helper()
	ns := newNotifySocket(t)
	cmd := daemonCommand(ctx, t, "-config", f.Config)
	// No runtime directory but one env gives: a test run under a systemd
	// unit with RuntimeDirectory= must not write into that unit's.
	cmd.Env = append(append(os.Environ(), "NOTIFY_SOCKET="+ns.path, "RUNTIME_DIRECTORY="), env...)
	p := &daemonProc{t: t, ctx: ctx, cmd: cmd, stderr: &testutil.LockedBuffer{}, notify: ns, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	testexec.Start(t, ctx, cmd)
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("setmatchd stderr:\n%s", p.stderr)
		}
	})
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for ns.count("READY=1") == 0 {
		select {
		case <-p.done:
			t.Fatalf("setmatchd exited before READY=1: %v\n%s", p.err, p.stderr)
		case <-ctx.Done():
			t.Fatalf("no READY=1 from setmatchd: %v\n%s", context.Cause(ctx), p.stderr)
		case <-tick.C:
		}
	}
	return p
}

func (p *daemonProc) signal(s os.Signal) {
	if err := p.cmd.Process.Signal(s); err != nil {
		p.t.Fatal(err)
	}
}

// stop sends SIGTERM and checks a clean exit with STOPPING=1.
func (p *daemonProc) stop() {
	p.t.Helper()
	p.signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-p.ctx.Done():
		p.t.Fatalf("setmatchd did not stop after SIGTERM: %v\n%s", context.Cause(p.ctx), p.stderr)
	}
	if p.err != nil {
		p.t.Fatalf("setmatchd exited with %v\n%s", p.err, p.stderr)
	}
	// The daemon has exited, but the reader may not have read all it sent.
	p.notify.drain(p.t, p.ctx)
	if n := p.notify.count("STOPPING=1"); n != 1 {
		p.t.Errorf("STOPPING=1 sent %d times", n)
	}
}
