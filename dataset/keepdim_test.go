package dataset

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestKeepDim(t *testing.T) {
	set := func(name string, d int) Set {
		return Set{Class: "c", Name: name, Path: "c/" + name, Frames: mat.NewDense(2, d, nil)}
	}
	wrong := func(s Set, d int) error { return fmt.Errorf("%s: %d", s.Path, d) }
	d := &Dataset{Sets: []Set{set("a", 3), set("b", 4), set("c", 3)}, Failed: []FailedSet{{Set: Set{Name: "old"}}}}
	if !d.KeepDim(3, wrong) {
		t.Fatal("KeepDim(3) = false")
	}
	if len(d.Sets) != 2 || d.Sets[0].Name != "a" || d.Sets[1].Name != "c" {
		t.Errorf("sets kept: %+v", d.Sets)
	}
	if len(d.Failed) != 2 || d.Failed[0].Name != "old" || d.Failed[1].Err.Error() != "c/b: 4" || d.Failed[1].Frames != nil {
		t.Errorf("failed: %+v", d.Failed)
	}
	d = &Dataset{Sets: []Set{set("a", 3), set("b", 4)}}
	if d.KeepDim(5, wrong) || len(d.Sets) != 2 || len(d.Failed) != 0 {
		t.Errorf("KeepDim(5) with no set of 5 features changed the data set: %+v", d)
	}
}
