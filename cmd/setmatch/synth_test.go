package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = dispatch(args, &o, &e)
	return code, o.String(), e.String()
}

func TestSynthWritesDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	code, out, errOut := runCmd("synth", "--classes", "3", "--sets", "2", "--frames", "7", "--dim", "4", "--out", dir, "--seed", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "wrote 3 classes × 2 sets × 7 frames × 4 features (subspace, info-dim 2, seed 5)") || strings.Count(out, "\n") != 1 {
		t.Errorf("summary %q", out)
	}
	d, err := dataset.Load(dir, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Classes) != 3 || len(d.Sets) != 6 || d.Dim() != 4 || d.Sets[5].Name != "s001" {
		t.Fatalf("loaded %v, %d sets, dim %d", d.Classes, len(d.Sets), d.Dim())
	}
	if _, err := os.Stat(filepath.Join(dir, "c00", "s000.npy")); err != nil {
		t.Error(err)
	}

	// Not empty: refused without --force, replaced with it, and the same
	// seed gives the same data.
	if code, _, e := runCmd("synth", "--out", dir, "--classes", "2", "--sets", "1", "--frames", "7", "--dim", "4", "--seed", "5"); code != 1 || !strings.Contains(e, "not empty") {
		t.Errorf("overwrite without --force: exit %d, %q", code, e)
	}
	code, _, errOut = runCmd("synth", "--out", dir, "--classes", "3", "--sets", "2", "--frames", "7", "--dim", "4", "--seed", "5", "--force")
	if code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	e, err := dataset.Load(dir, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Sets {
		if !mat.Equal(d.Sets[i].Frames, e.Sets[i].Frames) {
			t.Errorf("set %d differs for the same seed", i)
		}
	}
	// --force with fewer classes leaves no stale class behind.
	if code, _, e := runCmd("synth", "--out", dir, "--classes", "2", "--sets", "1", "--frames", "7", "--dim", "4", "--force"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if e, err := dataset.Load(dir, dataset.Options{}); err != nil || len(e.Classes) != 2 {
		t.Errorf("after --force with 2 classes: %v, %v", e, err)
	}
}

func TestSynthBeyondGauss(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bg")
	code, out, errOut := runCmd("synth", "--kind", "beyond-gauss", "--classes", "4", "--sets", "2", "--frames", "20", "--dim", "3", "--shape-dims", "2", "--out", dir)
	if code != 0 || !strings.Contains(out, "beyond-gauss, shape-dims 2") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
}

func TestSynthForceRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, e := runCmd("synth", "--out", dir, "--classes", "2", "--sets", "1", "--frames", "5", "--dim", "2", "--force")
	if code != 1 || !strings.Contains(e, "thesis.tex") {
		t.Errorf("exit %d, %q", code, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "thesis.tex")); err != nil {
		t.Error("foreign file removed")
	}
}

// TestSynthForceKeepsOwnDataSets: a data set of the user's, laid out as
// synth lays out its own (class folders of .npy files, or of set folders
// of PNG frames) but without synth's README.md, is refused by --force and
// left whole, the refusal naming what is not synth's.
func TestSynthForceKeepsOwnDataSets(t *testing.T) {
	src := filepath.Join(t.TempDir(), "d1")
	if code, _, e := runCmd("synth", "--out", src, "--classes", "2", "--sets", "1", "--frames", "10", "--dim", "3"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	imgs := filepath.Join(t.TempDir(), "i1")
	if code, _, e := runCmd("synth", "--images", "8x8", "--out", imgs, "--classes", "2", "--sets", "1", "--frames", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, c := range []struct {
		files map[string]string // own file: synth's file copied there
		args  []string
	}{
		{map[string]string{"alice/monday.npy": "c00/s000.npy", "bob/tue.npy": "c01/s000.npy"}, []string{"--dim", "2"}},
		{map[string]string{"c00/s000.npy": "c00/s000.npy", "c01/s000.npy": "c01/s000.npy"}, []string{"--dim", "2"}},
		{map[string]string{"alice/s000/f000.png": "c00/s000/f000.png", "bob/s000/f000.png": "c01/s000/f000.png"}, []string{"--images", "8x8"}},
	} {
		real := filepath.Join(t.TempDir(), "real")
		from := src
		if c.args[0] == "--images" {
			from = imgs
		}
		for own, theirs := range c.files {
			b, err := os.ReadFile(filepath.Join(from, filepath.FromSlash(theirs)))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(real, filepath.FromSlash(own))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := append([]string{"synth", "--out", real, "--classes", "2", "--sets", "1", "--frames", "3", "--force"}, c.args...)
		code, _, e := runCmd(args...)
		if code != 1 || !strings.Contains(e, "no README.md of setmatch synth") || !strings.Contains(e, "choose a new folder for --out") {
			t.Errorf("%v: exit %d, %q", args, code, e)
		}
		for own := range c.files {
			if _, err := os.Stat(filepath.Join(real, filepath.FromSlash(own))); err != nil {
				t.Errorf("%v: %s: %v", args, own, err)
			}
		}
		if _, err := os.Stat(filepath.Join(real, "README.md")); err == nil {
			t.Errorf("%v wrote a README.md in the refused folder", args)
		}
	}
}

// TestSynthForceAfterAStop: a synth killed while it writes its classes
// leaves a folder marked as synth's (its README.md is written first), so
// synth --force replaces it.
func TestSynthForceAfterAStop(t *testing.T) {
	if testexec.Emulated() {
		t.Skip("child processes under qemu-user")
	}
	out := filepath.Join(t.TempDir(), "big")
	ctx := testexec.Timeout(t, time.Minute)
	cmd := exec.Command(os.Args[0], "synth", "--out", out, "--classes", "20000", "--sets", "1", "--frames", "2", "--dim", "1")
	cmd.Env = append(os.Environ(), "SETMATCH_TEST_AS_MAIN=1")
	testexec.Start(t, ctx, cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Stopped once its classes are being written.
	testutil.WaitForCtx(t, ctx, "synth to write class c00001", func() bool {
		_, err := os.Stat(filepath.Join(out, "c00001"))
		return err == nil
	})
	select {
	case err := <-done:
		t.Fatalf("synth of 20000 classes finished before it could be stopped: %v", err)
	default:
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	if _, err := os.Stat(filepath.Join(out, "README.md")); err != nil {
		t.Errorf("no README.md after the stop: %v", err)
	}
	if code, _, e := runCmd("synth", "--out", out, "--classes", "2", "--sets", "1", "--frames", "2", "--dim", "1", "--force"); code != 0 {
		t.Fatalf("--force after the stop: exit %d, %s", code, e)
	}
	if ents, err := os.ReadDir(out); err != nil || len(ents) != 3 {
		t.Errorf("after --force: %v, %v; want README.md, c00, c01", ents, err)
	}
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || strings.Contains(string(b), "stopped") {
		t.Errorf("the README of the data set written whole: %v\n%s", err, b)
	}
}

// TestSynthOutFile: --out naming a file is refused as no folder, and the
// file left as it was.
func TestSynthOutFile(t *testing.T) {
	for _, args := range [][]string{{"--dim", "2"}, {"--images", "8x8"}} {
		file := filepath.Join(t.TempDir(), "two.csv")
		if err := os.WriteFile(file, []byte("1,2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, force := range []bool{false, true} {
			a := append([]string{"synth", "--out", file, "--classes", "2", "--sets", "1", "--frames", "2"}, args...)
			if force {
				a = append(a, "--force")
			}
			code, _, e := runCmd(a...)
			if want := "setmatch synth: --out " + file + " is a file: --out must be a folder, a new one or one synth wrote before (with --force)\n"; code != 1 || e != want {
				t.Errorf("%v: exit %d, %q; want %q", a, code, e, want)
			}
			if b, err := os.ReadFile(file); err != nil || string(b) != "1,2\n" {
				t.Errorf("%v: the file after the refusal: %q, %v", a, b, err)
			}
		}
	}
}

func TestSynthUsageErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	for _, args := range [][]string{
		{"synth"},
		{"synth", "--out", out, "extra"},
		{"synth", "--out", out, "--kind", "gaussian"},
		{"synth", "--out", out, "--classes", "0"},
		{"synth", "--out", out, "--dim", "3", "--info-dim", "4"},
		{"synth", "--out", out, "--kind", "beyond-gauss", "--info-dim", "2"},
		{"synth", "--out", out, "--kind", "beyond-gauss", "--noise", "0.1"},
		{"synth", "--out", out, "--kind", "cone", "--info-dim", "2"},
		{"synth", "--out", out, "--kind", "subspace", "--nuisance-dim", "2"},
		{"synth", "--out", out, "--kind", "beyond-gauss", "--frames", "5", "--dim", "5"},
		{"synth", "--out", out, "--frames", "x"},
		{"synth", "--out", out, "--shape-dims", "2"},
		{"synth", "--out", out, "--kind", "beyond-gauss", "--dim", "3", "--shape-dims", "4"},
	} {
		code, _, e := runCmd(args...)
		if code != 2 || e == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, e)
		}
	}
	// A negative spread, NaN or Inf is refused in one wording, naming the
	// flag, with what is taken: 0 is the kind's default.
	for f, what := range map[string]string{"--noise": "noise std", "--nuisance-std": "nuisance std"} {
		for _, v := range []string{"-0.5", "NaN", "Inf", "-Inf"} {
			code, _, e := runCmd("synth", "--out", out, "--kind", "lighting", f, v)
			if want := "setmatch synth: " + what + " (" + f + ") must be a finite number > 0, or 0 for the kind's default; got "; code != 2 || !strings.HasPrefix(e, want) {
				t.Errorf("%s %s: exit %d, stderr %q; want %q", f, v, code, e, want)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output folder created despite usage errors")
	}
	if code, _, _ := runCmd("synth", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}
