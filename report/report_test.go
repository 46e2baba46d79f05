package report

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
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
	if err := CostPlot(p, nil, "x"); err == nil {
		t.Error("no iterations: no error")
	}
	if err := CostPlot(filepath.Join(t.TempDir(), "cost.svg"), []float64{1}, "x"); err == nil {
		t.Error("not .png: no error")
	}
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
	if err := DivergenceHeatmap(p, div, labels, "divergences"); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, p)
	if os.Getenv("REPORT_KEEP") != "" {
		data, _ := os.ReadFile(p)
		os.WriteFile(os.Getenv("REPORT_KEEP"), data, 0o644)
	}
	if err := DivergenceHeatmap(p, div, labels[:2], "x"); err == nil {
		t.Error("label count: no error")
	}
}
