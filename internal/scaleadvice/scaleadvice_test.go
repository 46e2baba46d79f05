package scaleadvice

import (
	"math"
	"strconv"
	"testing"
)

// inRange reports whether s is from 1 to 10 to within a float64's
// rounding: the guarantee of divisor and multiplier.
func inRange(s float64) bool { return s >= 1-1e-15 && s <= 10*(1+1e-15) }

// TestFactors: the factor brings the largest magnitude to between 1 and
// 10, at powers of ten and next to them, at the ends of the float64
// range, and below the smallest normal float64 gives the largest power
// of ten a float64 holds.
func TestFactors(t *testing.T) {
	up := math.Inf(1)
	below, above := func(v float64) float64 { return math.Nextafter(v, 0) }, func(v float64) float64 { return math.Nextafter(v, up) }
	for _, c := range []struct {
		v          float64
		div, mul   float64
		scaledOver bool // v/div, or v·mul where v < 1, is from 1 to 10
	}{
		{1, 1, 1, true},
		{9.99, 1, 1, true},
		{10, 10, 1, true},
		{below(10), 1, 1, true},
		{above(10), 10, 1, true},
		{1e155, 1e155, 1, true},
		{below(1e155), 1e154, 1, true},
		{above(1e155), 1e155, 1, true},
		{3e151, 1e151, 1, true},
		{1e23, 1e23, 1, true}, // not a float64: the one nearest it, below it
		{below(1e23), 1e22, 1, true},
		{1e308, 1e308, 1, true},
		{below(1e308), 1e307, 1, true},
		{math.MaxFloat64, 1e308, 1, true},
		{0.5, 1, 10, true},
		{0.1, 1, 10, true},
		{below(0.1), 1, 100, true},
		{above(0.1), 1, 10, true},
		{3e-160, 1, 1e160, true},
		{1e-160, 1, 1e160, true},
		{below(1e-160), 1, 1e161, true},
		{above(1e-160), 1, 1e160, true},
		{2.2250738585072014e-308, 1, 1e308, true}, // the smallest normal float64
		{1e-308, 1, 1e308, true},
		{1.66e-310, 1, 1e308, false},
		{5e-324, 1, 1e308, false}, // the smallest float64 above 0
		{0, 1, 1, false},
		{-5, 1, 1, false},
		{math.NaN(), 1, 1, false},
		{math.Inf(1), 1e308, 1, false},
	} {
		d, m := divisor(c.v), multiplier(c.v)
		if d != c.div || m != c.mul {
			t.Errorf("v %v: divisor %v, multiplier %v, want %v, %v", c.v, d, m, c.div, c.mul)
		}
		s := c.v / d
		if c.v < 1 {
			s = c.v * m
		}
		if inRange(s) != c.scaledOver {
			t.Errorf("v %v: scaled to %v, from 1 to 10: %v, want %v", c.v, s, inRange(s), c.scaledOver)
		}
	}
	// Below 1e-308 the largest power of ten still brings v to 4.9e-16 or
	// more, far above the smallest bound a check compares with (1e-150).
	if s := 5e-324 * multiplier(5e-324); s < 4.9e-16 {
		t.Errorf("5e-324 scaled up to %v, want at least 4.9e-16", s)
	}
}

// TestEveryPower: for every power of ten a float64 holds, the values at
// it and a few units in the last place either side are brought to between
// 1 and 10, by a divisor above 1 and by a multiplier from 2.2e-308 up.
func TestEveryPower(t *testing.T) {
	for k := -307; k <= 308; k++ {
		p, err := strconv.ParseFloat("1e"+strconv.Itoa(k), 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []float64{p, math.Nextafter(p, 0), math.Nextafter(math.Nextafter(p, 0), 0), math.Nextafter(p, math.Inf(1)), 2 * p, 9.999 * p} {
			if math.IsInf(v, 1) { // 2e308 and above
				continue
			}
			if v >= 1 {
				if s := v / divisor(v); !inRange(s) {
					t.Errorf("%v / %v = %v, want 1 to 10", v, divisor(v), s)
				}
			}
			if v >= 2.2250738585072014e-308 && v <= 1 {
				if s := v * multiplier(v); !inRange(s) {
					t.Errorf("%v × %v = %v, want 1 to 10", v, multiplier(v), s)
				}
			}
		}
	}
}

// TestAdvice: the words and the factor printed.
func TestAdvice(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Down(1.5e155), "scale the features down, e.g. divide them by 1e+155"},
		{Down(math.MaxFloat64), "scale the features down, e.g. divide them by 1e+308"},
		{Up(3e-160), "scale the features up, e.g. multiply them by 1e+160"},
		{Up(5e-324), "scale the features up, e.g. multiply them by 1e+308"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
