package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"setmatch/internal/buildinfo"
	"setmatch/internal/manpage"
)

// flagCapture is the stderr handed to a command when the manual page asks
// it for -h: newFlagSet gives it the command's flag set, and what the
// command would print is dropped.
type flagCapture struct {
	fs       *flag.FlagSet
	synopsis string
}

func (*flagCapture) Write(p []byte) (int, error) { return len(p), nil }

// manPage builds setmatch(1) from the flag sets the commands parse: each
// command is run with -h and hands over its flag set before returning.
func manPage(date string) (manpage.Page, error) {
	p := manpage.Page{
		Name:    "setmatch",
		Section: 1,
		Date:    date,
		Source:  "setmatch " + buildinfo.Version(version),
		Manual:  "User Commands",
		Summary: "train, inspect and evaluate image-set recognition models",
		Synopsis: []string{
			"command [flags] [arguments]",
			"command -h",
			"--version",
		},
		Description: []string{
			"setmatch is the workstation tool of the setmatch appliance. It compares image sets, " +
				"each a burst of camera frames (a folder of images, or a file of frame features), with kernel-density " +
				"Hellinger and Jeffrey divergences; it chooses a recognition method by cross-validation, fits it " +
				"and writes it with the gallery into a model file, which setmatchd(8) loads; " +
				"and it tests, inspects and changes model files, generates data sets, evaluates the methods and times the matcher and training.",
			"Flags may be written with one or two dashes and come before the arguments.",
		},
		DoubleDash: true,
		Sections: []manpage.Section{
			{Title: "Exit status", Paragraphs: []string{
				"0 on success (and for -h), 1 when the command fails (the reason on standard error), 2 for a mistake in the command line.",
			}},
			{Title: "See also", Paragraphs: []string{
				"setmatchd(8); the appliance guide in /usr/share/doc/setmatch/APPLIANCE.md.",
			}},
		},
	}
	var all []command
	for _, c := range commands {
		all = append(append(all, c), subcommands[c.name]...)
	}
	for _, c := range all {
		capture := &flagCapture{}
		err := c.run([]string{"-h"}, io.Discard, capture)
		if !errors.Is(err, flag.ErrHelp) {
			return p, fmt.Errorf("command %s: -h returned %v, want flag.ErrHelp", c.name, err)
		}
		if capture.fs == nil {
			return p, fmt.Errorf("command %s: no flag set from newFlagSet", c.name)
		}
		p.Commands = append(p.Commands, manpage.Command{
			Name: c.name, Summary: c.summary, Synopsis: capture.synopsis, Flags: capture.fs,
		})
	}
	return p, nil
}

// runMan is setmatch man: setmatch(1) on stdout (writeManPage).
func runMan(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("man", "> setmatch.1", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("unexpected argument %q: man takes none", fs.Arg(0))
	}
	return writeManPage(stdout)
}

// writeManPage writes setmatch(1) in roff to w, dated by SOURCE_DATE_EPOCH
// when it is set (reproducible builds).
func writeManPage(w io.Writer) error {
	date, err := manpage.DateFromEpoch(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	p, err := manPage(date)
	if err != nil {
		return err
	}
	return manpage.Write(w, p)
}
