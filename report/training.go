package report

import (
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
)

// Training is the report of a training run, as setmatch train --report
// writes it: the divergences between the model's gallery sets and, when
// W was learned, the cost per iteration and the divergences before
// training.
type Training struct {
	Labels       []string      // the class of every gallery set
	Gallery      mat.Symmetric // between the model's gallery sets
	GalleryTitle string
	Cost         []float64 // per iteration; nil when no W was learned (then Before is unused)
	CostTitle    string
	Before       mat.Symmetric // before training (in the PCA space)
	BeforeTitle  string
}

// Write writes the plots of t to folder dir, creating it if missing:
// divergence-after.png, and for a learned W also cost.png and
// divergence-before.png, the two heat maps on one colour scale so that
// they compare by eye.
func (t Training) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	after := Heatmap{Path: filepath.Join(dir, "divergence-after.png"), Div: t.Gallery, Title: t.GalleryTitle}
	if t.Cost == nil {
		return DivergenceHeatmaps(t.Labels, after)
	}
	if err := CostPlot(filepath.Join(dir, "cost.png"), t.Cost, t.CostTitle); err != nil {
		return err
	}
	return DivergenceHeatmaps(t.Labels,
		Heatmap{Path: filepath.Join(dir, "divergence-before.png"), Div: t.Before, Title: t.BeforeTitle},
		after)
}
