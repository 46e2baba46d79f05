package main

import (
	"errors"
	"flag"
	"io"

	"gonum.org/v1/gonum/mat"

	"setmatch/match"
	"setmatch/setfile"
)

// divSynopsis is the usage line and description of setmatch div.
const divSynopsis = `[--bandwidth H | --bandwidth-rule nn|scott|silverman] [--json] A B

Prints the empirical divergences between the Gaussian KDEs of two sets,
A and B (feature files, one frame per row): the squared Hellinger
distance and the Jeffrey divergence of the paper's Eq. 10 and 11, and
the Bhattacharyya coefficient (1 − H²/2), with each set's bandwidth.
Both sets are first centred on the mean frame of their frames together,
which changes no divergence.`

func runDiv(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("div", divSynopsis, stderr)
	bandwidth := fs.Float64("bandwidth", 0, "fixed KDE bandwidth `H`, from 1e-150 to 1e150, for both sets")
	ruleName := fs.String("bandwidth-rule", "", "choose each set's bandwidth from its own frames: nn (median nearest-neighbour distance), scott or silverman, optionally scaled as in nn*2 (default nn; scott and silverman saturate in many dimensions)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	oneSided := fs.Bool("one-sided", false, "also print the one-sided estimators (for comparison)")
	lim := limitsFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		if fs.NArg() == 1 {
			return usagef("want two set files (.npy or .csv), got one: %s", fs.Arg(0))
		}
		return usagef("want two set files (.npy or .csv), got %d arguments", fs.NArg())
	}
	rule, err := divBandwidthRule(fs, *bandwidth, *ruleName)
	if err != nil {
		return err
	}

	var sets [2]*mat.Dense
	for i, path := range fs.Args() {
		if sets[i], err = setfile.ReadFile(path, *lim); err != nil {
			return err
		}
	}
	p, q, err := match.PairKDEs(fs.Arg(0), fs.Arg(1), sets[0], sets[1], rule)
	if re := (*match.RuleBandwidthError)(nil); errors.As(err, &re) && re.Scaled() {
		// The flag's scale, not the sets, is at fault.
		return usagef("--bandwidth-rule %s: %v", rule, err)
	}
	if err != nil {
		return err
	}
	r, err := match.ComparePair(fs.Arg(0), fs.Arg(1), p, q, rule, *oneSided)
	if err != nil {
		return err
	}
	if *asJSON {
		return r.WriteJSON(stdout)
	}
	return r.WriteText(stdout)
}

// divBandwidthRule turns the two mutually exclusive bandwidth flags into a
// rule; with neither, each set gets the nn rule (median nearest-neighbour
// distance), the one training uses: Scott's and Silverman's rules assume a
// Gaussian and, in tens of dimensions, give bandwidths so wide that every
// pair of sets looks equally far apart.
func divBandwidthRule(fs *flag.FlagSet, h float64, name string) (match.BandwidthRule, error) {
	hSet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "bandwidth" {
			hSet = true
		}
	})
	switch {
	case hSet && name != "":
		return match.BandwidthRule{}, usagef("give --bandwidth or --bandwidth-rule, not both")
	case hSet:
		if !match.InRange(h) {
			return match.BandwidthRule{}, usagef("--bandwidth must be a number from %g to %g, got %v", match.MinBandwidth, match.MaxBandwidth, h)
		}
		return match.BandwidthRule{Kind: match.Fixed, Fixed: h}, nil
	case name == "":
		return match.BandwidthRule{Kind: match.NearestNeighbour}, nil
	}
	r, err := match.ParseBandwidthRule(name)
	if err != nil || r.Kind == match.Fixed {
		return match.BandwidthRule{}, usagef("--bandwidth-rule must be scott, silverman or nn (optionally *SCALE), got %q", name)
	}
	return r, nil
}
