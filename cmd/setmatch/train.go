package main

import (
	"errors"
	"io"
)

// runTrain is a placeholder until the subcommand lands.
func runTrain(args []string, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
