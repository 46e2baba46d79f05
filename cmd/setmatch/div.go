package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"

	"setmatch/match"
	"setmatch/setfile"
)

// divSynopsis is the usage line and description of setmatch div.
const divSynopsis = `[--bandwidth H | --bandwidth-rule nn|scott|silverman] [--json] A B

Prints the empirical divergences between the Gaussian KDEs of two sets,
A and B (feature files, one frame per row): the squared Hellinger
distance and the Jeffrey divergence of the paper's Eq. 10 and 11, and
the Bhattacharyya distance, with each set's bandwidth.`

func runDiv(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("div", divSynopsis, stderr)
	bandwidth := fs.Float64("bandwidth", 0, "fixed KDE bandwidth `H` > 0 for both sets")
	ruleName := fs.String("bandwidth-rule", "", "choose each set's bandwidth from its own frames: nn (median nearest-neighbour distance), scott or silverman, optionally scaled as in nn*2 (default nn; scott and silverman saturate in many dimensions)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	oneSided := fs.Bool("one-sided", false, "also print the one-sided estimators (for comparison)")
	lim := limitsFlag(fs, "refuse set files larger than this many bytes")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return usagef("want two set files (.npy or .csv), got %d arguments", fs.NArg())
	}
	rule, err := divBandwidthRule(fs, *bandwidth, *ruleName)
	if err != nil {
		return err
	}

	var kdes [2]*match.KDE
	for i, path := range fs.Args() {
		x, err := setfile.ReadFile(path, *lim)
		if err != nil {
			return err
		}
		if kdes[i], err = match.NewKDERule(x, rule); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	p, q := kdes[0], kdes[1]
	if p.Dim() != q.Dim() {
		return fmt.Errorf("%s has %d features per frame but %s has %d: both sets must come from the same feature extractor",
			fs.Arg(0), p.Dim(), fs.Arg(1), q.Dim())
	}
	d, err := match.Compare(p, q)
	if err != nil {
		return err
	}
	var o match.OneSided
	if *oneSided {
		if o, err = match.CompareOneSided(p, q); err != nil {
			return err
		}
	}

	if *asJSON {
		out := map[string]any{
			"hellinger2":    d.Hellinger2,
			"jeffrey":       d.Jeffrey,
			"bhattacharyya": d.Bhattacharyya,
			"a":             map[string]any{"path": fs.Arg(0), "frames": p.Len(), "bandwidth": p.Bandwidth()},
			"b":             map[string]any{"path": fs.Arg(1), "frames": q.Len(), "bandwidth": q.Bandwidth()},
			"dim":           p.Dim(),
			"bandwidth":     rule.String(),
		}
		if *oneSided {
			// JSON has no Inf: a one-sided estimate that overflowed is null.
			out["one_sided"] = map[string]any{
				"hellinger2_over_a": finiteOrNil(o.HellingerP), "hellinger2_over_b": finiteOrNil(o.HellingerQ),
				"jeffrey_over_a": finiteOrNil(o.JeffreyP), "jeffrey_over_b": finiteOrNil(o.JeffreyQ),
			}
		}
		enc := json.NewEncoder(stdout)
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "A  %s: %d frames × %d features, bandwidth %.6g\n", fs.Arg(0), p.Len(), p.Dim(), p.Bandwidth())
	fmt.Fprintf(stdout, "B  %s: %d frames × %d features, bandwidth %.6g\n", fs.Arg(1), q.Len(), q.Dim(), q.Bandwidth())
	fmt.Fprintf(stdout, "hellinger2     %.17g\n", d.Hellinger2)
	fmt.Fprintf(stdout, "jeffrey        %.17g\n", d.Jeffrey)
	fmt.Fprintf(stdout, "bhattacharyya  %.17g\n", d.Bhattacharyya)
	if *oneSided {
		fmt.Fprintf(stdout, "one-sided hellinger2 over A %.17g, over B %.17g\n", o.HellingerP, o.HellingerQ)
		fmt.Fprintf(stdout, "one-sided jeffrey    over A %.17g, over B %.17g\n", o.JeffreyP, o.JeffreyQ)
	}
	return nil
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
		if !(h > 0) || math.IsInf(h, 0) {
			return match.BandwidthRule{}, usagef("--bandwidth must be a number > 0, got %v", h)
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

func finiteOrNil(v float64) any {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return v
}
