package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"setmatch/dataset"
	"setmatch/deploy"
	"setmatch/method"
	"setmatch/model"
)

func framesData(n ...int) *dataset.Dataset {
	ds := &dataset.Dataset{}
	for _, k := range n {
		ds.Sets = append(ds.Sets, dataset.Set{Frames: mat.NewDense(k, 2, nil)})
	}
	return ds
}

func frameCounts(ds *dataset.Dataset) []int {
	var n []int
	for _, s := range ds.Sets {
		r, _ := s.Frames.Dims()
		n = append(n, r)
	}
	return n
}

func TestCapFrames(t *testing.T) {
	// Within the budget nothing changes and nothing is said.
	ds := framesData(10, 20, 30)
	var e bytes.Buffer
	if k, err := capFrames(ds, 0, 60, cacheFits, "train", &e); err != nil || k != 0 || e.Len() > 0 || frameCounts(ds)[2] != 30 {
		t.Errorf("60 frames, budget 60: err %v, %q, frames %v", err, e.String(), frameCounts(ds))
	}
	// Over it, the sets are capped at the largest count that fits, and
	// the command says so.
	if k, err := capFrames(ds, 0, 40, cacheFits, "train", &e); err != nil || k != 15 {
		t.Fatalf("budget 40: cap %d, %v; want 15", k, err)
	}
	if got := frameCounts(ds); got[0] != 10 || got[1] != 15 || got[2] != 15 {
		t.Errorf("budget 40: frames %v, want [10 15 15]", got)
	}
	if s := e.String(); !strings.Contains(s, "train: the 3 sets hold 60 frames, more than the 40") || !strings.Contains(s, "at most 15 frames, evenly spaced (40 of 60 frames kept)") {
		t.Errorf("message %q", s)
	}
	// An explicit cap applies whatever the budget, even none.
	ds, e = framesData(10, 20, 30), bytes.Buffer{}
	if k, err := capFrames(ds, 12, 0, cacheFits, "eval", &e); err != nil || k != 12 {
		t.Fatalf("--max-frames 12: cap %d, %v", k, err)
	}
	if got := frameCounts(ds); got[0] != 10 || got[1] != 12 || got[2] != 12 || !strings.Contains(e.String(), "eval: --max-frames: every set keeps at most 12 frames") {
		t.Errorf("--max-frames 12: frames %v, %q", got, e.String())
	}
	// Errors say what to do.
	for _, c := range []struct {
		n           []int
		max, budget int
		want        string
	}{
		{[]int{10, 20, 30}, 1, 0, "at least 2 frames"},
		{[]int{10, 20, 30}, -3, 0, "want a number of frames ≥ 2"},
		{[]int{10, 20, 30}, 25, 40, "use --max-frames 15 or less"},
		{[]int{10, 20, 30}, 0, 5, "use fewer sets"},
	} {
		ds := framesData(c.n...)
		_, err := capFrames(ds, c.max, c.budget, cacheFits, "train", &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("max %d, budget %d: error %v, want one saying %q", c.max, c.budget, err, c.want)
		}
		if got := frameCounts(ds); got[2] != 30 {
			t.Errorf("max %d, budget %d: the refused data were changed: %v", c.max, c.budget, got)
		}
	}
}

// TestTrainMaxFrames: the model's gallery holds the frames that were
// kept, and the model records the flag.
func TestTrainMaxFrames(t *testing.T) {
	data := trainData(t) // 20 frames per set
	out := filepath.Join(t.TempDir(), "m.smm")
	code, _, stderr := trainRun("train", "--method", "nn-h", "--data", data, "--out", out, "--max-frames", "7", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "every set keeps at most 7 frames, evenly spaced (84 of 240 frames kept)") {
		t.Errorf("stderr does not say what was kept:\n%s", stderr)
	}
	m, _, err := model.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range m.Sets {
		if r, _ := s.Samples.Dims(); r != 7 {
			t.Fatalf("gallery set %d has %d frames, want 7", i, r)
		}
	}
	if m.Meta.Params["max-frames"] != "7" {
		t.Errorf("recorded params %v: no max-frames 7", m.Meta.Params)
	}
}

// TestCVBudget: with at most two sets to train on per class, the frame
// halves of the sets join them in the cache, and the budget is halved.
func TestCVBudget(t *testing.T) {
	if b, fits := cvBudget(3); b != method.MaxPoolFrames || fits != cacheFits {
		t.Errorf("3 sets per class: %d, %q", b, fits)
	}
	if b, fits := cvBudget(2); b != method.MaxPoolFrames/2 || !strings.Contains(fits, "frame halves") {
		t.Errorf("2 sets per class: %d, %q", b, fits)
	}
}

// TestTrainBudget checks the budget train caps the frames to: half of
// method.MaxPoolFrames when a class has one or two sets to train on (the
// frame halves join them), the whole of it when every class has three or
// more, and none for learned, which cross-validates nothing.
func TestTrainBudget(t *testing.T) {
	for _, c := range []struct {
		labels []int
		m      method.Name
		want   int
	}{
		{[]int{0, 0, 0, 1, 1, 1}, method.Auto, method.MaxPoolFrames},
		{[]int{0, 0, 0, 1, 1}, method.Auto, method.MaxPoolFrames / 2},
		{[]int{0, 1, 1, 1}, method.NNH, method.MaxPoolFrames / 2},
		{[]int{0, 0, 0, 1, 1, 1}, method.NNH, method.MaxPoolFrames},
		{[]int{0, 0, 0, 1, 1, 1}, deploy.Learned, 0},
		{[]int{0, 1}, deploy.Learned, 0},
	} {
		got, fits := trainBudget(c.labels, c.m)
		if got != c.want || (got > 0) != strings.HasPrefix(fits, cacheFits) {
			t.Errorf("%s on classes %v: budget %d, %q; want %d", c.m, c.labels, got, fits, c.want)
		}
	}
}

// TestEvalMaxFrames: eval caps the sets as train does, and says so.
func TestEvalMaxFrames(t *testing.T) {
	dir := evalData(t, 2, 3) // 10 frames per set
	code, stdout, stderr := evalDispatch("eval", "--data", dir, "--protocol", "loo", "--methods", "nn-h", "--bandwidths", "global*1", "--max-frames", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "eval: --max-frames: every set keeps at most 4 frames, evenly spaced (24 of 60 frames kept)") {
		t.Errorf("stderr does not say what was kept:\n%s", stderr)
	}
	if !strings.Contains(stdout, "nn-h") {
		t.Errorf("table:\n%s", stdout)
	}
	if code, _, stderr := evalDispatch("eval", "--data", dir, "--max-frames", "1"); code != 2 || !strings.Contains(stderr, "at least 2 frames") {
		t.Errorf("--max-frames 1: exit %d, %s", code, stderr)
	}
}
