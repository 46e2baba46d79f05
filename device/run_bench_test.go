package device

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"periph.io/x/conn/v3/gpio"

	"setmatch/config"
	"setmatch/match"
	"setmatch/model"
)

// The benchmark gallery: 1000 sets of 100 frames in d = 20 (100 labels of 10
// sets), raw features D = 100; batches of 100 frames.
const (
	benchSets   = 1000
	benchLabels = 100
	benchFrames = 100
	benchd      = 20
	benchD      = 100
)

var benchModelOnce struct {
	sync.Once
	dir     string
	centers [][]float64
	err     error
}

// benchModelFile writes the benchmark model once per test binary.
func benchModelFile(b testing.TB) (string, [][]float64) {
	o := &benchModelOnce
	o.Do(func() {
		o.dir, o.err = os.MkdirTemp("", "setmatch-bench-")
		if o.err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(21, 22))
		w := mat.NewDense(benchD, benchd, nil)
		for j := range benchd {
			w.Set(j, j, 1)
		}
		m := &model.Model{Divergence: match.Hellinger, QueryBandwidth: match.BandwidthRule{Kind: match.Fixed, Fixed: 1},
			W: w, Mean: make([]float64, benchD), Threshold: 0.9, Meta: model.Meta{Tool: "device bench"}}
		for l := range benchLabels {
			c := make([]float64, benchD)
			for j := range benchd {
				c[j] = 4 * rng.NormFloat64()
			}
			o.centers = append(o.centers, c)
			for k := range benchSets / benchLabels {
				x := mat.NewDense(benchFrames, benchd, nil)
				for i := range benchFrames {
					for j := range benchd {
						x.Set(i, j, c[j]+rng.NormFloat64())
					}
				}
				m.Sets = append(m.Sets, model.Set{Label: fmt.Sprintf("L%03d", l), Name: fmt.Sprint(k), Samples: x, Bandwidth: 1})
			}
		}
		o.err = model.WriteFile(filepath.Join(o.dir, "model.smm"), m)
	})
	if o.err != nil {
		b.Fatal(o.err)
	}
	return filepath.Join(o.dir, "model.smm"), o.centers
}

func benchBatch(rng *rand.Rand, c []float64) *mat.Dense {
	x := mat.NewDense(benchFrames, benchD, nil)
	for i := range benchFrames {
		for j := range benchD {
			x.Set(i, j, c[j]+rng.NormFloat64())
		}
	}
	return x
}

// benchRunner starts an in-process Runner on the benchmark model with a
// recording GPIO driver whose active transitions on the match and unknown
// pins are sent on the returned channel.
func benchRunner(b *testing.B, workers int) (*fixture, *Runner, chan time.Time, chan *Record) {
	path, _ := benchModelFile(b)
	f := newFixture(b, "")
	f.model = path
	f.writeConfig(b, "")
	cfg, err := config.Load(f.config)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Log.Level = "warn"
	cfg.GPIO.Pulse.Duration = time.Millisecond
	cfg.GPIO.LabelPins = nil
	cfg.Spool.Done = "delete"
	pulse := make(chan time.Time, 1<<16)
	rec := NewRecorder()
	rec.OnTransition = func(t Transition) {
		if t.Level == gpio.High && (t.Pin == "GPIO17" || t.Pin == "GPIO27") {
			pulse <- t.Time
		}
	}
	done := make(chan *Record, 1<<16)
	r, err := New(Options{Config: cfg, Driver: rec, BatchWorkers: workers, Observe: func(r *Record) { done <- r }})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Stop(); r.Wait(); r.Close() })
	return f, r, pulse, done
}

func reportMemory(b *testing.B, modelPath string) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fi, _ := os.Stat(modelPath)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MiB")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MiB")
	b.ReportMetric(float64(fi.Size())/(1<<20), "model-MiB")
}

// BenchmarkLatency measures, one batch at a time, the time from the rename
// of a batch into new/ to the rising edge of the match (or unknown) pin.
func BenchmarkLatency(b *testing.B) {
	path, centers := benchModelFile(b)
	f, _, pulse, done := benchRunner(b, 1)
	rng := rand.New(rand.NewPCG(23, 24))
	var lat, overhead []float64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		name := fmt.Sprintf("lat%06d.npy", i)
		src := f.writeTmp(b, name, benchBatch(rng, centers[i%len(centers)]))
		b.StartTimer()
		t0 := time.Now()
		if err := os.Rename(src, filepath.Join(f.spool, DirNew, name)); err != nil {
			b.Fatal(err)
		}
		t1 := <-pulse
		r := <-done
		if r.Decision == "failed" {
			b.Fatalf("batch failed: %s", r.Reason)
		}
		l := float64(t1.Sub(t0)) / float64(time.Millisecond)
		lat = append(lat, l)
		// What the daemon adds to the matching itself: event, claim, read,
		// parse, pin.
		overhead = append(overhead, l-r.MatchMS)
	}
	b.StopTimer()
	pct := func(v []float64, p int) float64 {
		slices.Sort(v)
		return v[min(len(v)-1, len(v)*p/100)]
	}
	b.ReportMetric(pct(lat, 50), "p50-ms")
	b.ReportMetric(pct(lat, 99), "p99-ms")
	b.ReportMetric(pct(overhead, 50), "p50-overhead-ms")
	b.ReportMetric(pct(overhead, 99), "p99-overhead-ms")
	reportMemory(b, path)
}

// BenchmarkThroughput drops b.N batches at once and measures how many per
// second are handled (read, matched, signalled, journalled, removed).
func BenchmarkThroughput(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("batch-workers=%d", workers), func(b *testing.B) {
			path, centers := benchModelFile(b)
			f, _, _, done := benchRunner(b, workers)
			rng := rand.New(rand.NewPCG(25, 26))
			var srcs []string
			for i := range b.N {
				srcs = append(srcs, f.writeTmp(b, fmt.Sprintf("tp%06d.npy", i), benchBatch(rng, centers[i%len(centers)])))
			}
			b.ResetTimer()
			start := time.Now()
			for _, src := range srcs {
				if err := os.Rename(src, filepath.Join(f.spool, DirNew, filepath.Base(src))); err != nil {
					b.Fatal(err)
				}
			}
			for range b.N {
				if r := <-done; r.Decision == "failed" {
					b.Fatalf("batch failed: %s", r.Reason)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "batches/s")
			reportMemory(b, path)
		})
	}
}

// BenchmarkDaemonRSS runs the real setmatchd on the benchmark model, feeds it
// b.N batches and reports its peak resident memory (VmHWM) next to the size
// of the model file.
func BenchmarkDaemonRSS(b *testing.B) {
	if len(daemonPrefix) > 0 {
		b.Skip("the daemon runs under an emulator: its memory is not the daemon's")
	}
	path, centers := benchModelFile(b)
	f := newFixture(b, "")
	f.model = path
	f.writeConfig(b, "[decision]\nmin_frames = 2\n")
	text, _ := os.ReadFile(f.config)
	os.WriteFile(f.config, []byte(strings.Replace(strings.Replace(string(text), "alice = \"GPIO22\"", "", 1),
		"level = \"debug\"", "level = \"warn\"", 1)), 0o644)
	p := startDaemon(b, f)
	rng := rand.New(rand.NewPCG(27, 28))
	b.ResetTimer()
	for i := range b.N {
		f.drop(b, fmt.Sprintf("rss%06d.npy", i), benchBatch(rng, centers[i%len(centers)]))
	}
	waitFor(b, 10*time.Minute, "all batches", func() bool { return len(readJournal(b, f.journal)) == b.N })
	b.StopTimer()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &kb); err == nil {
			b.ReportMetric(kb/1024, "peak-rss-MiB")
		}
		if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &kb); err == nil {
			b.ReportMetric(kb/1024, "rss-MiB")
		}
	}
	fi, _ := os.Stat(path)
	b.ReportMetric(float64(fi.Size())/(1<<20), "model-MiB")
	p.stop()
}
