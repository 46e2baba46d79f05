package report

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
)

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s: %v image", path, b)
	}
}

func TestCostPlot(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cost.png")
	if err := CostPlot(p, []float64{3, 2, 1.5, 1.2, 1.1}, "training cost"); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p)
	// An iteration whose cost is not finite (a step that diverged) is
	// left out of the line, not a reason to fail.
	if err := CostPlot(p, []float64{3, math.Inf(1), 2, math.NaN(), 1, math.Inf(-1)}, "training cost"); err != nil {
		t.Errorf("costs that are not finite: %v", err)
	}
	if err := CostPlot(p, nil, "x"); err == nil {
		t.Error("no iterations: no error")
	}
	if err := CostPlot(filepath.Join(t.TempDir(), "cost.svg"), []float64{1}, "x"); err == nil {
		t.Error("not .png: no error")
	}
}

// divergenceHeatmap draws the one matrix div between the sets of labels to
// path with DivergenceHeatmaps, on the matrix's own colour scale.
func divergenceHeatmap(path string, div mat.Symmetric, labels []string, title string) error {
	return DivergenceHeatmaps(labels, Heatmap{Path: path, Div: div, Title: title})
}

func TestDivergenceHeatmap(t *testing.T) {
	labels := []string{"b", "a", "b", "a", "c", "c"}
	m := len(labels)
	div := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i + 1; j < m; j++ {
			v := 2.0
			if labels[i] == labels[j] {
				v = 0.2
			}
			div.SetSym(i, j, v)
		}
	}
	p := filepath.Join(t.TempDir(), "div.png")
	if err := divergenceHeatmap(p, div, labels, "divergences"); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p)
	if os.Getenv("REPORT_KEEP") != "" {
		data, _ := os.ReadFile(p)
		os.WriteFile(os.Getenv("REPORT_KEEP"), data, 0o644)
	}
	if err := divergenceHeatmap(p, div, labels[:2], "x"); err == nil {
		t.Error("label count: no error")
	}
	if err := DivergenceHeatmaps(labels); err == nil {
		t.Error("no matrices: no error")
	}
	if err := divergenceHeatmap(filepath.Join(t.TempDir(), "div.svg"), div, labels, "x"); err == nil {
		t.Error("not .png: no error")
	}
}

// beforeAfter returns two matrices between sets of classes labels: before,
// every pair about 0.1 apart (0.05 within a class); after, 0.05 within a
// class and 1.9 across.
func beforeAfter(labels []string) (before, after *mat.SymDense) {
	m := len(labels)
	before, after = mat.NewSymDense(m, nil), mat.NewSymDense(m, nil)
	for i := range m {
		for j := i + 1; j < m; j++ {
			b, a := 0.1, 1.9
			if labels[i] == labels[j] {
				b, a = 0.05, 0.05
			}
			before.SetSym(i, j, b)
			after.SetSym(i, j, a)
		}
	}
	return before, after
}

func TestHeatmapsShareOneScale(t *testing.T) {
	labels := []string{"b", "a", "b", "a", "c", "c"}
	before, after := beforeAfter(labels)
	figs, err := heatmapFigures(labels, []Heatmap{
		{Path: "before.png", Div: before, Title: "before"},
		{Path: "after.png", Div: after, Title: "after"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// One scale: from 0 (the diagonal) to the 98th percentile of the
	// pooled off-diagonal values, which is 1.9.
	want := colourScale{min: 0, max: 1.9}
	for i, f := range figs {
		if f.scale != want {
			t.Errorf("figure %d: scale %+v, want %+v", i, f.scale, want)
		}
		if f.bar.Y.Min != want.min || f.bar.Y.Max != want.max {
			t.Errorf("figure %d: colour bar from %v to %v, want %v to %v", i, f.bar.Y.Min, f.bar.Y.Max, want.min, want.max)
		}
	}
	// Alone, the before matrix gets its own, narrower scale.
	alone, err := heatmapFigures(labels, []Heatmap{{Path: "before.png", Div: before}})
	if err != nil {
		t.Fatal(err)
	}
	if got := alone[0].scale; got != (colourScale{min: 0, max: 0.1}) {
		t.Errorf("before alone: scale %+v, want 0 to 0.1", got)
	}

	// In the pictures, a within-class cell (0.05 in both) has one colour
	// in both, and an across-class cell (0.1 before, 1.9 after) differs.
	before0, after0 := renderFig(t, figs[0]), renderFig(t, figs[1])
	m := len(labels)
	same := func(a, b color.Color) bool {
		r1, g1, b1, _ := a.RGBA()
		r2, g2, b2, _ := b.RGBA()
		return r1 == r2 && g1 == g2 && b1 == b2
	}
	// Rows sorted by class: a a b b c c; (0,1) is within a, (0,2) across.
	if a, b := before0.at(0, 1, m), after0.at(0, 1, m); !same(a, b) {
		t.Errorf("within-class cell: colour %v before, %v after; want one colour for one value", a, b)
	}
	if a, b := before0.at(0, 2, m), after0.at(0, 2, m); same(a, b) {
		t.Errorf("across-class cell: colour %v before and after, for 0.1 and 1.9", a)
	}
}

// TestHeatmapScaleIgnoresOutliers checks that the colour scale ends at
// the 98th percentile of the off-diagonal values, not at their largest: a
// single outlying pair of sets gets the brightest colour and leaves the
// rest of the scale to the other values.
func TestHeatmapScaleIgnoresOutliers(t *testing.T) {
	labels := []string{"a", "a", "b", "b", "c", "c", "d", "d", "e", "e"}
	m := len(labels)
	div := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i + 1; j < m; j++ {
			div.SetSym(i, j, 1+float64(i+j)/100)
		}
	}
	div.SetSym(0, 9, 50) // 2 of the 90 off-diagonal values
	figs, err := heatmapFigures(labels, []Heatmap{{Path: "x.png", Div: div}})
	if err != nil {
		t.Fatal(err)
	}
	// The 90 off-diagonal values sorted, the one at 0.98·89, rounded
	// down: the largest value but the outlier's two, 1 + (8+9)/100.
	if got, want := figs[0].scale, (colourScale{min: 0, max: 1.17}); got != want {
		t.Errorf("scale %+v, want %+v", got, want)
	}
}

// picture is a rendered figure and where its cells are.
type picture struct {
	img  image.Image
	data image.Rectangle // the heat map's cells, in pixels
}

func renderFig(t *testing.T, f *figure) picture {
	t.Helper()
	c, data := f.render()
	img := c.Image()
	dpi := c.DPI()
	h := img.Bounds().Dy()
	return picture{img: img, data: image.Rect(
		int(data.Min.X.Dots(dpi)), h-int(data.Max.Y.Dots(dpi)),
		int(data.Max.X.Dots(dpi)), h-int(data.Min.Y.Dots(dpi)))}
}

// at returns the colour at the centre of cell (r, c) of an m×m map.
func (p picture) at(r, c, m int) color.Color {
	x := p.data.Min.X + (2*c+1)*p.data.Dx()/(2*m)
	y := p.data.Min.Y + (2*r+1)*p.data.Dy()/(2*m)
	return p.img.At(x, y)
}

func TestHeatmapClassesAndBoundaries(t *testing.T) {
	labels := []string{"s10", "s2", "s10", "s1", "s2", "s2"}
	before, _ := beforeAfter(labels)
	figs, err := heatmapFigures(labels, []Heatmap{{Path: "x.png", Div: before}})
	if err != nil {
		t.Fatal(err)
	}
	f := figs[0]
	// Sorted s1 | s2 s2 s2 | s10 s10: lines before rows 1 and 4.
	if want := []float64{0.5, 3.5}; !reflect.DeepEqual(f.boundaries, want) {
		t.Errorf("boundaries at %v, want %v", f.boundaries, want)
	}
	// In the picture: grey lines at the class changes, none between two
	// sets of one class. Rows and columns are s1 | s2 s2 s2 | s10 s10, and
	// every across-class cell is 0.1, the top of the scale (white).
	pic := renderFig(t, f)
	m := len(labels)
	grey := func(c color.Color) bool {
		r, g, b, _ := c.RGBA()
		near := func(v uint32) bool { return v>>8 > 0x50 && v>>8 < 0xb0 }
		return near(r) && near(g) && near(b)
	}
	for _, c := range []struct {
		name     string
		x, y     float64 // in cells from the top left corner
		wantLine bool
	}{
		{"s1|s2, row 5", 1, 5.5, true},
		{"s2|s10, row 0", 4, 0.5, true},
		{"s1/s2, column 5", 5.5, 1, true},
		{"s2/s10, column 0", 0.5, 4, true},
		{"s2 s2, row 5", 2, 5.5, false},
		{"s2/s2, column 0", 0.5, 2, false},
		{"s10 s10, row 0", 5, 0.5, false},
	} {
		// Look at the pixel nearest the point and its neighbours: a line is
		// about one pixel wide and may fall either side of a rounding.
		x := pic.data.Min.X + int(math.Round(c.x*float64(pic.data.Dx())/float64(m)))
		y := pic.data.Min.Y + int(math.Round(c.y*float64(pic.data.Dy())/float64(m)))
		line := false
		var cols []color.Color
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				col := pic.img.At(x+dx, y+dy)
				cols = append(cols, col)
				line = line || grey(col)
			}
		}
		if line != c.wantLine {
			t.Errorf("%s: colours %v, want a class line: %v", c.name, cols, c.wantLine)
		}
	}
	mf := float64(m)
	// Each class named at the middle of its block.
	ticks := func(tk plot.Ticker) (names []string, at []float64) {
		for _, x := range tk.Ticks(-0.5, mf-0.5) {
			names, at = append(names, x.Label), append(at, x.Value)
		}
		return names, at
	}
	names, at := ticks(f.heat.X.Tick.Marker)

	if !slices.Equal(names, []string{"s1", "s2", "s10"}) || !slices.Equal(at, []float64{0, 2, 4.5}) {
		t.Errorf("x axis: %v at %v, want s1 s2 s10 at 0 2 4.5", names, at)
	}
	names, at = ticks(f.heat.Y.Tick.Marker)
	if !slices.Equal(names, []string{"s1", "s2", "s10"}) || !slices.Equal(at, []float64{5, 3, 0.5}) {
		t.Errorf("y axis: %v at %v, want s1 s2 s10 at 5 3 0.5 (top down)", names, at)
	}

	// One class: no lines.
	one, _ := heatmapFigures([]string{"a", "a"}, []Heatmap{{Path: "x.png", Div: mat.NewSymDense(2, []float64{0, 1, 1, 0})}})
	if len(one[0].boundaries) != 0 {
		t.Errorf("one class: boundaries %v", one[0].boundaries)
	}
}

func TestNaturalLess(t *testing.T) {
	got := []string{"s10", "s2", "s1", "b", "a10", "a9", "s01", "10", "9", ""}
	sort.SliceStable(got, func(i, j int) bool { return naturalLess(got[i], got[j]) })
	want := []string{"", "9", "10", "a9", "a10", "b", "s01", "s1", "s2", "s10"}
	if !slices.Equal(got, want) {
		t.Errorf("natural order %q, want %q", got, want)
	}
}

// TestScalingPlot writes a two-panel log-log plot, with a point that did
// not finish (NaN) left out.
func TestScalingPlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scale.png")
	pts := []ScalePoint{{X: 10, Values: []float64{1, 50}}, {X: 100, Values: []float64{8, 120}}, {X: 1000, Values: []float64{math.NaN(), math.NaN()}}}
	if err := ScalingPlot(path, pts, "training sets", []string{"seconds", "MiB"}, "train"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("not a PNG: %v", err)
	}
	if err := ScalingPlot(filepath.Join(t.TempDir(), "x.svg"), pts, "x", []string{"y"}, ""); err == nil {
		t.Error("a .svg name gave no error")
	}
}

// TestScalingPlotFewPoints: one point, points at one X, or a panel with
// no point that finished still make a plot; a log axis of one value was
// padded by ±1 to a range below 0, and gonum panicked ("Values must be
// greater than 0 for a log scale": setmatch bench train --plot of one
// size).
func TestScalingPlotFewPoints(t *testing.T) {
	nan := math.NaN()
	for name, pts := range map[string][]ScalePoint{
		"one point":          {{X: 3, Values: []float64{0.027, 14}}},
		"one point at X = 1": {{X: 1, Values: []float64{0.5, 0.5}}},
		"one X":              {{X: 10, Values: []float64{1, 50}}, {X: 10, Values: []float64{2, 60}}},
		"none finished":      {{X: 10, Values: []float64{nan, nan}}, {X: 100, Values: []float64{nan, nan}}},
		"one panel empty":    {{X: 10, Values: []float64{1, nan}}, {X: 100, Values: []float64{2, nan}}},
		"nothing above 0":    {{X: 0, Values: []float64{0, 0}}},
		"a value of 0":       {{X: 10, Values: []float64{0, 50}}, {X: 100, Values: []float64{8, 0}}, {X: 1000, Values: []float64{9, 70}}},
	} {
		path := filepath.Join(t.TempDir(), "scale.png")
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", name, r)
				}
			}()
			if err := ScalingPlot(path, pts, "training sets", []string{"seconds", "MiB"}, "train"); err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := png.Decode(f); err != nil {
				t.Errorf("%s: not a PNG: %v", name, err)
			}
		}()
	}
}

// TestPlotsSayTheFileTheyCannotWrite checks that every plot returns the
// error of a PNG file it cannot create or write, naming the file: a
// folder that is not there, and a file on a full disk (a link to
// /dev/full, where every write fails, where the system has one).
func TestPlotsSayTheFileTheyCannotWrite(t *testing.T) {
	paths := []string{filepath.Join(t.TempDir(), "missing", "x.png")}
	full := filepath.Join(t.TempDir(), "full.png")
	if err := os.Symlink("/dev/full", full); err != nil {
		t.Log("no link to /dev/full, the full disk not tried:", err)
	} else if _, err := os.Stat(full); err != nil {
		t.Log("no /dev/full, the full disk not tried:", err)
	} else {
		paths = append(paths, full)
	}
	div := mat.NewSymDense(2, []float64{0, 1, 1, 0})
	plots := map[string]func(path string) error{
		"CostPlot": func(path string) error { return CostPlot(path, []float64{2, 1}, "cost") },
		"DivergenceHeatmaps": func(path string) error {
			return DivergenceHeatmaps([]string{"a", "b"}, Heatmap{Path: path, Div: div, Title: "d"})
		},
		"ScalingPlot": func(path string) error {
			return ScalingPlot(path, []ScalePoint{{X: 10, Values: []float64{1}}, {X: 100, Values: []float64{8}}}, "sets", []string{"s"}, "t")
		},
	}
	for name, write := range plots {
		for _, path := range paths {
			if err := write(path); err == nil || !strings.Contains(err.Error(), "writing "+path+": ") {
				t.Errorf("%s to %s: %v, want an error naming the file", name, path, err)
			}
		}
	}
}
