package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
	"setmatch/synth"
)

// TestSweepRefusesSizesUpFront: a size synth cannot generate is refused
// before any size is generated or trained, so that a sweep does not end
// in the middle and lose the outcomes of the sizes before it.
func TestSweepRefusesSizesUpFront(t *testing.T) {
	for _, tc := range []struct {
		sizes []Size
		kind  synth.Kind
		want  string
	}{
		{[]Size{{3, 1, 4, 4}, {100000000, 2, 12, 64}}, synth.Lighting, "size 100000000x2x12x64, with 1 more held-out per class: 100000000×3×12×64 values are more than the limit"},
		{[]Size{{3, 1, 4, 4}, {3, 1, 4, 5000}}, synth.Lighting, "dim 5000 is more than the 4096 features"},
		{[]Size{{3, 1, 8, 4}, {3, 1, 4, 4}}, synth.BeyondGauss, "size 3x1x4x4, with 1 more held-out per class: beyond-gauss whitens every set"},
	} {
		keep := t.TempDir()
		var log bytes.Buffer
		// The executable is never run: nothing may get that far.
		_, err := Sweep(context.Background(), SweepOptions{Exe: filepath.Join(keep, "no-setmatch"), Sizes: tc.sizes, Kind: tc.kind, Probes: 1, Seed: 1, Keep: keep, Log: &log})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.sizes, err, tc.want)
		}
		if entries, _ := os.ReadDir(keep); len(entries) != 0 || log.Len() != 0 {
			t.Errorf("%v: the sweep began before it refused the size: %d entries in its folder, log %q", tc.sizes, len(entries), log.String())
		}
	}
}

// TestSweepRecordsFailedTrain: a size whose setmatch train fails (here a
// stand-in that exits 1) is an outcome, not finished and saying why, and
// the sweep goes on to the next size instead of deciding held-out sets
// with a model that was never written.
func TestSweepRecordsFailedTrain(t *testing.T) {
	keep := t.TempDir()
	exe := standIn(t, "failing-setmatch", "echo cannot train >&2\nexit 1\n")
	sizes := []Size{{3, 1, 4, 4}, {4, 1, 4, 4}}
	runs, err := Sweep(context.Background(), SweepOptions{Exe: exe, Sizes: sizes, Kind: synth.Lighting, Probes: 1, Seed: 1, Keep: keep, Log: io.Discard})
	if err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	if len(runs) != len(sizes) {
		t.Fatalf("%d outcomes for %d sizes", len(runs), len(sizes))
	}
	for i, r := range runs {
		if r.Finished || !strings.Contains(r.Error, "train failed") || r.Accuracy != nil {
			t.Errorf("size %s: finished %v, error %q, accuracy %v; want not finished, train failed, no accuracy", sizes[i], r.Finished, r.Error, r.Accuracy)
		}
	}
	if kept, err := ReadRuns(filepath.Join(keep, "runs.jsonl")); err != nil || len(kept) != len(sizes) {
		t.Errorf("runs.jsonl: %d outcomes, %v; want %d", len(kept), err, len(sizes))
	}
}

// TestSweepKeepsWhatIsThere: a size whose folder in Keep is there
// already (an earlier sweep's, or anything else) is refused before the
// sweep begins, and what is in it stays; so is a size given twice, whose
// second run would write over the first's model and train.log. The
// sweep removed the folder and wrote its own in its place.
func TestSweepKeepsWhatIsThere(t *testing.T) {
	keep := t.TempDir()
	mine := filepath.Join(keep, "3x1x4x4", "notes.txt")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sizes []Size
		keep  string
		field string
		want  string
	}{
		{[]Size{{4, 1, 4, 4}, {3, 1, 4, 4}}, keep, "Keep", filepath.Join(keep, "3x1x4x4") + " is there already (an earlier sweep's size?): the sweep keeps each size in a folder of its own and writes over nothing; give another folder to keep the sweep in, or remove " + filepath.Join(keep, "3x1x4x4")},
		{[]Size{{4, 1, 4, 4}, {5, 1, 4, 4}, {4, 1, 4, 4}}, filepath.Join(keep, "new"), "Sizes", "size 4x1x4x4 is given twice"},
		{[]Size{{4, 1, 4, 4}, {4, 1, 4, 4}}, "", "Sizes", "size 4x1x4x4 is given twice"},
	} {
		var log bytes.Buffer
		// The executable is never run: nothing may get that far.
		_, err := Sweep(context.Background(), SweepOptions{Exe: filepath.Join(keep, "no-setmatch"), Sizes: tc.sizes, Kind: synth.Lighting, Probes: 1, Seed: 1, Keep: tc.keep, Log: &log})
		var oe *OptionError
		if !errors.As(err, &oe) || len(oe.Fields) != 1 || oe.Fields[0] != tc.field || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error of %s saying %q", tc.sizes, err, tc.field, tc.want)
		}
		if log.Len() != 0 {
			t.Errorf("%v: the sweep began before it refused: %q", tc.sizes, log.String())
		}
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "x\n" {
		t.Errorf("%s: %q, %v; want it as it was", mine, b, err)
	}
	if entries, _ := os.ReadDir(keep); len(entries) != 1 {
		t.Errorf("the keep folder holds %d entries, want the one that was there", len(entries))
	}
}

// TestSweepInterrupted: a sweep whose context ends while train runs
// stops the child, removes its temporary folder and returns the outcomes
// of the sizes before with the context's error, the size it was at not
// recorded; with Keep, runs.jsonl holds only those outcomes. The child
// here is a stand-in that never ends (it sleeps) but for the first size.
func TestSweepInterrupted(t *testing.T) {
	// The first size fails at once (an outcome); the second says it runs
	// (a file at $SWEEP_RUNNING) and sleeps.
	exe := standIn(t, "slow-setmatch", "case \"$3\" in */3x1x4x4/*) exit 1;; esac\n: > \"$SWEEP_RUNNING\"\nexec sleep 60\n")
	for _, keep := range []string{"", filepath.Join(t.TempDir(), "kept")} {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		running := filepath.Join(t.TempDir(), "running")
		t.Setenv("SWEEP_RUNNING", running)
		ctx, cancel := context.WithCancel(context.Background())
		log := &testutil.LockedBuffer{}
		type result struct {
			runs []Run
			err  error
		}
		done := make(chan result, 1)
		go func() {
			runs, err := Sweep(ctx, SweepOptions{Exe: exe, Sizes: []Size{{3, 1, 4, 4}, {4, 1, 4, 4}}, Kind: synth.Lighting, Probes: 1, Seed: 1, Keep: keep, Log: log})
			done <- result{runs, err}
		}()
		// Cancelled once the child runs: the sweep must stop it.
		testutil.WaitFor(t, 30*time.Second, "the second size's train to run", func() bool {
			_, err := os.Stat(running)
			return err == nil
		})
		cancel()
		var res result
		select {
		case res = <-done:
		case <-time.After(30 * time.Second):
			cancel()
			t.Fatalf("keep %q: the sweep did not stop in 30 s\n%s", keep, log.String())
		}
		cancel()
		if !errors.Is(res.err, context.Canceled) || len(res.runs) != 1 || res.runs[0].Classes != 3 {
			t.Errorf("keep %q: %d outcomes, %v; want the first size's and context.Canceled", keep, len(res.runs), res.err)
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Errorf("keep %q: %d entries left in the temporary folder (%s, …)", keep, len(entries), entries[0].Name())
		}
		if keep != "" {
			if kept, err := ReadRuns(filepath.Join(keep, "runs.jsonl")); err != nil || len(kept) != 1 {
				t.Errorf("runs.jsonl: %d outcomes, %v; want the first size's", len(kept), err)
			}
		}
	}
}

// standIn writes a stand-in for setmatch named name, a shell script of
// body, and returns its path; the test is skipped where child processes
// cannot run (under qemu-user) or there is no sh.
func standIn(t *testing.T, name, body string) string {
	t.Helper()
	if testexec.Emulated() {
		t.Skip("child processes under qemu-user")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	exe := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(exe, []byte("#!"+sh+"\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}
