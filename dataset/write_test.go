package dataset

import (
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestWriteLoadRoundTrip(t *testing.T) {
	set := func(class, name string, base float64) Set {
		x := mat.NewDense(3, 2, nil)
		for i := range 3 {
			x.Set(i, 0, base+float64(i))
			x.Set(i, 1, -base/3) // not exactly representable in decimal
		}
		return Set{Class: class, Name: name, Frames: x}
	}
	d := &Dataset{Sets: []Set{set("cat", "a", 1), set("cat", "b", 2), set("dog", "a", 3)}}
	dir := filepath.Join(t.TempDir(), "data")
	if err := Write(dir, d); err != nil {
		t.Fatal(err)
	}
	// Writing again replaces the files.
	d.Sets[2] = set("dog", "a", 7)
	if err := Write(dir, d); err != nil {
		t.Fatal(err)
	}
	e, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.Classes, ","); got != "cat,dog" || len(e.Sets) != 3 || e.Pooled {
		t.Fatalf("loaded classes %s, %d sets, pooled %v", got, len(e.Sets), e.Pooled)
	}
	for i, s := range d.Sets {
		g := e.Sets[i]
		if g.Class != s.Class || g.Name != s.Name || g.Path != filepath.Join(dir, s.Class, s.Name+".npy") {
			t.Errorf("set %d: loaded %s/%s from %s", i, g.Class, g.Name, g.Path)
		}
		if !mat.Equal(g.Frames, s.Frames) {
			t.Errorf("set %d: frames differ after write and load:\n%v\n%v", i, mat.Formatted(g.Frames), mat.Formatted(s.Frames))
		}
	}
}

func TestWriteRefusesUnusableNames(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{1, 2})
	for _, s := range []Set{
		{Class: "", Name: "a"}, {Class: "c", Name: ""}, {Class: "c/d", Name: "a"},
		{Class: "c", Name: `a\b`}, {Class: "..", Name: "a"}, {Class: "c", Name: ".."},
	} {
		s.Frames = x
		dir := t.TempDir()
		err := Write(dir, &Dataset{Sets: []Set{s}})
		if err == nil || !strings.Contains(err.Error(), "unusable name") {
			t.Errorf("class %q, set %q: error %v, want an unusable name", s.Class, s.Name, err)
		}
	}
}
