package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"setmatch/synth"
)

// synthRelight is setmatch synth --relight SRC: the images of each class
// folder of SRC under strong synthetic lighting (synth.RelightOptions),
// written as OUT/<class>/<set>/f000.png.
func synthRelight(fl *flag.FlagSet, src, out string, sets, frames int, seed int64, force bool, args []string, stdout io.Writer) error {
	if len(givenFlags(fl, "classes")) > 0 {
		return usagef("--classes: not with --relight, whose classes are the folders of %s", src)
	}
	if err := vectorOnly(givenFlags(fl, vectorFlags...), "relight"); err != nil {
		return err
	}
	opt := synth.RelightOptions{Sets: sets, Frames: frames, Seed: seed}
	if err := opt.Check(); err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "synth: "))
	}
	classes, err := synth.RelightSources(src)
	if err != nil {
		return fmt.Errorf("--relight: %w", err)
	}
	o, err := resolvePath(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if where, err := within(o, src); err != nil {
		return fmt.Errorf("--relight: %w", err)
	} else if where != "" {
		return usagef("--out %s %s --relight %s: write the lit sets elsewhere", out, where, src)
	}
	// Every image read before the output folder is emptied: one that does
	// not decode, too many pixels to hold, or too large a data set is
	// refused before anything is written.
	if err := opt.CheckSources(classes); err != nil {
		return relightErr(err)
	}
	readme := opt.Readme(strings.Join(args, " "), src, len(classes))
	if err := synth.PrepareOut(out, force, readme); err != nil {
		return err
	}
	if err := synth.WriteRelit(out, classes, opt); err != nil {
		return relightErr(err)
	}
	if err := synth.WriteReadme(out, readme); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d classes × %d sets × %d frames (PNG, lit from %d directions, seed %d) to %s\n",
		len(classes), sets, frames, sets*frames, seed, out)
	return nil
}

// relightErr is err of synth.CheckSources or synth.WriteRelit as synth
// --relight says it: a class of too many pixels named as --relight's.
func relightErr(err error) error {
	if _, ok := err.(*synth.PixelsError); ok {
		return fmt.Errorf("--relight: %w", err)
	}
	return err
}
