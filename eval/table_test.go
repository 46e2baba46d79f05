package eval

import (
	"bytes"
	"encoding/json"
	"testing"

	"setmatch/method"
)

// tableRun is a result of two methods over two splits, auto's paired
// difference on the other's row.
func tableRun() (*Result, Run) {
	res := &Result{Methods: map[method.Name]*MethodResult{
		method.NNH:  {Mean: 75, Std: 5, Accuracies: []float64{70, 80}, Seconds: 1.25, Params: []string{"a", "b"}, AutoMinus: &Paired{Mean: 5, SE: 1.5}},
		method.Auto: {Mean: 80, Std: 0, Accuracies: []float64{80, 80}, Seconds: 10, Params: []string{"c", "d"}},
	}, Splits: 2, SharedSeconds: 2, TotalSeconds: 12}
	p := Protocol{Kind: RandomSplits, Gallery: 2, Probe: 1, Splits: 2}
	return res, Run{Data: "d", Features: "files", Protocol: p, Methods: []method.Name{method.NNH, method.Auto}, Seed: 3, LoadSeconds: 0.5}
}

func TestWriteTable(t *testing.T) {
	res, run := tableRun()
	var b bytes.Buffer
	if err := res.WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	want := `data d, features files, protocol gallery=2,probe=1,splits=2, seed 3

method       accuracy (%)   seconds    auto − it (SE)
nn-h         75.0 ±   5.0       1.2     +5.0 ( 1.5)
auto         80.0 ±   0.0      10.0

auto − it: auto's accuracy minus the method's, split by split, mean over the splits (standard error of that mean, the splits taken as independent)

shared work (features, distances, divergence grid, subspaces, covariances): 2.0 s; loading 0.5 s; total 12.5 s
`
	if b.String() != want {
		t.Errorf("table\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteTableOneSplit: one split's accuracy has no spread to print.
func TestWriteTableOneSplit(t *testing.T) {
	res := &Result{Methods: map[method.Name]*MethodResult{method.NNH: {Mean: 75, Accuracies: []float64{75}, Seconds: 1}}, Splits: 1}
	run := Run{Data: "d", Features: "files", Protocol: Protocol{Kind: RandomSplits, Gallery: 2, Probe: 1, Splits: 1}, Methods: []method.Name{method.NNH}, Seed: 3}
	var b bytes.Buffer
	if err := res.WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	want := `data d, features files, protocol gallery=2,probe=1,splits=1, seed 3

method       accuracy (%)   seconds
nn-h         75.0               1.0

one split: accuracies without a standard deviation

shared work (features, distances, divergence grid, subspaces, covariances): 0.0 s; loading 0.0 s; total 0.0 s
`
	if b.String() != want {
		t.Errorf("table\n%s\nwant\n%s", b.String(), want)
	}
}

func TestRecord(t *testing.T) {
	res, run := tableRun()
	js, err := json.Marshal(res.Record(run))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"methods":{"auto":{"mean":80,"std":0,"accuracies":[80,80],"seconds":10,"params":["c","d"]},"nn-h":{"mean":75,"std":5,"accuracies":[70,80],"seconds":1.25,"params":["a","b"],"auto_minus":{"mean":5,"se":1.5}}},"order":["nn-h","auto"],"protocol":"gallery=2,probe=1,splits=2","features":"files","data":"d","splits":2,"seed":3,"load_seconds":0.5,"shared_seconds":2,"total_seconds":12}`
	if string(js) != want {
		t.Errorf("record\n%s\nwant\n%s", js, want)
	}
}

func TestWriteSpectra(t *testing.T) {
	var b bytes.Buffer
	reps := []method.SpectrumReport{{Kernel: "hg", Width: 0.5, Min: -0.25, Max: 4}}
	if err := WriteSpectra(&b, 6, reps); err != nil {
		t.Fatal(err)
	}
	want := "6 gallery sets, bandwidth global*1\nkernel       s       min eig       max eig    min/max\nhg         0.5         -0.25             4  -6.25e-02\n"
	if b.String() != want {
		t.Errorf("spectra\n%q\nwant\n%q", b.String(), want)
	}
}
