package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testutil"
)

// cameraBurst returns n frames of class label as 640×480 JPEG files
// (quality 90), named f000.jpg…, as a camera writes them.
func cameraBurst(b *testing.B, label string, n int) map[string][]byte {
	o := devicetest.ImageOptions
	o.W, o.H, o.Frames = 640, 480, n
	c := slices.Index(devicetest.ImageLabels, label)
	frames, err := o.ImageSet(c, 20)
	if err != nil {
		b.Fatal(err)
	}
	files := map[string][]byte{}
	for i, img := range frames {
		files[fmt.Sprintf("f%03d.jpg", i)] = devicetest.EncodeFrame(b, img, ".jpg")
	}
	return files
}

// imageBenchDaemon starts setmatchd on the image model (lbp:4x4@64x64),
// logging warnings only.
func imageBenchDaemon(b *testing.B) (*devicetest.Fixture, *daemonProc) {
	if len(daemonPrefix) > 0 {
		b.Skip("the daemon runs under an emulator: its time and memory are not the daemon's")
	}
	f := devicetest.NewFixture(b, "")
	devicetest.WriteImageModel(b, f.Model)
	text := strings.Replace(f.ConfigText(""), `alice = "GPIO22"`, `brick = "GPIO22"`, 1)
	text = strings.Replace(text, `level = "debug"`, `level = "warn"`, 1)
	if err := os.WriteFile(f.Config, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	return f, startDaemon(b, testContext(b, 10*time.Minute), f)
}

// cpuTime returns the user and system CPU time of process pid so far.
func cpuTime(b *testing.B, pid int) time.Duration {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name (which is in parentheses): utime and
	// stime are the 12th and 13th, in clock ticks (100 per second).
	f := strings.Fields(string(s[strings.LastIndexByte(string(s), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

// BenchmarkDaemonImageBurst feeds the real setmatchd b.N bursts of 16
// camera frames (640×480 JPEG), one at a time (each renamed into new/ once
// the previous one is journaled), and reports the rename-to-pin latency
// the journal records (p50, p99), the daemon's CPU time per burst and its
// peak resident memory.
func BenchmarkDaemonImageBurst(b *testing.B) {
	f, p := imageBenchDaemon(b)
	files := cameraBurst(b, "grass", 16)
	b.ResetTimer()
	cpu0 := cpuTime(b, p.cmd.Process.Pid)
	for i := range b.N {
		f.RenameIn(b, f.WriteBurstTmp(b, fmt.Sprintf("b%06d", i), files))
		testutil.WaitFor(b, time.Minute, "the burst", func() bool { return len(testutil.Names(b, filepath.Join(f.Spool, spool.DirDone))) == i+1 })
	}
	b.StopTimer()
	cpu := cpuTime(b, p.cmd.Process.Pid) - cpu0
	var lat []float64
	for _, r := range devicetest.ReadJournal(b, f.Journal) {
		if r.Decision != "grass" || r.Frames != 16 {
			b.Fatalf("journal: %+v", r)
		}
		lat = append(lat, r.LatencyMS)
	}
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "p50-ms")
	b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "p99-ms")
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/burst")
	b.ReportMetric(peakRSS(b, p.cmd.Process.Pid), "peak-rss-MiB")
	p.stop()
}

// BenchmarkDaemonImageBurst64 feeds the real setmatchd one burst of 64
// camera frames (640×480 JPEG) per iteration and reports its peak resident
// memory.
func BenchmarkDaemonImageBurst64(b *testing.B) {
	f, p := imageBenchDaemon(b)
	files := cameraBurst(b, "wood", 64)
	b.ResetTimer()
	for i := range b.N {
		f.RenameIn(b, f.WriteBurstTmp(b, fmt.Sprintf("b%06d", i), files))
		testutil.WaitFor(b, time.Minute, "the burst", func() bool { return len(testutil.Names(b, filepath.Join(f.Spool, spool.DirDone))) == i+1 })
	}
	b.StopTimer()
	for _, r := range devicetest.ReadJournal(b, f.Journal) {
		if r.Decision != "wood" || r.Frames != 64 {
			b.Fatalf("journal: %+v", r)
		}
	}
	b.ReportMetric(peakRSS(b, p.cmd.Process.Pid), "peak-rss-MiB")
	p.stop()
}
