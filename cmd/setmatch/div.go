package main

import (
	"errors"
	"io"
)

// runDiv is a placeholder until the subcommand lands.
func runDiv(args []string, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
