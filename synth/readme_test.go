package synth

import "testing"

func TestDescription(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Kind: Subspace, Classes: 2, Sets: 2, Frames: 4, Dim: 1}, "subspace, info-dim 1"},
		{Options{Kind: Subspace, Classes: 2, Sets: 2, Frames: 4, Dim: 20}, "subspace, info-dim 2"},
		{Options{Kind: Subspace, Classes: 2, Sets: 2, Frames: 4, Dim: 20, InfoDim: 5}, "subspace, info-dim 5"},
		{Options{Kind: BeyondGauss, ShapeDims: 1}, "beyond-gauss"},
		{Options{Kind: BeyondGauss, ShapeDims: 3}, "beyond-gauss, shape-dims 3"},
		{Options{Kind: Lighting, InfoDim: 4}, "lighting"},
	} {
		if got := c.o.Description(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}
