package main

import (
	"errors"
	"io"
)

// runBench is a placeholder until the subcommand lands.
func runBench(args []string, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
