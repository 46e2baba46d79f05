package deploy

import (
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"setmatch/method"
	"setmatch/model"
)

// TestLatentDimAfterForgetAndEnrol: a kFDA model trained on C classes
// with fewer latent dimensions than C − 1 keeps training's number while
// the gallery has the classes for it; a forget that leaves fewer lowers
// it to C − 1, and enrolling the classes again brings it back to
// training's number, neither lower nor above it. A model trained with
// all C − 1 keeps all of them as classes come and go.
func TestLatentDimAfterForgetAndEnrol(t *testing.T) {
	const classes = 6
	all, labels, names := ringSets(classes, 3, 3, 0.5, 17)
	for _, c := range []struct {
		trained int // latent dimension training chose (grid's)
		want    []int
		record  string // its record, TrainedLatentDimParam
	}{
		// after forgetting classes 5, 4, 3, 2 and enrolling them back
		// one by one: 2 at 5, 4, 3 classes, 1 at 2, then 2, 2, 2, 2
		{2, []int{2, 2, 2, 1, 2, 2, 2, 2}, "2"},
		{classes - 1, []int{4, 3, 2, 1, 2, 3, 4, 5}, allLatentDims},
	} {
		opt := Options{Method: method.KFDAHG, Grid: grid(), Seed: 3, Workers: 2}
		opt.Grid.Widths, opt.Grid.Regs, opt.Grid.Dims = []float64{1}, []float64{1e-2}, []int{c.trained}
		m := buildRule(t, &opt, "0.5", all, labels, names).Model
		if got := m.Discriminant.Dim(); got != c.trained {
			t.Fatalf("trained with %d latent dimensions, want %d", got, c.trained)
		}
		var got []int
		var gone []string
		for k := classes - 1; k >= 2; k-- {
			l := labels[3*k]
			if _, err := Forget(m, l, "", nil, 2, time.Unix(int64(k), 0)); err != nil {
				t.Fatal(err)
			}
			gone = append(gone, l)
			got = append(got, m.Discriminant.Dim())
		}
		for i := len(gone) - 1; i >= 0; i-- {
			var add []model.NewSet
			for j, l := range labels {
				if l == gone[i] {
					add = append(add, model.NewSet{Label: l, Name: names[j], Frames: mat.DenseCopyOf(all[j])})
				}
			}
			if _, err := Enroll(m, add, nil, 2, time.Unix(int64(100+i), 0)); err != nil {
				t.Fatal(err)
			}
			got = append(got, m.Discriminant.Dim())
		}
		for i, r := range got {
			if r != c.want[i] {
				t.Errorf("trained with %d latent dimensions: after each change %v, want %v", c.trained, got, c.want)
				break
			}
		}
		if p := m.Selection.Params[TrainedLatentDimParam]; p != c.record {
			t.Errorf("trained with %d: recorded as %q, want %q", c.trained, p, c.record)
		}
		if p := m.Selection.Params["latent-dim"]; p != strconv.Itoa(m.Discriminant.Dim()) {
			t.Errorf("trained with %d: the model records latent-dim %q, its discriminant has %d", c.trained, p, m.Discriminant.Dim())
		}
	}
}
