package model_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/model"
)

// A model is read from its file once; the Matcher it builds then serves
// every batch (from several goroutines if wanted).
func ExampleModel_NewMatcher() {
	// A tiny model: 3 features projected on the first 2 axes, one gallery
	// set per label.
	set := func(label string, c float64) model.Set {
		return model.Set{Label: label, Samples: mat.NewDense(3, 2, []float64{c, 0, c + 1, 1, c, 1}), Bandwidth: 0.5}
	}
	m := &model.Model{
		Divergence:     match.Hellinger,
		QueryBandwidth: match.BandwidthRule{Kind: match.Fixed, Fixed: 0.5},
		W:              mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0}),
		Mean:           []float64{0, 0, 0},
		Sets:           []model.Set{set("alice", 0), set("bob", 10)},
		Threshold:      math.Inf(1),
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.smm")
	if err := model.WriteFile(path, m); err != nil {
		log.Fatal(err)
	}

	loaded, _, err := model.ReadFile(path)
	if err != nil {
		log.Fatal(err) // says what is wrong: not a model, newer format, corrupt, …
	}
	mt, err := loaded.NewMatcher()
	if err != nil {
		log.Fatal(err)
	}
	batch := mat.NewDense(2, 3, []float64{10.5, 0.5, 7, 10, 1, -3}) // n×D frames
	res, err := mt.Match(batch)
	if err != nil {
		log.Fatal(err)
	}
	d := res.Decision
	fmt.Printf("%s known=%v runner-up=%s frames=%d\n", d.Label, d.Known, d.RunnerLabel, res.Frames)
	// Output: bob known=true runner-up=alice frames=2
}
