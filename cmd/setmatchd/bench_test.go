package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"setmatch/device/devicetest"
)

// BenchmarkDaemonRSS runs the real setmatchd on the benchmark model, feeds it
// b.N batches and reports its peak resident memory (VmHWM) next to the size
// of the model file.
func BenchmarkDaemonRSS(b *testing.B) {
	if len(daemonPrefix) > 0 {
		b.Skip("the daemon runs under an emulator: its memory is not the daemon's")
	}
	path, centers := devicetest.BenchModelFile(b)
	f := devicetest.NewFixture(b, "")
	f.Model = path
	f.WriteConfig(b, "[decision]\nmin_frames = 2\n")
	text, _ := os.ReadFile(f.Config)
	os.WriteFile(f.Config, []byte(strings.Replace(strings.Replace(string(text), "alice = \"GPIO22\"", "", 1),
		"level = \"debug\"", "level = \"warn\"", 1)), 0o644)
	ctx := testContext(b, 10*time.Minute)
	p := startDaemon(b, ctx, f)
	rng := rand.New(rand.NewPCG(27, 28))
	b.ResetTimer()
	for i := range b.N {
		f.Drop(b, fmt.Sprintf("rss%06d.npy", i), devicetest.BenchBatch(rng, centers[i%len(centers)]))
	}
	devicetest.WaitFor(b, 10*time.Minute, "all batches", func() bool { return len(devicetest.ReadJournal(b, f.Journal)) == b.N })
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
