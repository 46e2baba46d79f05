package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
)

// benchFixture returns a fixture on the benchmark model
// (devicetest.BenchModelFile) that logs warnings only and pulses no label
// pin, and the model's centres.
func benchFixture(b *testing.B) (*devicetest.Fixture, [][]float64) {
	b.Helper()
	return devicetest.BenchFixture(b, "warn", "[decision]\nmin_frames = 2\n")
}

// BenchmarkDaemonRSS runs the real setmatchd on the benchmark model, feeds it
// b.N batches and reports its peak resident memory (VmHWM) next to the size
// of the model file.
func BenchmarkDaemonRSS(b *testing.B) {
	if len(daemonPrefix) > 0 {
		b.Skip("the daemon runs under an emulator: its memory is not the daemon's")
	}
	f, centers := benchFixture(b)
	ctx := testContext(b, 10*time.Minute)
	p := startDaemon(b, ctx, f)
	rng := rand.New(rand.NewPCG(27, 28))
	b.ResetTimer()
	for i := range b.N {
		f.Drop(b, fmt.Sprintf("rss%06d.npy", i), devicetest.BenchBatch(rng, centers[i%len(centers)]))
	}
	testutil.WaitFor(b, 10*time.Minute, "all batches", func() bool { return len(devicetest.ReadJournal(b, f.Journal)) == b.N })
	b.StopTimer()
	b.ReportMetric(peakRSS(b, p.cmd.Process.Pid), "peak-rss-MiB")
	b.ReportMetric(procMiB(b, p.cmd.Process.Pid, "VmRSS"), "rss-MiB")
	fi, _ := os.Stat(f.Model)
	b.ReportMetric(float64(fi.Size())/(1<<20), "model-MiB")
	p.stop()
}

// BenchmarkDaemonFaultRSS runs the real setmatchd on the benchmark model
// (D = 100) and reports its peak resident memory (VmHWM) after each of two
// batches that once cost it far more than their size: a valid batch of
// 10000 frames (spool.max_frames), matched, and a CSV of just under 64 MiB
// (spool.max_batch_bytes) with 8192 features per frame, refused from its
// first line.
func BenchmarkDaemonFaultRSS(b *testing.B) {
	if len(daemonPrefix) > 0 {
		b.Skip("the daemon runs under an emulator: its memory is not the daemon's")
	}
	f, centers := benchFixture(b)
	ctx := testContext(b, 10*time.Minute)
	rng := rand.New(rand.NewPCG(29, 30))
	for b.Loop() {
		p := startDaemon(b, ctx, f)
		// A valid batch of 10000 frames.
		c := centers[0]
		x := devicetest.BenchBatch(rng, c)
		big := mat.NewDense(10000, x.RawMatrix().Cols, nil)
		for i := range 10000 {
			big.SetRow(i, x.RawRowView(i%100))
		}
		start := time.Now()
		f.Drop(b, "big.npy", big)
		testutil.WaitFor(b, 10*time.Minute, "the 10000-frame batch", func() bool { return len(devicetest.ReadJournal(b, f.Journal)) == 1 })
		b.ReportMetric(time.Since(start).Seconds(), "big-batch-s")
		b.ReportMetric(peakRSS(b, p.cmd.Process.Pid), "peak-rss-after-big-MiB")
		p.stop()

		// A 64 MiB CSV of the wrong width, in a fresh daemon.
		os.Remove(f.Journal)
		p = startDaemon(b, ctx, f)
		var sb strings.Builder
		row := strings.TrimSuffix(strings.Repeat("0.123456,", 8192), ",") + "\n"
		for sb.Len()+len(row) < 64<<20-1 {
			sb.WriteString(row)
		}
		tmp := filepath.Join(f.Spool, spool.DirTmp, "wide.csv")
		os.WriteFile(tmp, []byte(sb.String()), 0o644)
		os.Rename(tmp, filepath.Join(f.Spool, spool.DirNew, "wide.csv"))
		testutil.WaitFor(b, 10*time.Minute, "the wide CSV refused", func() bool { return len(devicetest.ReadJournal(b, f.Journal)) == 1 })
		if r := devicetest.ReadJournal(b, f.Journal)[0]; r.Decision != "failed" || !strings.Contains(r.Reason, "8192 features per frame") {
			b.Errorf("wide CSV: %+v", r)
		}
		b.ReportMetric(peakRSS(b, p.cmd.Process.Pid), "peak-rss-after-wide-csv-MiB")
		p.stop()
	}
}
