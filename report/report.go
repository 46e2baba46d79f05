// Package report draws the PNG plots of a training report with
// gonum.org/v1/plot: the cost per iteration, and the set-to-set divergence
// matrix with the sets sorted by class, as in Fig. 2 and 3 of the paper.
package report

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// CostPlot writes to path (a .png file) the line plot of cost[i] against
// iteration i.
func CostPlot(path string, cost []float64, title string) error {
	if len(cost) == 0 {
		return errors.New("cost plot: no iterations")
	}
	pts := make(plotter.XYs, 0, len(cost))
	for i, c := range cost {
		if !math.IsNaN(c) && !math.IsInf(c, 0) {
			pts = append(pts, plotter.XY{X: float64(i), Y: c})
		}
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "iteration"
	p.Y.Label.Text = "cost L(W)"
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("cost plot: %w", err)
	}
	p.Add(plotter.NewGrid(), line, points)
	return save(p, path, 5*vg.Inch, 3.5*vg.Inch)
}

// DivergenceHeatmap writes to path (a .png file) the m×m matrix div between
// sets whose class labels are labels (len m), with the sets reordered by
// label (stable, so the given order within a class is kept). Dark cells are
// small divergences (similar sets), bright cells large ones (the scale is
// clipped at the 98th percentile of the off-diagonal values); a well-trained
// projection shows dark blocks on the diagonal, one per class.
func DivergenceHeatmap(path string, div mat.Symmetric, labels []string, title string) error {
	m := div.SymmetricDim()
	if m == 0 || len(labels) != m {
		return fmt.Errorf("divergence heatmap: %d labels for a %d×%d matrix", len(labels), m, m)
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return labels[order[a]] < labels[order[b]] })
	g := &grid{m: m, z: make([]float64, m*m), min: math.Inf(1), max: math.Inf(-1)}
	var off []float64
	for r := range m {
		for c := range m {
			v := div.At(order[r], order[c])
			g.z[r*m+c] = v
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				g.min = math.Min(g.min, v)
				if r != c {
					off = append(off, v)
				}
			}
		}
	}
	// The colour scale ends at the 98th percentile of the off-diagonal
	// values, so that a few outlying sets do not turn the rest black;
	// larger values get the brightest colour.
	sort.Float64s(off)
	if len(off) > 0 {
		g.max = off[int(0.98*float64(len(off)-1))]
	}
	if !(g.max > g.min) {
		g.max = g.min + 1
	}
	for i, v := range g.z {
		g.z[i] = math.Min(v, g.max)
	}
	cm := moreland.ExtendedBlackBody()
	cm.SetMin(g.min)
	cm.SetMax(g.max)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (colours %.3g to %.3g)", title, g.min, g.max)
	p.X.Label.Text = "set (sorted by class)"
	p.Y.Label.Text = "set (sorted by class)"
	h := plotter.NewHeatMap(g, cm.Palette(256))
	p.Add(h)
	// Row 0 at the top, as in a printed matrix.
	p.Y.Min, p.Y.Max = float64(m)-0.5, -0.5
	p.Y.Scale = flipped{}
	p.X.Min, p.X.Max = -0.5, float64(m)-0.5
	return save(p, path, 5.5*vg.Inch, 5*vg.Inch)
}

// flipped draws the Y axis top-down.
type flipped struct{}

func (flipped) Normalize(min, max, x float64) float64 {
	lo, hi := math.Min(min, max), math.Max(min, max)
	return (hi - x) / (hi - lo)
}

// grid adapts a row-major m×m matrix to plotter.GridXYZ.
type grid struct {
	m        int
	z        []float64
	min, max float64
}

func (g *grid) Dims() (c, r int)   { return g.m, g.m }
func (g *grid) Z(c, r int) float64 { return g.z[r*g.m+c] }
func (g *grid) X(c int) float64    { return float64(c) }
func (g *grid) Y(r int) float64    { return float64(r) }
func (g *grid) Min() float64       { return g.min }
func (g *grid) Max() float64       { return g.max }

func save(p *plot.Plot, path string, w, h vg.Length) error {
	if filepath.Ext(path) != ".png" {
		return fmt.Errorf("%s: want a .png file name", path)
	}
	if err := p.Save(w, h, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
