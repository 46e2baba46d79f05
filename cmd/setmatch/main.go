// Command setmatch is the workstation tool of setmatch: it compares sets,
// generates data, writes the features of image sets, trains, tests and
// inspects models, adds sets to a model's gallery and removes them
// (enroll, forget), evaluates methods and benchmarks the matcher and
// training. Each subcommand lives in its own file (synth and bench in
// several); this file dispatches, prints the version and holds the flags
// several commands share.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"setmatch/internal/buildinfo"
	"setmatch/internal/memlimit"
	"setmatch/internal/suggest"
	"setmatch/setfile"
)

// version is set at build time with -ldflags "-X main.version=..."; it is
// reported through buildinfo.Version.
var version = ""

// command is one subcommand: run parses its own flags from args and writes
// its results to stdout and progress to stderr.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"div", "divergences between two sets (files)", runDiv},
	{"bench", "time the gallery matcher or training on generated data", runBench},
	{"synth", "generate a labelled synthetic image-set data set", runSynth},
	{"train", "choose a method by cross-validation, fit it and write a model file", runTrain},
	{"test", "measure a model on labelled sets with the appliance's matcher", runTest},
	{"inspect", "print a readable summary of a model file", runInspect},
	{"enroll", "add sets (feature files or image bursts) to a model's gallery without retraining", runEnroll},
	{"forget", "remove a class (or one set) from a model's gallery", runForget},
	{"eval", "evaluate recognition methods on a data set", runEval},
	{"features", "write the features of image sets (folders of frames) as .npy", runFeatures},
	{"version", "print the version", runVersion},
}

// hidden are the commands not listed in the usage nor the manual page:
// man writes this program's manual page (roff), which make deb installs.
var hidden = []command{{"man", "write the manual page setmatch(1) in roff", runMan}}

// subcommands are the commands of a command, dispatched by it (bench
// train by bench), listed here for the manual page.
var subcommands = map[string][]command{
	"bench": {{"bench train", "time setmatch train as a user runs it, on synthetic data of given sizes", runBenchTrainAuto}},
}

func main() {
	memlimit.Set("/")
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" && args[1] != "help" {
		// "setmatch help train" is "setmatch train -h".
		return dispatch([]string{args[1], "-h"}, stdout, stderr)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "--version", "-version":
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range append(slices.Clip(commands), hidden...) {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			// An error of a subcommand (bench train) names it.
			name := c.name
			for _, sub := range subcommands[c.name] {
				if len(args) > 1 && sub.name == c.name+" "+args[1] {
					name = sub.name
				}
			}
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.As(err, new(usageError)):
				fmt.Fprintf(stderr, "setmatch %s: %v\n", name, err)
				return 2
			default:
				fmt.Fprintf(stderr, "setmatch %s: %v\n", name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "setmatch: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: setmatch <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'setmatch <command> -h' for the flags of a command.")
}

// usageError marks a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// specError is the usage error of a --features SPEC that features.Parse
// refused, its "features:" said once.
func specError(err error) error {
	return usagef("--features: %s", strings.TrimPrefix(err.Error(), "features: "))
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to stderr. If stderr is a *flagCapture (the manual page
// asks each command for -h), the flag set and synopsis are also handed to it.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("setmatch "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, strings.TrimSpace("usage: setmatch "+name+" "+synopsis))
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(stderr, "\nflags:\n")
			fs.PrintDefaults()
		}
	}
	if c, ok := stderr.(*flagCapture); ok {
		c.fs, c.synopsis = fs, synopsis
	}
	return fs
}

// runVersion prints the version, the Go version and the platform.
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	_, err := fmt.Fprintf(stdout, "%s\n", buildinfo.Line("setmatch", version))
	return err
}

// toolName is what a model's "tool" field records: the command that wrote
// it and the version.
func toolName(command string) string {
	return "setmatch " + command + " " + buildinfo.Version(version)
}

// limitsFlag defines --max-bytes on fs, and returns the set-file limits it
// sets: setfile's defaults, but for that size, which the error of a set
// over it names (setfile.Knobs; no flag sets the others).
func limitsFlag(fs *flag.FlagSet) *setfile.Limits {
	lim := setfile.DefaultLimits()
	lim.Knobs.Bytes = "--max-bytes"
	fs.Var((*positiveBytes)(&lim.MaxBytes), "max-bytes", "refuse a set file whose frames take more than `N` bytes in memory (frames × features × 8)")
	return &lim
}

// positiveBytes is a flag of a size in bytes, a whole number > 0.
type positiveBytes int64

func (b *positiveBytes) String() string { return strconv.FormatInt(int64(*b), 10) }

// Set parses s. Its errors name neither the flag nor the value: the flag
// package says 'invalid value "s" for flag -max-bytes: ' before them.
func (b *positiveBytes) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(s, "-"):
		return errors.New("must be > 0 (a size in bytes)")
	case errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("out of range: a size in bytes is at most %d", int64(math.MaxInt64))
	case err != nil:
		return errors.New("not a whole number of bytes")
	case v < 1:
		return errors.New("must be > 0 (a size in bytes)")
	}
	*b = positiveBytes(v)
	return nil
}

// workersVar defines --workers on fs into p: goroutines, a whole number
// ≥ 0 (0: one per CPU), refused below 0 as the flag is parsed.
func workersVar(fs *flag.FlagSet, p *int, usage string) {
	fs.Var((*workers)(p), "workers", usage)
}

// workers is the value of --workers.
type workers int

func (w *workers) String() string { return strconv.Itoa(int(*w)) }

// Set parses s. Its errors name neither the flag nor the value: the flag
// package says 'invalid value "s" for flag -workers: ' before them.
func (w *workers) Set(s string) error {
	v, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(s, "-"):
		return errors.New("must be ≥ 0 (0: one per CPU)")
	case errors.Is(err, strconv.ErrRange):
		return errors.New("out of range: give a number of goroutines such as the CPUs (0: one per CPU)")
	case err != nil:
		return errors.New("not a whole number of goroutines (0: one per CPU)")
	case v < 0:
		return errors.New("must be ≥ 0 (0: one per CPU)")
	}
	*w = workers(v)
	return nil
}

// emptyGiven refuses a flag of names given on the command line with an
// empty value (--out "$OUT" with OUT unset, in a script), which would
// otherwise read as the flag left out, and do what leaving it out does
// (replace the model in place, forget every set of a class).
func emptyGiven(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(names, f.Name) && f.Value.String() == "" {
			err = usagef("--%s is empty: give a value, or leave the flag out", f.Name)
		}
	})
	return err
}

// parseFlags parses args with fs (parseOnly) and refuses a flag written
// after the arguments (flagAfterArguments).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseOnly(fs, args); err != nil {
		return err
	}
	return flagAfterArguments(fs, args)
}

// parseOnly parses args with fs (suggest.Parse); a malformed flag is a
// usage error (exit 2), said once (by dispatch) with where to find the
// flags (and a mistyped one with the flag it meant), and -h prints the
// usage and is not an error at all.
func parseOnly(fs *flag.FlagSet, args []string) error {
	meant, err := suggest.Parse(fs, args)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return err
	case meant != "":
		return usagef("%v (did you mean %s? %s -h lists the flags)", err, meant, fs.Name())
	}
	return usagef("%v (%s -h lists the flags)", err, fs.Name())
}

// flagAfterArguments refuses one of fs's flags written after the
// arguments, where the flag package stops and takes it, and what follows
// it, for arguments: "div A B --json" read --json as a third file, and
// "enroll … SET --out NEW" looked for a set named --out. After "--"
// everything is an argument.
func flagAfterArguments(fs *flag.FlagSet, args []string) error {
	if slices.Contains(args[:len(args)-fs.NArg()], "--") {
		return nil
	}
	for _, a := range fs.Args() {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name != "" && fs.Lookup(name) != nil {
			return usagef("%s comes after the arguments, where it is read as one: put flags before the arguments (%s -h)", a, fs.Name())
		}
	}
	return nil
}
