package main

import (
	"errors"
	"io"

	"setmatch/match"
)

type benchTrainOptions struct {
	classes, sets, frames, inDim, outDim, maxIter, workers int
	seed                                                   uint64
	rule                                                   match.BandwidthRule
	json                                                   bool
}

func benchTrain(stdout, stderr io.Writer, o benchTrainOptions) error {
	return errors.New("--mode train: not built yet")
}
