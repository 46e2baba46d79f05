package finite

import (
	"encoding/json"
	"math"
	"testing"
)

func TestIsAndPtr(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {-2.5, "-2.5"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"},
	} {
		if got := Is(c.v); got != (c.want != "null") {
			t.Errorf("Is(%v) = %v", c.v, got)
		}
		b, err := json.Marshal(Ptr(c.v))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("Ptr(%v) encodes as %s, want %s", c.v, b, c.want)
		}
	}
}
