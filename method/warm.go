package method

import (
	"fmt"
	"slices"
)

// usesDivergences reports whether one of methods works on the KDEs'
// divergences.
func usesDivergences(methods []Name) bool {
	for _, m := range methods {
		switch m {
		case NNH, NNJ, KFDAHG, KFDAHL, KFDAJ, Auto:
			return true
		}
	}
	return false
}

// Warm computes the caches of t.Pool that several of the methods share
// (the divergence matrices of g's bandwidths, GDA's bases, CDL's
// spectra), so that the time of each method's Run is its own.
func Warm(t *Task, methods []Name, g Grid) error {
	var bws []Bandwidth
	if usesDivergences(methods) {
		bws = g.Bandwidths
		if len(bws) == 0 {
			bws = []Bandwidth{{Mode: Global, Scale: 1}}
		}
	}
	n := len(bws)
	if slices.Contains(methods, GDA) {
		n++
	}
	if slices.Contains(methods, CDL) {
		n++
	}
	t.progress().count("matrices", n)
	for _, b := range bws {
		if _, err := t.Pool.divMatrix(b, t.Train, nil); err != nil {
			return fmt.Errorf("bandwidth %v: %w", b, err)
		}
		t.progress().inc()
	}
	if slices.Contains(methods, GDA) {
		pmax := 5
		for _, p := range g.GDAP {
			pmax = max(pmax, p)
		}
		if _, err := t.Pool.gdaBases(pmax); err != nil {
			return err
		}
		t.progress().inc()
	}
	if slices.Contains(methods, CDL) {
		if _, err := t.Pool.cdlSpectra(); err != nil {
			return err
		}
		t.progress().inc()
	}
	return nil
}
