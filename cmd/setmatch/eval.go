package main

import (
	"errors"
	"io"
)

// runEval is a placeholder until the subcommand lands.
func runEval(args []string, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
