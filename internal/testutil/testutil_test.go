package testutil

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a testing.TB that records Fatalf and Skipf instead of
// ending the goroutine, to test the helpers' failures.
type recorder struct {
	testing.TB
	fatal, skip string
}

var _ testing.TB = (*recorder)(nil)

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = fmt.Sprintf(format, a...) }
func (r *recorder) Skipf(format string, a ...any)  { r.skip = fmt.Sprintf(format, a...) }

func TestLockedBufferConcurrentWrites(t *testing.T) {
	var b LockedBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := len(b.Bytes()); n != 800 {
		t.Errorf("%d bytes, want 800", n)
	}
	c := b.Bytes()
	c[0] = 'y'
	if b.String()[0] != 'x' {
		t.Error("Bytes returned the buffer itself, not a copy")
	}
}

func TestWaitFor(t *testing.T) {
	start := time.Now()
	WaitFor(t, 10*time.Second, "a clock", func() bool { return time.Since(start) > 30*time.Millisecond })

	var r recorder
	WaitFor(&r, 30*time.Millisecond, "never", func() bool { return false })
	if !strings.Contains(r.fatal, "never") || !strings.Contains(r.fatal, "timed out after 30ms") {
		t.Errorf("failure %q: want what and the timeout", r.fatal)
	}

	r = recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	WaitForCtx(&r, ctx, "never", func() bool { return false })
	if !strings.Contains(r.fatal, "gave up waiting for never: context canceled") {
		t.Errorf("failure %q", r.fatal)
	}
}

// TestSetsMake: the sets have the shape asked for, class by class, and
// the first feature carries the class.
func TestSetsMake(t *testing.T) {
	spec := Sets{Classes: 3, PerClass: 4, Frames: 50, Dim: 5, Sep: 10, Spread: 0.5, Noise: 2}
	sets, labels := spec.Make(rand.New(rand.NewPCG(1, 2)))
	if len(sets) != 12 || len(labels) != 12 {
		t.Fatalf("%d sets, %d labels; want 12", len(sets), len(labels))
	}
	for i, x := range sets {
		if labels[i] != i/4 {
			t.Errorf("set %d: class %d, want %d", i, labels[i], i/4)
		}
		if n, d := x.Dims(); n != 50 || d != 5 {
			t.Fatalf("set %d is %d×%d", i, n, d)
		}
		var m0, sd1 float64
		for r := range 50 {
			m0 += x.At(r, 0) / 50
			sd1 += x.At(r, 1) * x.At(r, 1) / 50
		}
		if math.Abs(m0-10*float64(labels[i])) > 0.5 {
			t.Errorf("set %d: first feature's mean %v, want near %v", i, m0, 10*labels[i])
		}
		if sd1 = math.Sqrt(sd1); sd1 < 1.3 || sd1 > 2.7 {
			t.Errorf("set %d: second feature's spread %v, want near 2", i, sd1)
		}
	}
	again, _ := spec.Make(rand.New(rand.NewPCG(1, 2)))
	if again[7].At(3, 2) != sets[7].At(3, 2) {
		t.Error("the same seed drew other sets")
	}
}

func TestTool(t *testing.T) {
	if p := Tool(t, "sh", "dash"); !strings.HasSuffix(p, "/sh") {
		t.Errorf("Tool(sh) = %q", p)
	}
	t.Setenv(EnvRequireTools, "")
	var r recorder
	if p := Tool(&r, "setmatch-no-such-tool", "nothing"); p != "" || r.fatal != "" || !strings.Contains(r.skip, "apt-get install -y nothing") {
		t.Errorf("missing tool: %q, fatal %q, skip %q; want a skip that names the package", p, r.fatal, r.skip)
	}
	t.Setenv(EnvRequireTools, "1")
	r = recorder{}
	if Tool(&r, "setmatch-no-such-tool", "nothing"); r.skip != "" || !strings.Contains(r.fatal, EnvRequireTools) {
		t.Errorf("missing tool with %s set: fatal %q, skip %q; want a failure", EnvRequireTools, r.fatal, r.skip)
	}
}

// TestCPUTime: the process has used CPU time by now, and the count does
// not go back across work.
func TestCPUTime(t *testing.T) {
	c0 := CPUTime()
	x := 0.0
	for i := range 1_000_000 {
		x += math.Sqrt(float64(i))
	}
	c1 := CPUTime()
	if c0 <= 0 || c1 < c0 {
		t.Errorf("CPUTime %v, then %v after work (sum %g): want above 0 and not less", c0, c1, x)
	}
}

// TestCPUs: the count is set for the rest of the test and restored
// when it ends.
func TestCPUs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Run("inner", func(t *testing.T) {
		CPUs(t, before+3)
		if got := runtime.GOMAXPROCS(0); got != before+3 {
			t.Errorf("GOMAXPROCS %d, want %d", got, before+3)
		}
	})
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after the test, want %d back", got, before)
	}
}
