package report

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// ScalePoint is one measured size of a scaling plot: X (e.g. the number
// of training sets) and the values measured there; NaN where not
// measured (a run that did not finish).
type ScalePoint struct {
	X      float64
	Values []float64 // one per panel
}

// ScalingPlot writes to path (a .png file) one log-log panel per entry of
// ylabels, side by side: each panel's value of every point against X,
// with the given axis labels and title. Points with a value that is NaN
// or not above 0 are left out of that panel.
func ScalingPlot(path string, points []ScalePoint, xlabel string, ylabels []string, title string) error {
	if filepath.Ext(path) != ".png" {
		return fmt.Errorf("%s: want a .png file name", path)
	}
	if len(points) == 0 || len(ylabels) == 0 {
		return errors.New("scaling plot: no points")
	}
	points = slices.Clone(points)
	slices.SortStableFunc(points, func(a, b ScalePoint) int { return cmp.Compare(a.X, b.X) })
	plots := make([]*plot.Plot, len(ylabels))
	for k, yl := range ylabels {
		var pts plotter.XYs
		for _, p := range points {
			if k < len(p.Values) && p.X > 0 && p.Values[k] > 0 && !math.IsInf(p.Values[k], 0) {
				pts = append(pts, plotter.XY{X: p.X, Y: p.Values[k]})
			}
		}
		pl := plot.New()
		if k == 0 {
			pl.Title.Text = title
		}
		pl.X.Label.Text = xlabel
		pl.Y.Label.Text = yl
		pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
		pl.X.Tick.Marker, pl.Y.Tick.Marker = ticks125{}, ticks125{}
		pl.Add(plotter.NewGrid())
		if len(pts) > 0 {
			line, marks, err := plotter.NewLinePoints(pts)
			if err != nil {
				return fmt.Errorf("scaling plot: %w", err)
			}
			line.Color = color.RGBA{B: 160, A: 255}
			marks.Shape = vgdraw.CircleGlyph{}
			pl.Add(line, marks)
		}
		// A log axis needs a range above 0: gonum pads a range of one
		// value by ±1 (below 0 for values under 1) and panics on it, and
		// an empty panel has no range. One value gets a factor of 2 each
		// way; a panel with no point takes the X of every point, and
		// 1 to 10.
		var xs, ys []float64
		for _, p := range pts {
			xs, ys = append(xs, p.X), append(ys, p.Y)
		}
		if len(xs) == 0 {
			for _, p := range points {
				if p.X > 0 && !math.IsInf(p.X, 0) {
					xs = append(xs, p.X)
				}
			}
		}
		pl.X.Min, pl.X.Max = logRange(xs)
		pl.Y.Min, pl.Y.Max = logRange(ys)
		plots[k] = pl
	}
	const w, h = 4.5 * vg.Inch, 3.5 * vg.Inch
	img := vgimg.New(w*vg.Length(len(plots)), h)
	dc := vgdraw.New(img)
	tiles := vgdraw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	row := [][]*plot.Plot{plots}
	canvases := plot.Align(row, tiles, dc)
	for k, pl := range plots {
		pl.Draw(canvases[0][k])
	}
	return writePNG(path, img)
}

// logRange returns the range of a log axis over v, all above 0: their
// least and greatest, a factor of 2 wider each way for a single value,
// and 1 to 10 for none.
func logRange(v []float64) (lo, hi float64) {
	if len(v) == 0 {
		return 1, 10
	}
	lo, hi = slices.Min(v), slices.Max(v)
	if lo == hi {
		return lo / 2, hi * 2
	}
	return lo, hi
}

// ticks125 marks a log axis at 1, 2 and 5 times the powers of ten in its
// range, each labelled, so that a range within one decade has labels too.
type ticks125 struct{}

// Ticks returns the marks between lo and hi.
func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	if !(lo > 0) || !(hi >= lo) {
		return out
	}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return out
}
