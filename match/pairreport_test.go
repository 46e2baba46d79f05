package match

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestComparePair(t *testing.T) {
	p := mustKDE(t, mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1}), 0.5)
	q := mustKDE(t, mat.NewDense(3, 2, []float64{5, 5, 6, 5, 5, 6}), 0.5)
	rule := BandwidthRule{Kind: Fixed, Fixed: 0.5}
	r, err := ComparePair("a.npy", "b.npy", p, q, rule, true)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Compare(p, q)
	if r.Div != want || r.OneSided == nil {
		t.Fatalf("got %+v, want divergences %+v and the one-sided ones", r, want)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "A  a.npy: 3 frames × 2 features, bandwidth 0.5") ||
		!strings.HasPrefix(lines[5], "one-sided hellinger2 over A ") {
		t.Errorf("text:\n%s", text.String())
	}
	r.OneSided.JeffreyP = math.Inf(1)
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	one := got["one_sided"].(map[string]any)
	if v, ok := one["jeffrey_over_a"]; !ok || v != nil {
		t.Errorf("jeffrey_over_a = %v, want null for +Inf", v)
	}
	if got["dim"] != 2.0 || got["bandwidth_rule"] != rule.String() {
		t.Errorf("json: %s", js.String())
	}

	q3 := mustKDE(t, mat.NewDense(2, 3, []float64{0, 0, 0, 1, 1, 1}), 0.5)
	if _, err := ComparePair("a.npy", "c.npy", p, q3, rule, false); err == nil ||
		err.Error() != "a.npy has 2 features per frame but c.npy has 3: both sets must come from the same feature extractor" {
		t.Errorf("different dimensions: %v", err)
	}
}

// TestComparePairNotANumber: bandwidths whose densities under- or
// overflow give an error that says so, not divergences of NaN.
func TestComparePairNotANumber(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1})
	y := mat.NewDense(3, 2, []float64{0.5, 0, 1, 0.5, 0, 1})
	for _, h := range []float64{1e-320, 1e308} {
		_, err := ComparePair("a.npy", "b.npy", mustKDE(t, x, h), mustKDE(t, y, h), BandwidthRule{Kind: Fixed, Fixed: h}, false)
		if err == nil || !strings.Contains(err.Error(), "under- or overflow") {
			t.Errorf("bandwidth %g: err = %v, want one that says the densities under- or overflow", h, err)
		}
	}
}
