package dataset

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCheckTrain(t *testing.T) {
	set := func(name string, n int) Set {
		return Set{Class: "c", Name: name, Path: "data/c/" + name, Frames: mat.NewDense(n, 2, nil)}
	}
	// other is a set of class, its frames 0 but the values v.
	other := func(class, name string, n int, v ...float64) Set {
		x := mat.NewDense(n, 2, nil)
		for k, f := range v {
			x.Set(k/2, k%2, f)
		}
		return Set{Class: class, Name: name, Path: "data/" + class + "/" + name, Frames: x}
	}
	for _, c := range []struct {
		sets []Set
		want string
	}{
		{[]Set{set("a", 2), set("b", 3)}, ""},
		{[]Set{set("a", 2)}, "data holds 1 set: training needs at least 2 sets"},
		{[]Set{set("a", 2), set("b", 1)}, "set data/c/b has 1 frame: a set's density needs at least 2 frames: add frames to it or remove it"},
		{[]Set{set("a", 2), set("b", 3), set("c", 3)}, "sets data/c/b and data/c/c hold the same frames (in this or another order): give each burst once (remove one of them)"},
		{[]Set{set("a", 2), other("d", "a", 2)}, "sets data/c/a and data/d/a hold the same frames (in this or another order): give each burst once (remove one of them, or move it to the class it belongs to)"},
		{[]Set{other("c", "a", 2, 1, 2, 3, 4), other("d", "a", 2, 3, 4, 1, 2)}, "sets data/c/a and data/d/a hold the same frames (in this or another order): give each burst once (remove one of them, or move it to the class it belongs to)"},
		{[]Set{set("a", 2), other("d", "a", 2, 1)}, ""},
	} {
		err := (&Dataset{Root: "data", Sets: c.sets}).CheckTrain()
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("no error, want %q", c.want)
		}
	}
}
