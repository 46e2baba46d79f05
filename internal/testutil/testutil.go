// Package testutil holds what the tests of several packages share: a
// buffer that goroutines write while the test reads it, polling for a
// condition with a deadline and the deadline of a call that could block,
// the entries of a folder, random labelled sets, a named pipe, a free
// loopback address, a test run as on a machine of n CPUs, the process's
// CPU time, and the host tools a test needs. It is for tests only: no
// program imports it.
package testutil

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// LockedBuffer is a bytes.Buffer safe for concurrent use: the standard
// output or error of a child process, or a log sink, that other goroutines
// write while the test reads it. The zero value is ready to use.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Bytes returns a copy of what was written so far.
func (l *LockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// pollEvery is how often WaitFor and WaitForCtx test their condition.
const pollEvery = 10 * time.Millisecond

// WaitFor polls cond until it holds, and fails t once timeout has passed
// without it. what names the condition in the failure.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeoutCause(context.Background(), timeout, fmt.Errorf("timed out after %v", timeout))
	defer cancel()
	WaitForCtx(t, ctx, what, cond)
}

// WaitForCtx polls cond until it holds, and fails t when ctx ends first.
func WaitForCtx(t testing.TB, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			if cond() { // it may have come true while we waited
				return
			}
			t.Fatalf("gave up waiting for %s: %v", what, context.Cause(ctx))
			return
		case <-tick.C:
		}
	}
}

// Within runs f and fails t if it has not returned after timeout: the
// deadline of a call that could block (an open of a FIFO). f must not call
// t.Fatal; it is left running when t fails.
func Within(t testing.TB, timeout time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	WaitFor(t, timeout, what, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}

// FIFO makes a named pipe at dir/name and returns its path, or skips t
// where the file system has none: a reader's test that a FIFO in a file's
// place is refused, not waited on.
func FIFO(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := mkfifo(p); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	return p
}

// Symlink makes a symbolic link dir/name that leads to target (as
// os.Symlink writes it: relative to the link's folder unless absolute)
// and returns its path.
func Symlink(t testing.TB, dir, name, target string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// Names lists the entries of dir (none if it does not exist).
func Names(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

// RandSet returns an n×d set whose entries are drawn from N(mean, scale²),
// row by row.
func RandSet(rng *rand.Rand, n, d int, mean, scale float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, mean+scale*rng.NormFloat64())
		}
	}
	return x
}

// Sets describes random labelled sets: Classes × PerClass sets of Frames
// frames in Dim features, where only the first feature tells the classes
// apart.
type Sets struct {
	Classes, PerClass, Frames, Dim int
	// Sep is the distance between neighbouring classes' centres in the
	// first feature: class c's frames have it near Sep·c.
	Sep float64
	// Spread is the standard deviation of the first feature around its
	// class centre; Noise that of every other feature around 0.
	Spread, Noise float64
}

// Make draws the sets, class by class (PerClass sets of class 0 first),
// and returns them with their classes 0 … Classes−1. Each set is drawn as
// RandSet(rng, Frames, Dim, 0, Noise), and then its first feature frame by
// frame as N(Sep·c, Spread²), so the same rng gives the same sets.
func (s Sets) Make(rng *rand.Rand) (sets []*mat.Dense, labels []int) {
	for c := range s.Classes {
		for range s.PerClass {
			x := RandSet(rng, s.Frames, s.Dim, 0, s.Noise)
			for i := range s.Frames {
				x.Set(i, 0, s.Sep*float64(c)+s.Spread*rng.NormFloat64())
			}
			sets, labels = append(sets, x), append(labels, c)
		}
	}
	return sets, labels
}

// EnvRequireTools, when set (.ci/run sets it), turns a missing host tool
// from a skipped test into a failed one: on a CI machine, which installs
// them all, every test that needs one must run.
const EnvRequireTools = "SETMATCH_TEST_REQUIRE_TOOLS"

// toolDirs are looked in after PATH: administrators' tools (mosquitto)
// live there, and PATH may lack them for an ordinary user.
var toolDirs = []string{"/usr/sbin", "/sbin"}

// Tool returns the path of the host program name, which a test needs
// beside Go (make, systemd-analyze, lintian, mosquitto, …): from PATH, or
// else from /usr/sbin or /sbin. When it is not installed Tool skips t,
// naming pkg, the Debian package that brings it, or fails t when
// EnvRequireTools is set.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range toolDirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if os.Getenv(EnvRequireTools) != "" {
		t.Fatalf("%s is not installed, and %s says every tool the tests need must be (apt-get install -y %s; .ci/run installs it)", name, EnvRequireTools, pkg)
		return ""
	}
	t.Skipf("%s is not installed: an optional extra of the tests (apt-get install -y %s; .ci/run installs it and sets %s, under which this test fails instead)", name, pkg, EnvRequireTools)
	return ""
}

// FreeAddr returns a loopback address, 127.0.0.1:PORT, whose TCP port was
// free a moment ago, for a server a test starts (another process may take
// it in between: a test that must not fail so retries).
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// CPUs runs the rest of the test as on a machine of n CPUs (GOMAXPROCS
// n), so that the worker counts it compares, up to n, are not taken down
// to the machine's own (par.Workers takes at most one per CPU); the count
// is restored when the test ends.
func CPUs(t testing.TB, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}
