package dataset

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCheckTrain(t *testing.T) {
	set := func(name string, n int) Set {
		return Set{Class: "c", Name: name, Path: "data/c/" + name, Frames: mat.NewDense(n, 2, nil)}
	}
	for _, c := range []struct {
		sets []Set
		want string
	}{
		{[]Set{set("a", 2), set("b", 3)}, ""},
		{[]Set{set("a", 2)}, "data holds 1 set: training needs at least 2 sets"},
		{[]Set{set("a", 2), set("b", 1)}, "set data/c/b has 1 frame: a set's density needs at least 2 frames: add frames to it or remove it"},
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
