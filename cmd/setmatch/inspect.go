package main

import (
	"encoding/json"
	"io"

	"setmatch/model"
	"setmatch/modelinfo"
)

// inspectSynopsis is the usage line and description of setmatch inspect.
const inspectSynopsis = `[--json] MODEL

Prints what a model file holds and how it was made: the method it
decides by with its parameters and cross-validated accuracy, every
candidate's score when it was chosen by --method auto, the projection,
the feature pipeline, the open-set threshold and the gallery.`

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("inspect", inspectSynopsis, stderr)
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one model file, got %d arguments (usage: setmatch inspect [--json] MODEL)", fs.NArg())
	}
	path := fs.Arg(0)
	m, info, err := model.ReadFile(path)
	if err != nil {
		return err
	}
	s := modelinfo.Summarize(info, m)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return modelinfo.Write(stdout, s)
}
