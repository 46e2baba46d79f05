package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/model"
)

// inspectTestModel writes a tiny model: D = 4, d = 2, W = the first two
// coordinate axes, classes "alice" (2 sets) and "bob" (1 set).
func inspectTestModel(t *testing.T, threshold float64) string {
	t.Helper()
	w := mat.NewDense(4, 2, []float64{1, 0, 0, 1, 0, 0, 0, 0})
	set := func(label, name string, n int, h float64) model.Set {
		x := mat.NewDense(n, 2, nil)
		for i := range n {
			x.Set(i, 0, float64(i))
			x.Set(i, 1, float64(i*i)/10)
		}
		return model.Set{Label: label, Name: name, Samples: x, Bandwidth: h}
	}
	m := &model.Model{
		Divergence:     match.Jeffrey,
		QueryBandwidth: match.BandwidthRule{Kind: match.Silverman},
		W:              w,
		Mean:           []float64{1, 2, 3, 4},
		Sets:           []model.Set{set("alice", "a1", 3, 0.25), set("bob", "b1", 5, 0.75), set("alice", "a2", 4, 0.5)},
		Threshold:      threshold,
		Meta: model.Meta{
			Created:    time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC),
			Tool:       "setmatch test",
			Data:       "testdata/tiny",
			Params:     map[string]string{"dim": "2", "nu_w": "1"},
			FinalCost:  -3.5,
			Iterations: 12,
		},
	}
	p := filepath.Join(t.TempDir(), "tiny.smm")
	if err := model.WriteFile(p, m); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInspectText(t *testing.T) {
	p := inspectTestModel(t, math.Inf(1))
	var out, errb bytes.Buffer
	if code := dispatch([]string{"inspect", p}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	fi, _ := os.Stat(p)
	s := out.String()
	for _, want := range []string{
		p, fmt.Sprintf("format %d", model.FormatVersion), "nn-j-dr (not cross-validated)", "(none recorded: the model takes feature vectors)", "2026-11-22T14:00:00Z", "setmatch test", "testdata/tiny",
		"D = 4 → d = 2", "jeffrey", "silverman", "+Inf (closed set",
		"3 sets, 2 classes, 12 frames", "0.25 – 0.75", "final cost -3.5 after 12 iterations",
		"nu_w", "orthonormality error max|WᵀW − I| = 0",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(s, "("+strconv.FormatInt(fi.Size(), 10)+" bytes") {
		t.Errorf("output lacks the file size %d:\n%s", fi.Size(), s)
	}
	// Per-class rows: label, sets, frames.
	if !inspectHasFields(s, "alice", "2", "7") || !inspectHasFields(s, "bob", "1", "5") {
		t.Errorf("per-class table wrong:\n%s", s)
	}
}

// inspectHasFields reports whether some line of s has exactly these fields.
func inspectHasFields(s string, fields ...string) bool {
	for _, line := range strings.Split(s, "\n") {
		if strings.Join(strings.Fields(line), " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

func TestInspectJSON(t *testing.T) {
	p := inspectTestModel(t, 0.125)
	var out, errb bytes.Buffer
	if code := dispatch([]string{"inspect", "--json", p}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		FormatVersion int     `json:"format_version"`
		InputDim      int     `json:"input_dim"`
		Dim           int     `json:"dim"`
		Threshold     float64 `json:"threshold"`
		Sets          int     `json:"sets"`
		Frames        int     `json:"frames"`
		BandwidthMin  float64 `json:"bandwidth_min"`
		Classes       []struct {
			Label    string
			Sets     int
			Frames   int
			SetNames []string `json:"set_names"`
		} `json:"classes"`
		Params map[string]string `json:"params"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if got.FormatVersion != model.FormatVersion || got.InputDim != 4 || got.Dim != 2 || got.Threshold != 0.125 ||
		got.Sets != 3 || got.Frames != 12 || got.BandwidthMin != 0.25 || len(got.Classes) != 2 ||
		got.Classes[0].Label != "alice" || got.Classes[0].Frames != 7 || got.Params["dim"] != "2" {
		t.Errorf("summary %+v", got)
	}
	// Each class's set names, in gallery order: what forget --set takes.
	if len(got.Classes) == 2 && (!slices.Equal(got.Classes[0].SetNames, []string{"a1", "a2"}) || !slices.Equal(got.Classes[1].SetNames, []string{"b1"})) {
		t.Errorf("set names %q, %q; want [a1 a2], [b1]", got.Classes[0].SetNames, got.Classes[1].SetNames)
	}
}

// TestInspectJSONName: a model's path that is not valid UTF-8 is written
// as JSON writes it (U+FFFD for the bad byte) with its exact bytes in
// file_b64; a valid path has none.
func TestInspectJSONName(t *testing.T) {
	valid := inspectTestModel(t, 0.125)
	invalid := filepath.Join(filepath.Dir(valid), "x\xff.smm")
	if err := os.Link(valid, invalid); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string][2]string{
		valid:   {valid, ""},
		invalid: {filepath.Join(filepath.Dir(valid), "x\ufffd.smm"), base64.StdEncoding.EncodeToString([]byte(invalid))},
	} {
		var out, errb bytes.Buffer
		if code := dispatch([]string{"inspect", "--json", p}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var got struct {
			File    string  `json:"file"`
			FileB64 *string `json:"file_b64"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out.String())
		}
		if got.File != want[0] || (got.FileB64 == nil) != (want[1] == "") || got.FileB64 != nil && *got.FileB64 != want[1] {
			t.Errorf("inspect --json %q: file %q, file_b64 %v; want %q", p, got.File, got.FileB64, want)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"inspect"}, &out, &errb); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
	errb.Reset()
	// Two files: the second is not silently left out.
	two := inspectTestModel(t, math.Inf(1))
	if code := dispatch([]string{"inspect", two, two}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "want one model file, got 2 arguments") {
		t.Errorf("two files: exit %d, want 2: %s", code, errb.String())
	}
	errb.Reset()
	dir := t.TempDir()
	if code := dispatch([]string{"inspect", filepath.Join(dir, "none.smm")}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no such file") {
		t.Errorf("missing file: exit %d, %s", code, errb.String())
	}
	p := inspectTestModel(t, math.Inf(1))
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 1
	os.WriteFile(p, b, 0o644)
	errb.Reset()
	if code := dispatch([]string{"inspect", p}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "checksum mismatch: file is corrupt or truncated") {
		t.Errorf("corrupt file: exit %d, %s", code, errb.String())
	}
}

// The golden format-2 file: a kFDA model with a pipeline and a candidate
// table.
func TestInspectKFDA(t *testing.T) {
	p := filepath.Join("..", "..", "model", "testdata", "format-v2.smm")
	code, stdout, stderr := run("inspect", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"kfda-hg (cross-validated accuracy 75.0% at training, on the training sets)", "dim=2 reg=0.01 width=1/median",
		"intensity:4x4+pca:6 (fitted PCA 16 → 6)", "kernel hg, width 1/median = 0.5011, 2 latent dimensions",
		"a latent distance", "kfda-hg *  75.0%", "kfda-j     -",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = run("inspect", "--json", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Method     string   `json:"method"`
		CVAccuracy *float64 `json:"cv_accuracy"`
		Candidates []struct {
			Name       string   `json:"name"`
			CVAccuracy *float64 `json:"cv_accuracy"`
			Seconds    float64  `json:"seconds"`
		} `json:"candidates"`
		Features struct {
			Spec   string `json:"spec"`
			PCADim int    `json:"pca_dim"`
		} `json:"features"`
		KFDA struct {
			Kernel    string  `json:"kernel"`
			Width     float64 `json:"width"`
			LatentDim int     `json:"latent_dim"`
		} `json:"kfda"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if got.Method != "kfda-hg" || got.CVAccuracy == nil || *got.CVAccuracy != 75 || len(got.Candidates) != 3 ||
		got.Candidates[2].CVAccuracy != nil || got.Candidates[1].Seconds != 1.5 || got.Features.Spec != "intensity:4x4+pca:6" ||
		got.Features.PCADim != 6 || got.KFDA.Kernel != "hg" || got.KFDA.Width != 1 || got.KFDA.LatentDim != 2 {
		t.Errorf("summary %+v", got)
	}
}
