package main

import (
	"errors"
	"io"
)

// runSynth is a placeholder until the subcommand lands.
func runSynth(args []string, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
