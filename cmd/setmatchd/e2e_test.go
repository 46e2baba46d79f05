package device

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
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
)

// The end-to-end tests build the real setmatchd once (TestMain) and run it
// as a child process on a temporary spool with the log GPIO backend.
var (
	daemonBin     string   // path of the built binary, "" if it could not be built
	daemonPrefix  []string // emulator to run it with, if any
	daemonSkipMsg string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "setmatchd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDaemon(dir)
	code := m.Run()
	os.RemoveAll(dir)
	if benchModelOnce.dir != "" {
		os.RemoveAll(benchModelOnce.dir)
	}
	os.Exit(code)
}

// buildDaemon builds ./cmd/setmatchd for the architecture of this test
// binary. Under qemu-user (make test-arm64) the built arm64 binary cannot be
// exec'ed directly unless binfmt_misc is set up: it is then run through
// qemu-aarch64-static (or $SETMATCH_TEST_EXEC) if present.
func buildDaemon(dir string) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		if gobin, err = exec.LookPath("go"); err != nil {
			daemonSkipMsg = "no go command to build setmatchd: " + err.Error()
			return
		}
	}
	bin := filepath.Join(dir, "setmatchd")
	cmd := exec.Command(gobin, "build", "-o", bin, "setmatch/cmd/setmatchd")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+runtime.GOARCH, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		daemonSkipMsg = fmt.Sprintf("building setmatchd: %v\n%s", err, out)
		return
	}
	if err := exec.Command(bin, "-version").Run(); err != nil {
		if !errors.Is(err, syscall.ENOEXEC) && !strings.Contains(err.Error(), "exec format error") {
			daemonSkipMsg = "running setmatchd -version: " + err.Error()
			return
		}
		emu := os.Getenv("SETMATCH_TEST_EXEC")
		if emu == "" {
			emu, _ = exec.LookPath("qemu-" + map[string]string{"arm64": "aarch64", "amd64": "x86_64"}[runtime.GOARCH] + "-static")
		}
		if emu == "" {
			daemonSkipMsg = "setmatchd built for " + runtime.GOARCH + " does not run here and no emulator found"
			return
		}
		daemonPrefix = []string{emu}
	}
	daemonBin = bin
}

// notifySocket is a NOTIFY_SOCKET for a child: it collects what the child
// sends with sd_notify.
type notifySocket struct {
	path string
	conn *net.UnixConn
	mu   sync.Mutex
	msgs []string
}

func newNotifySocket(t testing.TB) *notifySocket {
	t.Helper()
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

// lockedBuffer collects the child's standard error.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type daemonProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stderr *lockedBuffer
	notify *notifySocket
	done   chan struct{}
	err    error
}

// startDaemon starts setmatchd on f's config, with env added to its
// environment, and waits for READY=1.
func startDaemon(t testing.TB, f *fixture, env ...string) *daemonProc {
	t.Helper()
	if daemonBin == "" {
		t.Skip(daemonSkipMsg)
	}
	ns := newNotifySocket(t)
	args := append(append([]string(nil), daemonPrefix...), daemonBin, "-config", f.config)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), "NOTIFY_SOCKET="+ns.path), env...)
	p := &daemonProc{t: t, cmd: cmd, stderr: &lockedBuffer{}, notify: ns, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
	deadline := time.After(60 * time.Second)
	for ns.count("READY=1") == 0 {
		select {
		case <-p.done:
			t.Fatalf("setmatchd exited before READY=1: %v\n%s", p.err, p.stderr)
		case <-deadline:
			t.Fatalf("no READY=1 from setmatchd\n%s", p.stderr)
		case <-time.After(10 * time.Millisecond):
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
	case <-time.After(60 * time.Second):
		p.t.Fatalf("setmatchd did not stop after SIGTERM\n%s", p.stderr)
	}
	if p.err != nil {
		p.t.Fatalf("setmatchd exited with %v\n%s", p.err, p.stderr)
	}
	if p.notify.count("STOPPING=1") != 1 {
		p.t.Errorf("STOPPING=1 sent %d times", p.notify.count("STOPPING=1"))
	}
}

const e2eWait = 60 * time.Second

func TestDaemonBatches(t *testing.T) {
	f := newFixture(t, "")
	rng := rand.New(rand.NewPCG(11, 12))
	labels := []string{"alice", "bob", "carol", "stranger", "alice", "carol", "bob", "stranger"}
	want := map[string]string{}
	// Two batches are waiting before the daemon starts.
	for i, l := range labels[:2] {
		name := fmt.Sprintf("pre%d.npy", i)
		f.drop(t, name, batch(rng, l))
		want[name] = expected(l)
	}
	// As systemd does with WatchdogSec=0.2s.
	p := startDaemon(t, f, "WATCHDOG_USEC=200000")
	for i, l := range labels[2:] {
		name := fmt.Sprintf("b%d.npy", i)
		f.drop(t, name, batch(rng, l))
		want[name] = expected(l)
	}
	done := filepath.Join(f.spool, DirDone)
	waitFor(t, e2eWait, "all batches in done/", func() bool { return len(names(t, done)) == len(want) })

	// A malformed batch goes to failed/ with a reason; the daemon goes on.
	os.WriteFile(filepath.Join(f.spool, DirTmp, "broken.csv"), []byte("1,2,3\n4,five,6\n"), 0o644)
	os.Rename(filepath.Join(f.spool, DirTmp, "broken.csv"), filepath.Join(f.spool, DirNew, "broken.csv"))
	waitFor(t, e2eWait, "failed/broken.csv.err", func() bool {
		_, err := os.Stat(filepath.Join(f.spool, DirFailed, "broken.csv.err"))
		return err == nil
	})
	reason, _ := os.ReadFile(filepath.Join(f.spool, DirFailed, "broken.csv.err"))
	if !strings.Contains(string(reason), "five") && !strings.Contains(string(reason), "line 2") {
		t.Errorf("reason %q does not say what is wrong", reason)
	}
	if _, err := os.Stat(filepath.Join(f.spool, DirFailed, "broken.csv")); err != nil {
		t.Errorf("malformed batch not kept in failed/: %v", err)
	}
	f.drop(t, "after.npy", batch(rng, "carol"))
	want["after.npy"] = "carol"
	waitFor(t, e2eWait, "the batch after the failure", func() bool { return len(names(t, done)) == len(want) })
	waitFor(t, e2eWait, "watchdog pings", func() bool { return p.notify.count("WATCHDOG=1") >= 2 })
	p.stop()

	recs := readJournal(t, f.journal)
	got := map[string]string{}
	for _, r := range recs {
		if r.File == "broken.csv" {
			if r.Decision != "failed" || r.Reason == "" {
				t.Errorf("journal for broken.csv: %+v", r)
			}
			continue
		}
		if _, dup := got[r.File]; dup {
			t.Errorf("%s journalled twice", r.File)
		}
		got[r.File] = r.Decision
		if len(r.SHA256) != 64 || r.Frames != 30 || r.Model == "" || r.LatencyMS < 0 || r.Score == nil {
			t.Errorf("incomplete journal line %+v", r)
		}
		if r.Known && r.RunnerUp == "" {
			t.Errorf("no runner-up in %+v", r)
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: decision %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("journal has %d batches, want %d", len(got), len(want))
	}
	// The log backend records the pulses.
	if s := p.stderr.String(); !strings.Contains(s, "pin=GPIO22") || !strings.Contains(s, "pin=GPIO27") {
		t.Errorf("no GPIO transitions logged:\n%s", s)
	}
	if n := len(names(t, filepath.Join(f.spool, DirCur))) + len(names(t, filepath.Join(f.spool, DirNew))); n != 0 {
		t.Errorf("%d files left in new/ and cur/", n)
	}
}

func TestDaemonReload(t *testing.T) {
	f := newFixture(t, "")
	rng := rand.New(rand.NewPCG(13, 14))
	p := startDaemon(t, f)
	done := filepath.Join(f.spool, DirDone)

	// A broken config is refused on SIGHUP; the old one goes on working.
	os.WriteFile(f.config, []byte(f.configText("")+"\n[spool\n"), 0o644)
	p.signal(syscall.SIGHUP)
	waitFor(t, e2eWait, "the reload to fail", func() bool { return strings.Contains(p.stderr.String(), "reload failed") })
	waitFor(t, e2eWait, "READY=1 after the reload", func() bool { return p.notify.count("READY=1") == 2 })
	if n := p.notify.count("RELOADING=1"); n != 1 {
		t.Errorf("RELOADING=1 sent %d times, want 1", n)
	}
	f.drop(t, "one.npy", batch(rng, "alice"))
	waitFor(t, e2eWait, "one.npy", func() bool { return len(names(t, done)) == 1 })

	// A new model renamed over the old one is used for the next batch.
	f.writeConfig(t, "")
	oldID := readJournal(t, f.journal)[0].Model
	writeTinyModel(t, f.model, true)
	waitFor(t, e2eWait, "the model reload", func() bool { return strings.Count(p.stderr.String(), "msg=reloaded") == 1 })
	f.drop(t, "two.npy", batch(rng, "alice"))
	waitFor(t, e2eWait, "two.npy", func() bool { return len(names(t, done)) == 2 })
	p.stop()

	recs := readJournal(t, f.journal)
	if len(recs) != 2 {
		t.Fatalf("journal: %+v", recs)
	}
	if recs[0].Decision != "alice" || recs[1].Decision != "bob" {
		t.Errorf("decisions %q, %q: want alice with the first model, bob with the swapped one", recs[0].Decision, recs[1].Decision)
	}
	if recs[1].Model == oldID {
		t.Error("journal names the old model after the swap")
	}
}

func TestDaemonStopLosesNothing(t *testing.T) {
	f := newFixture(t, "")
	rng := rand.New(rand.NewPCG(15, 16))
	p := startDaemon(t, f)
	n := 200
	if testing.Short() {
		n = 60
	}
	var paths []string
	for i := range n {
		paths = append(paths, f.writeTmp(t, fmt.Sprintf("s%03d.npy", i), batch(rng, "bob")))
	}
	for _, src := range paths {
		if err := os.Rename(src, filepath.Join(f.spool, DirNew, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, e2eWait, "a first batch", func() bool { return len(names(t, filepath.Join(f.spool, DirDone))) > 0 })
	p.stop()
	if left := names(t, filepath.Join(f.spool, DirCur)); len(left) != 0 {
		t.Errorf("a clean stop left %v in cur/", left)
	}
	t.Logf("stopped with %d of %d batches done", len(names(t, filepath.Join(f.spool, DirDone))), n)
	check := func(final bool) {
		journalled := map[string]int{}
		for _, r := range readJournal(t, f.journal) {
			journalled[r.File]++
		}
		seen := map[string]string{}
		for _, d := range []string{DirNew, DirCur, DirDone} {
			for _, name := range names(t, filepath.Join(f.spool, d)) {
				if prev, ok := seen[name]; ok {
					t.Errorf("%s in both %s/ and %s/", name, prev, d)
				}
				seen[name] = d
				if d == DirDone && journalled[name] == 0 {
					t.Errorf("%s in done/ without a journal line", name)
				}
			}
		}
		if len(seen) != n {
			t.Errorf("%d of %d batches found in new/, cur/ and done/", len(seen), n)
		}
		for name, c := range journalled {
			if c != 1 {
				t.Errorf("%s journalled %d times", name, c)
			}
			if seen[name] != DirDone {
				t.Errorf("%s journalled but in %s/", name, seen[name])
			}
		}
		if final && len(journalled) != n {
			t.Errorf("after restart, %d of %d batches journalled", len(journalled), n)
		}
	}
	check(false)
	// The rest is handled after a restart.
	p = startDaemon(t, f)
	waitFor(t, e2eWait, "all batches", func() bool { return len(names(t, filepath.Join(f.spool, DirDone))) == n })
	p.stop()
	check(true)
}

func TestDaemonBurst(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 100
	}
	f := newFixture(t, "")
	rng := rand.New(rand.NewPCG(17, 18))
	p := startDaemon(t, f)
	// Write them all into tmp/ first, then rename them in as fast as possible.
	var paths []string
	for i := range n {
		paths = append(paths, f.writeTmp(t, fmt.Sprintf("burst%03d.npy", i), batch(rng, "carol")))
	}
	for _, src := range paths {
		if err := os.Rename(src, filepath.Join(f.spool, DirNew, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 3*e2eWait, "all batches", func() bool { return len(names(t, filepath.Join(f.spool, DirDone))) == n })
	p.stop()
	recs := readJournal(t, f.journal)
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.File] {
			t.Errorf("%s journalled twice", r.File)
		}
		seen[r.File] = true
		if r.Decision != "carol" {
			t.Errorf("%s: %s", r.File, r.Decision)
		}
	}
	if len(recs) != n {
		t.Errorf("journal has %d lines, want %d", len(recs), n)
	}
}

func TestDaemonCheck(t *testing.T) {
	if daemonBin == "" {
		t.Skip(daemonSkipMsg)
	}
	f := newFixture(t, "")
	run := func() (string, error) {
		args := append(append([]string(nil), daemonPrefix...), daemonBin, "-check", "-config", f.config)
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if err != nil || !strings.Contains(out, "6 gallery sets") || !strings.Contains(out, "ok") {
		t.Fatalf("-check on a good config: %v\n%s", err, out)
	}
	f.writeConfig(t, "[decision]\nmin_frames = 0\n")
	out, err = run()
	if err == nil || !strings.Contains(out, "decision.min_frames") {
		t.Fatalf("-check on a bad config: %v\n%s", err, out)
	}
	f.writeConfig(t, "")
	os.WriteFile(f.model, []byte("not a model"), 0o644)
	out, err = run()
	if err == nil || !strings.Contains(out, "model") {
		t.Fatalf("-check with a bad model: %v\n%s", err, out)
	}
}
