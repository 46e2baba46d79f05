package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

func TestDaemonBatches(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(11, 12))
	labels := []string{"alice", "bob", "carol", "stranger", "alice", "carol", "bob", "stranger"}
	want := map[string]string{}
	// Two batches are waiting before the daemon starts.
	for i, l := range labels[:2] {
		name := fmt.Sprintf("pre%d.npy", i)
		f.Drop(t, name, devicetest.Batch(rng, l))
		want[name] = devicetest.Expected(l)
	}
	// As systemd does with WatchdogSec=0.2s.
	p := startDaemon(t, ctx, f, "WATCHDOG_USEC=200000")
	for i, l := range labels[2:] {
		name := fmt.Sprintf("b%d.npy", i)
		f.Drop(t, name, devicetest.Batch(rng, l))
		want[name] = devicetest.Expected(l)
	}
	done := filepath.Join(f.Spool, spool.DirDone)
	testutil.WaitForCtx(t, ctx, "all batches in done/", func() bool { return len(testutil.Names(t, done)) == len(want) })

	// A malformed batch goes to failed/ with a reason; the daemon goes on.
	os.WriteFile(filepath.Join(f.Spool, spool.DirTmp, "broken.csv"), []byte("1,2,3,4,5,6\n4,five,6,7,8,9\n"), 0o644)
	os.Rename(filepath.Join(f.Spool, spool.DirTmp, "broken.csv"), filepath.Join(f.Spool, spool.DirNew, "broken.csv"))
	testutil.WaitForCtx(t, ctx, "failed/broken.csv", func() bool {
		_, err := os.Stat(filepath.Join(f.Spool, spool.DirFailed, "broken.csv"))
		return err == nil
	})
	reason, _ := os.ReadFile(filepath.Join(f.Spool, spool.DirFailed, spool.DirReasons, "broken.csv"))
	if !strings.Contains(string(reason), "five") && !strings.Contains(string(reason), "line 2") {
		t.Errorf("reason %q does not say what is wrong", reason)
	}
	if _, err := os.Stat(filepath.Join(f.Spool, spool.DirFailed, "broken.csv")); err != nil {
		t.Errorf("malformed batch not kept in failed/: %v", err)
	}
	f.Drop(t, "after.npy", devicetest.Batch(rng, "carol"))
	want["after.npy"] = "carol"
	testutil.WaitForCtx(t, ctx, "the batch after the failure", func() bool { return len(testutil.Names(t, done)) == len(want) })
	testutil.WaitForCtx(t, ctx, "watchdog pings", func() bool { return p.notify.count("WATCHDOG=1") >= 2 })
	p.stop()

	recs := devicetest.ReadJournal(t, f.Journal)
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
	if n := len(testutil.Names(t, filepath.Join(f.Spool, spool.DirCur))) + len(testutil.Names(t, filepath.Join(f.Spool, spool.DirNew))); n != 0 {
		t.Errorf("%d files left in new/ and cur/", n)
	}
}

func TestDaemonReload(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(13, 14))
	p := startDaemon(t, ctx, f)
	done := filepath.Join(f.Spool, spool.DirDone)

	// A broken config is refused on SIGHUP; the old one goes on working.
	os.WriteFile(f.Config, []byte(f.ConfigText("")+"\n[spool\n"), 0o644)
	p.signal(syscall.SIGHUP)
	testutil.WaitForCtx(t, ctx, "the reload to fail", func() bool { return strings.Contains(p.stderr.String(), "reload failed") })
	testutil.WaitForCtx(t, ctx, "READY=1 after the reload", func() bool { return p.notify.count("READY=1") == 2 })
	if n := p.notify.count("RELOADING=1"); n != 1 {
		t.Errorf("RELOADING=1 sent %d times, want 1", n)
	}
	f.Drop(t, "one.npy", devicetest.Batch(rng, "alice"))
	testutil.WaitForCtx(t, ctx, "one.npy", func() bool { return len(testutil.Names(t, done)) == 1 })

	// A new model renamed over the old one is used for the next batch.
	f.WriteConfig(t, "")
	oldID := devicetest.ReadJournal(t, f.Journal)[0].Model
	devicetest.WriteTinyModel(t, f.Model, true)
	testutil.WaitForCtx(t, ctx, "the model reload", func() bool { return strings.Count(p.stderr.String(), "msg=reloaded") == 1 })
	f.Drop(t, "two.npy", devicetest.Batch(rng, "alice"))
	testutil.WaitForCtx(t, ctx, "two.npy", func() bool { return len(testutil.Names(t, done)) == 2 })
	if !regexp.MustCompile(`msg=reloaded .*threshold=`).MatchString(p.stderr.String()) {
		t.Errorf("the reloaded line does not say the threshold in use:\n%s", p.stderr.String())
	}

	// A model file removed is said: the daemon keeps the model it loaded.
	keep, err := os.ReadFile(f.Model)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(f.Model)
	testutil.WaitForCtx(t, ctx, "the removed model said", func() bool {
		return regexp.MustCompile(`reload failed: keeping the configuration and model in use.*no such file`).MatchString(p.stderr.String())
	})
	if err := os.WriteFile(f.Model+".tmp", keep, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(f.Model+".tmp", f.Model); err != nil {
		t.Fatal(err)
	}
	testutil.WaitForCtx(t, ctx, "the model put back", func() bool { return strings.Count(p.stderr.String(), "msg=reloaded") == 2 })

	// A reload into a closed set (no threshold) is warned of in the log.
	if strings.Contains(p.stderr.String(), "makes a closed set") {
		t.Error("a model with a threshold was warned of as a closed set")
	}
	f.WriteConfig(t, "[decision]\nthreshold = inf\n")
	p.signal(syscall.SIGHUP)
	testutil.WaitForCtx(t, ctx, "the closed-set warning", func() bool {
		return strings.Contains(p.stderr.String(), "decision.threshold = inf in the configuration makes a closed set")
	})
	p.stop()

	recs := devicetest.ReadJournal(t, f.Journal)
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
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(15, 16))
	p := startDaemon(t, ctx, f)
	n := 200
	if testing.Short() {
		n = 60
	}
	var paths []string
	for i := range n {
		paths = append(paths, f.WriteTmp(t, fmt.Sprintf("s%03d.npy", i), devicetest.Batch(rng, "bob")))
	}
	for _, src := range paths {
		if err := os.Rename(src, filepath.Join(f.Spool, spool.DirNew, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WaitForCtx(t, ctx, "a first batch", func() bool { return len(testutil.Names(t, filepath.Join(f.Spool, spool.DirDone))) > 0 })
	p.stop()
	if left := testutil.Names(t, filepath.Join(f.Spool, spool.DirCur)); len(left) != 0 {
		t.Errorf("a clean stop left %v in cur/", left)
	}
	t.Logf("stopped with %d of %d batches done", len(testutil.Names(t, filepath.Join(f.Spool, spool.DirDone))), n)
	check := func(final bool) {
		journalled := map[string]int{}
		for _, r := range devicetest.ReadJournal(t, f.Journal) {
			journalled[r.File]++
		}
		seen := map[string]string{}
		for _, d := range []string{spool.DirNew, spool.DirCur, spool.DirDone} {
			for _, name := range testutil.Names(t, filepath.Join(f.Spool, d)) {
				if prev, ok := seen[name]; ok {
					t.Errorf("%s in both %s/ and %s/", name, prev, d)
				}
				seen[name] = d
				if d == spool.DirDone && journalled[name] == 0 {
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
			if seen[name] != spool.DirDone {
				t.Errorf("%s journalled but in %s/", name, seen[name])
			}
		}
		if final && len(journalled) != n {
			t.Errorf("after restart, %d of %d batches journalled", len(journalled), n)
		}
	}
	check(false)
	// The rest is handled after a restart.
	p = startDaemon(t, ctx, f)
	testutil.WaitForCtx(t, ctx, "all batches", func() bool { return len(testutil.Names(t, filepath.Join(f.Spool, spool.DirDone))) == n })
	p.stop()
	check(true)
}

func TestDaemonBurst(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	n := 500
	if testing.Short() {
		n = 100
	}
	f := devicetest.NewFixture(t, "")
	rng := rand.New(rand.NewPCG(17, 18))
	p := startDaemon(t, ctx, f)
	// Write them all into tmp/ first, then rename them in as fast as possible.
	var paths []string
	for i := range n {
		paths = append(paths, f.WriteTmp(t, fmt.Sprintf("burst%03d.npy", i), devicetest.Batch(rng, "carol")))
	}
	for _, src := range paths {
		if err := os.Rename(src, filepath.Join(f.Spool, spool.DirNew, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WaitForCtx(t, ctx, "all batches", func() bool { return len(testutil.Names(t, filepath.Join(f.Spool, spool.DirDone))) == n })
	p.stop()
	recs := devicetest.ReadJournal(t, f.Journal)
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
	ctx := testContext(t, e2eBudget)
	f := devicetest.NewFixture(t, "")
	run := func() (string, error) {
		out, err := testexec.CombinedOutput(t, ctx, daemonCommand(ctx, t, "-check", "-config", f.Config))
		return string(out), err
	}
	out, err := run()
	if err != nil || !strings.Contains(out, "6 gallery sets") || !strings.Contains(out, "ok") {
		t.Fatalf("-check on a good config: %v\n%s", err, out)
	}
	f.WriteConfig(t, "[decision]\nmin_frames = 0\n")
	out, err = run()
	if err == nil || !strings.Contains(out, "decision.min_frames") {
		t.Fatalf("-check on a bad config: %v\n%s", err, out)
	}
	f.WriteConfig(t, "")
	os.WriteFile(f.Model, []byte("not a model"), 0o644)
	out, err = run()
	if err == nil || !strings.Contains(out, "model") {
		t.Fatalf("-check with a bad model: %v\n%s", err, out)
	}
}
