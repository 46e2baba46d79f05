package match

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testutil"
)

// BenchmarkQueryRSS matches one query of n frames in D dimensions against a
// gallery of 100 sets of 100 frames, each in a child process of its own, and
// reports the child's peak resident memory (VmHWM) and the time of the
// query. The child gives up after SETMATCH_RSS_LIMIT (default 10m) and
// reports what it reached; the figures in docs/PERFORMANCE.md come from
//
//	go test -run '^$' -bench QueryRSS -benchtime 1x ./match/
func BenchmarkQueryRSS(b *testing.B) {
	for _, c := range []struct{ n, d int }{{1000, 32}, {1000, 400}, {10000, 32}, {10000, 400}, {100000, 32}, {100000, 400}} {
		b.Run(fmt.Sprintf("n=%d/D=%d", c.n, c.d), func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run", "^TestQueryRSSChild$", "-test.v")
				cmd.Env = append(os.Environ(), fmt.Sprintf("SETMATCH_RSS_CHILD=%d,%d", c.n, c.d))
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
				var hwm, secs float64
				var done bool
				for _, line := range strings.Split(string(out), "\n") {
					if i := strings.Index(line, "RSS "); i >= 0 {
						fmt.Sscanf(line[i:], "RSS %f MiB %f s %t", &hwm, &secs, &done)
					}
				}
				b.ReportMetric(hwm, "peak-rss-MiB")
				b.ReportMetric(secs, "query-s")
				if !done {
					b.ReportMetric(1, "unfinished")
				}
			}
		})
	}
}

// TestQueryRSSChild is the child of BenchmarkQueryRSS (skipped otherwise).
func TestQueryRSSChild(t *testing.T) {
	spec := os.Getenv("SETMATCH_RSS_CHILD")
	if spec == "" {
		t.Skip("run by BenchmarkQueryRSS")
	}
	var n, d int
	fmt.Sscanf(spec, "%d,%d", &n, &d)
	limit := 10 * time.Minute
	if s := os.Getenv("SETMATCH_RSS_LIMIT"); s != "" {
		limit, _ = time.ParseDuration(s)
	}
	rng := rand.New(rand.NewPCG(81, 82))
	sets := make([]*KDE, 100)
	for k := range sets {
		sets[k] = mustKDE(t, testutil.RandSet(rng, 100, d, rng.Float64(), 1), 1)
	}
	g, err := NewGallery(sets)
	if err != nil {
		t.Fatal(err)
	}
	q := mustKDE(t, testutil.RandSet(rng, n, d, 0.5, 1), 1)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	_, err = g.CompareContext(ctx, q, nil)
	secs := time.Since(start).Seconds()
	status, _ := os.ReadFile("/proc/self/status")
	var kb float64
	for _, line := range strings.Split(string(status), "\n") {
		fmt.Sscanf(line, "VmHWM: %f kB", &kb)
	}
	fmt.Printf("RSS %.1f MiB %.2f s %t\n", kb/1024, secs, err == nil)
}
