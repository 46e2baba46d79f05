package device

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"

	"setmatch/config"
	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/device/journal"
	"setmatch/device/mqtt/mqtttest"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
)

// benchRunner starts an in-process Runner on the benchmark model with a
// recording GPIO driver whose active transitions on the match and unknown
// pins are sent on the returned channel. With withOutputs set, the daemon's
// outputs are started from the configuration as changed by withOutputs, and
// told of each decision.
func benchRunner(b *testing.B, workers int, withOutputs func(*config.Config)) (*devicetest.Fixture, *Runner, chan time.Time, chan *journal.Record) {
	f, _ := devicetest.BenchFixture(b, "warn", "")
	cfg := fixtureConfig(b, f)
	cfg.GPIO.Pulse.Duration = time.Millisecond
	cfg.Spool.Done = "delete"
	pulse := make(chan time.Time, 1<<16)
	rec := gpiotest.NewRecorder()
	rec.OnTransition = func(t gpiotest.Transition) {
		if t.Level == gpio.High && (t.Pin == "GPIO17" || t.Pin == "GPIO27") {
			pulse <- t.Time
		}
	}
	done := make(chan *journal.Record, 1<<16)
	r, err := New(Options{Config: cfg, Driver: rec, BatchWorkers: workers, Observe: func(r *journal.Record) { done <- r }})
	if err != nil {
		b.Fatal(err)
	}
	var out *outputs
	if withOutputs != nil {
		withOutputs(cfg)
		if out, err = startOutputs(cfg, "bench", slog.New(slog.DiscardHandler)); err != nil {
			b.Fatal(err)
		}
		r.obs = out
		out.setModel(r.Model())
	}
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	if out != nil {
		out.watchRunner(r)
	}
	b.Cleanup(func() {
		r.Stop()
		r.Wait()
		if out != nil {
			out.close()
		}
		r.Close()
	})
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
// of a batch into new/ to the rising edge of the match (or unknown) pin:
// with the pins and the journal only, and with every decision also
// published to a mosquitto on this machine and counted in the metrics.
func BenchmarkLatency(b *testing.B) {
	b.Run("outputs=none", func(b *testing.B) { benchLatency(b, nil) })
	b.Run("outputs=mqtt+metrics", func(b *testing.B) {
		broker := mqtttest.New(context.Background(), b, false)
		benchLatency(b, func(c *config.Config) {
			c.MQTT.Broker, c.MQTT.Topic, c.MQTT.ClientID = broker.URL, "setmatch-bench", "setmatchd-bench"
			c.Metrics.Listen = "127.0.0.1:0"
		})
	})
}

func benchLatency(b *testing.B, withOutputs func(*config.Config)) {
	path, centers := devicetest.BenchModelFile(b)
	f, _, pulse, done := benchRunner(b, 1, withOutputs)
	rng := rand.New(rand.NewPCG(23, 24))
	var lat, overhead []float64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		name := fmt.Sprintf("lat%06d.npy", i)
		src := f.WriteTmp(b, name, devicetest.BenchBatch(rng, centers[i%len(centers)]))
		b.StartTimer()
		t0 := time.Now()
		if err := os.Rename(src, filepath.Join(f.Spool, spool.DirNew, name)); err != nil {
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
			path, centers := devicetest.BenchModelFile(b)
			f, _, _, done := benchRunner(b, workers, nil)
			rng := rand.New(rand.NewPCG(25, 26))
			var srcs []string
			for i := range b.N {
				srcs = append(srcs, f.WriteTmp(b, fmt.Sprintf("tp%06d.npy", i), devicetest.BenchBatch(rng, centers[i%len(centers)])))
			}
			b.ResetTimer()
			start := time.Now()
			for _, src := range srcs {
				if err := os.Rename(src, filepath.Join(f.Spool, spool.DirNew, filepath.Base(src))); err != nil {
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

// BenchmarkDecided measures what the daemon's outputs cost the worker per
// decision, after the pin and the journal: encoding the record, queueing it
// for the broker and counting it. With "broker=up" a mosquitto on this
// machine takes the messages meanwhile (the publisher's goroutine, Paho and
// mosquitto share the CPU with the loop); with "broker=down" they stay in
// the outbox.
func BenchmarkDecided(b *testing.B) {
	for _, up := range []bool{true, false} {
		b.Run(map[bool]string{true: "broker=up", false: "broker=down"}[up], func(b *testing.B) {
			url := "tcp://127.0.0.1:1" // nothing listens there
			if up {
				url = mqtttest.New(context.Background(), b, false).URL
			}
			cfg := config.Default()
			cfg.MQTT.Broker, cfg.MQTT.Topic, cfg.MQTT.ClientID = url, "setmatch-bench", "setmatchd-bench-decided"
			cfg.MQTT.Outbox = 1 << 20
			cfg.Metrics.Listen = "127.0.0.1:0"
			out, err := startOutputs(&cfg, "bench", slog.New(slog.DiscardHandler))
			if err != nil {
				b.Fatal(err)
			}
			defer out.close()
			score, th := 0.123, 0.5
			rec := &journal.Record{Time: time.Now().UTC(), File: "cam0-000123.npy", SHA256: fmt.Sprintf("%064x", 7), Bytes: 61568,
				Frames: 30, Decision: "alice", Known: true, Best: "alice", BestSet: "alice-3", Score: &score, RunnerUp: "bob",
				RunnerSc: &th, Threshold: &th, Divergence: "hellinger", Bandwidth: 0.7, Arrived: time.Now().UTC(),
				LatencyMS: 12.5, ReadMS: 0.4, MatchMS: 11.8, Model: "0123456789abcdef"}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				out.Decided(rec)
			}
		})
	}
}

// BenchmarkLoadModel measures the daemon's load of the benchmark model
// (1000 sets × 100 frames in d = 20, 15.3 MiB), as at start, -check and
// every reload (LoadModel: the file read and decoded, the model checked,
// its matcher built), on one goroutine per batch; cpu-ms/op is the
// process's CPU time per load, garbage collection included.
func BenchmarkLoadModel(b *testing.B) {
	f, _ := devicetest.BenchFixture(b, "warn", "")
	cfg := fixtureConfig(b, f)
	cfg.Daemon.Workers = 1
	cpu := testutil.CPUTime()
	for b.Loop() {
		if _, err := LoadModel(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((testutil.CPUTime()-cpu).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}
