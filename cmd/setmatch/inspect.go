package main

import (
	"errors"
	"io"
)

// runInspect is a placeholder until the subcommand lands.
func runInspect(args []string, stdout, stderr io.Writer) error {
	return errors.New("not built yet")
}
