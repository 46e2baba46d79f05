// Package report draws PNG plots with gonum.org/v1/plot: those of a
// training report (Training, as setmatch train --report writes them),
// the cost per iteration and the set-to-set divergence matrix with the
// sets sorted by class, as in Fig. 2 and 3 of the paper; and the log-log
// plot of a measure against a size (ScalingPlot, setmatch bench train's
// time and peak memory against the training sets).
package report

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
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

// Heatmap is one picture for DivergenceHeatmaps: the m×m divergence matrix
// Div between the sets, drawn under Title to Path (a .png file).
type Heatmap struct {
	Path  string
	Div   mat.Symmetric
	Title string
}

// DivergenceHeatmaps draws each of maps, matrices between the same m sets
// whose class labels are labels (len m), as a heat map with a colour bar.
// The sets are reordered by label (stable, so the given order within a
// class is kept), thin lines separate the classes and the axes name them.
// Dark cells are small divergences (similar sets), bright cells large ones;
// a well-trained projection shows dark blocks on the diagonal, one per
// class.
//
// All maps share one colour scale, so that the same colour means the same
// divergence in every picture (before and after training, say): it runs
// from the smallest value of all the matrices to the 98th percentile of
// their pooled off-diagonal values, so that a few outlying sets do not turn
// the rest black; larger values get the brightest colour.
func DivergenceHeatmaps(labels []string, maps ...Heatmap) error {
	figs, err := heatmapFigures(labels, maps)
	if err != nil {
		return err
	}
	for i, f := range figs {
		if err := f.save(maps[i].Path); err != nil {
			return err
		}
	}
	return nil
}

// classes is the order of m sets sorted by class label.
type classes struct {
	order  []int    // order[r] is the set drawn in row and column r
	names  []string // class names, in drawing order
	starts []int    // row of each class's first set, then m
}

func sortByClass(labels []string) classes {
	m := len(labels)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return naturalLess(labels[order[a]], labels[order[b]]) })
	var c classes
	c.order = order
	for r, i := range order {
		if r == 0 || labels[i] != labels[order[r-1]] {
			c.names = append(c.names, labels[i])
			c.starts = append(c.starts, r)
		}
	}
	c.starts = append(c.starts, m)
	return c
}

// naturalLess orders strings with runs of digits compared as numbers, so
// that class s2 comes before s10.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if a[:da] != b[:db] { // same number, different leading zeros
				return a[:da] < b[:db]
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// digits returns the length of the run of ASCII digits s begins with.
func digits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

// boundaries returns the coordinates of the lines between classes: a line
// at r − 0.5 for every row r where a new class begins (not the first).
func (c classes) boundaries() []float64 {
	var b []float64
	for _, s := range c.starts[1 : len(c.starts)-1] {
		b = append(b, float64(s)-0.5)
	}
	return b
}

// ticks names each class at the middle of its block; on the Y axis, where
// row r is drawn at m−1−r, if flip.
func (c classes) ticks(flip bool) plot.Ticker {
	m := float64(c.starts[len(c.starts)-1])
	ts := make([]plot.Tick, len(c.names))
	for k, name := range c.names {
		v := float64(c.starts[k]+c.starts[k+1]-1) / 2
		if flip {
			v = m - 1 - v
		}
		ts[k] = plot.Tick{Value: v, Label: name}
	}
	return plot.ConstantTicks(ts)
}

// crowded reports whether some class name, written in sty, is wider than
// its block on an axis width long.
func (c classes) crowded(sty text.Style, width vg.Length) bool {
	m := float64(c.starts[len(c.starts)-1])
	for k, name := range c.names {
		block := width * vg.Length(float64(c.starts[k+1]-c.starts[k])/m)
		if sty.Width(name) > 0.9*block {
			return true
		}
	}
	return false
}

// colourScale is the range of values the palette spans.
type colourScale struct{ min, max float64 }

// sharedScale returns the colour scale of DivergenceHeatmaps for ms.
func sharedScale(ms []mat.Symmetric) colourScale {
	sc := colourScale{min: math.Inf(1), max: math.Inf(-1)}
	var off []float64
	for _, d := range ms {
		m := d.SymmetricDim()
		for r := range m {
			for c := range m {
				v := d.At(r, c)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				sc.min = math.Min(sc.min, v)
				if r != c {
					off = append(off, v)
				}
			}
		}
	}
	sort.Float64s(off)
	if len(off) > 0 {
		sc.max = off[int(0.98*float64(len(off)-1))]
	}
	if math.IsInf(sc.min, 0) {
		sc.min = 0
	}
	if !(sc.max > sc.min) {
		sc.max = sc.min + 1
	}
	return sc
}

// figure is one heat map and its colour bar, ready to draw.
type figure struct {
	heat, bar  *plot.Plot
	scale      colourScale
	boundaries []float64
}

// boundaryColour is a mid grey that shows on black, red and white cells.
var boundaryColour = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}

func heatmapFigures(labels []string, maps []Heatmap) ([]*figure, error) {
	if len(maps) == 0 {
		return nil, errors.New("divergence heatmap: no matrices")
	}
	ms := make([]mat.Symmetric, len(maps))
	for i, h := range maps {
		if h.Div == nil {
			return nil, fmt.Errorf("divergence heatmap %s: no matrix", h.Path)
		}
		m := h.Div.SymmetricDim()
		if m == 0 || len(labels) != m {
			return nil, fmt.Errorf("divergence heatmap %s: %d labels for a %d×%d matrix", h.Path, len(labels), m, m)
		}
		ms[i] = h.Div
	}
	cls := sortByClass(labels)
	sc := sharedScale(ms)
	m := len(labels)
	figs := make([]*figure, len(maps))
	for i, h := range maps {
		cm := moreland.ExtendedBlackBody()
		cm.SetMin(sc.min)
		cm.SetMax(sc.max)
		cells := raster(h.Div, cls.order, cm, sc)

		p := plot.New()
		p.Title.Text = h.Title
		p.X.Label.Text = "set, by class"
		p.Y.Label.Text = "set, by class"
		p.Add(plotter.NewImage(cells, -0.5, -0.5, float64(m)-0.5, float64(m)-0.5))
		bounds := cls.boundaries()
		for _, b := range bounds {
			// Row r is drawn at y = m−1−r, so that row 0 is at the top.
			for _, xy := range []plotter.XYs{
				{{X: b, Y: -0.5}, {X: b, Y: float64(m) - 0.5}},
				{{X: -0.5, Y: float64(m-1) - b}, {X: float64(m) - 0.5, Y: float64(m-1) - b}},
			} {
				l, err := plotter.NewLine(xy)
				if err != nil {
					return nil, fmt.Errorf("divergence heatmap: %w", err)
				}
				l.Color = boundaryColour
				l.Width = vg.Points(1)
				if len(cls.names) > 16 {
					l.Width = vg.Points(0.5)
				}
				p.Add(l)
			}
		}
		p.X.Min, p.X.Max = -0.5, float64(m)-0.5
		p.Y.Min, p.Y.Max = -0.5, float64(m)-0.5
		p.X.Tick.Marker = cls.ticks(false)
		p.Y.Tick.Marker = cls.ticks(true)
		if len(cls.names) > 16 {
			p.X.Tick.Label.Font.Size = vg.Points(6)
			p.Y.Tick.Label.Font.Size = vg.Points(6)
		}
		if cls.crowded(p.X.Tick.Label, figWidth-barWidth-vg.Inch) {
			p.X.Tick.Label.Rotation = math.Pi / 2
			p.X.Tick.Label.XAlign = vgdraw.XRight
			p.X.Tick.Label.YAlign = vgdraw.YCenter
		}

		bar := plot.New()
		bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
		bar.HideX()
		bar.Y.Label.Text = "divergence"
		bar.Y.Min, bar.Y.Max = sc.min, sc.max
		figs[i] = &figure{heat: p, bar: bar, scale: sc, boundaries: bounds}
	}
	return figs, nil
}

// Picture size: the heat map, then the colour bar to its right.
const (
	figWidth  = 6.5 * vg.Inch
	figHeight = 5.5 * vg.Inch
	barWidth  = 1.1 * vg.Inch
)

// save draws f to path, a .png file.
func (f *figure) save(path string) error {
	if filepath.Ext(path) != ".png" {
		return fmt.Errorf("%s: want a .png file name", path)
	}
	img, _ := f.render()
	return writePNG(path, img)
}

// writePNG writes img to path as a PNG file; an error names the file.
func writePNG(path string, img *vgimg.Canvas) error {
	w, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// render draws f and returns the picture and the canvas of the heat map's
// cells.
func (f *figure) render() (*vgimg.Canvas, vgdraw.Canvas) {
	img := vgimg.New(figWidth, figHeight)
	dc := vgdraw.New(img)
	heatArea := vgdraw.Crop(dc, 0, -barWidth, 0, 0)
	f.heat.Draw(heatArea)
	// The bar spans the heat map's data area, top to bottom.
	data := f.heat.DataCanvas(heatArea)
	barArea := vgdraw.Crop(dc, figWidth-barWidth, 0, data.Min.Y-dc.Min.Y, data.Max.Y-dc.Max.Y)
	barData := f.bar.DataCanvas(barArea)
	barArea = vgdraw.Crop(barArea, 0, -vg.Points(24), barArea.Min.Y-barData.Min.Y, barArea.Max.Y-barData.Max.Y)
	f.bar.Draw(barArea)
	return img, data
}

// cellPixels is about how many pixels wide the raster of a heat map is:
// each cell is a block of whole pixels, so that scaling the raster to the
// picture blurs only the edges of the blocks.
const cellPixels = 1200

// nanColour marks a divergence that is not a number.
var nanColour = color.RGBA{R: 0x40, G: 0xa0, B: 0x40, A: 0xff}

// raster paints div, rows and columns in order, with one block of pixels
// per cell, row 0 at the top; values outside sc get the colour of its ends.
func raster(div mat.Symmetric, order []int, cm palette.ColorMap, sc colourScale) image.Image {
	m := len(order)
	k := max(1, cellPixels/m)
	img := image.NewRGBA(image.Rect(0, 0, m*k, m*k))
	for r := range m {
		for c := range m {
			v := div.At(order[r], order[c])
			col := color.Color(nanColour)
			if !math.IsNaN(v) {
				if cv, err := cm.At(math.Max(sc.min, math.Min(v, sc.max))); err == nil {
					col = cv
				}
			}
			draw.Draw(img, image.Rect(c*k, r*k, (c+1)*k, (r+1)*k), image.NewUniform(col), image.Point{}, draw.Src)
		}
	}
	return img
}

// save draws p, w × h, to path, a .png file.
func save(p *plot.Plot, path string, w, h vg.Length) error {
	if filepath.Ext(path) != ".png" {
		return fmt.Errorf("%s: want a .png file name", path)
	}
	img := vgimg.New(w, h)
	p.Draw(vgdraw.New(img))
	return writePNG(path, img)
}
