package match

import (
	"encoding/json"
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/finite"
	"setmatch/internal/jsonname"
	"setmatch/internal/scaleadvice"
	"setmatch/internal/stats"
)

// PairReport is the comparison of two sets as setmatch div prints it:
// the two KDEs, the rule that gave their bandwidths, the symmetric
// estimators and, when asked for, the one-sided ones.
type PairReport struct {
	A, B     string // the sets' names (setmatch div: their paths)
	P, Q     *KDE   // the KDEs of A and B
	Rule     BandwidthRule
	Div      Divergences
	OneSided *OneSided // nil when not asked for
}

// PairKDEs returns the KDEs of the sets x and y (n×D each), named a and
// b, that ComparePair compares: each with the bandwidth rule gives it
// from its own frames, on its frames less the mean frame of the two sets
// together, which is subtracted from x and y in place. The divergences do
// not depend on the origin, nor do the rules, but the squared distances
// of the densities, |x|² + |y|² − 2x·y, keep only the digits the norms
// leave, and a feature far from 0 (1e8 on every frame) would take them
// all. A bandwidth a KDE does not take is refused by the rule
// (BandwidthRule.Bandwidth) before any divergence is NaN. An error of a
// set's KDE names its set; sets of different dimensions are
// ComparePair's error.
func PairKDEs(a, b string, x, y *mat.Dense, rule BandwidthRule) (p, q *KDE, err error) {
	if p, err = NewKDERule(x, rule); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", a, err)
	}
	if q, err = NewKDERule(y, rule); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", b, err)
	}
	if p.Dim() != q.Dim() {
		return nil, nil, dimsError(a, b, p, q)
	}
	mean := stats.MeanFrame(x, y)
	stats.SubtractFrame(x, mean)
	if y != x {
		stats.SubtractFrame(y, mean)
	}
	// The bandwidths chosen, the norms of the centred frames: p and q
	// hold x and y, not copies.
	if err = p.setNorms(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", a, err)
	}
	if err = q.setNorms(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", b, err)
	}
	return p, q, nil
}

// dimsError is the error of the KDEs p and q of sets a and b with
// different dimensions.
func dimsError(a, b string, p, q *KDE) error {
	return fmt.Errorf("%s has %d features per frame but %s has %d: both sets must come from the same feature extractor",
		a, p.Dim(), b, q.Dim())
}

// ComparePair compares the KDEs p and q of the sets named a and b (made
// by PairKDEs): the symmetric estimators, and with oneSided also the
// one-sided ones. Sets of different dimensions are an error that names
// both.
func ComparePair(a, b string, p, q *KDE, rule BandwidthRule, oneSided bool) (*PairReport, error) {
	if p.Dim() != q.Dim() {
		return nil, dimsError(a, b, p, q)
	}
	d, err := Compare(p, q)
	if err != nil {
		return nil, err
	}
	if !finite.Is(d.Hellinger2) || !finite.Is(d.Jeffrey) {
		return nil, fmt.Errorf("the divergences are not numbers (H² %v, J %v) with the bandwidths %g (%s) and %g (%s): the densities under- or overflow; %s",
			d.Hellinger2, d.Jeffrey, p.Bandwidth(), a, q.Bandwidth(), b, notNumberAdvice(rule, p.Bandwidth(), q.Bandwidth()))
	}
	r := &PairReport{A: a, B: b, P: p, Q: q, Rule: rule, Div: d}
	if oneSided {
		o, err := CompareOneSided(p, q)
		if err != nil {
			return nil, err
		}
		r.OneSided = &o
	}
	return r, nil
}

// notNumberAdvice is what to do where the divergences of KDEs with the
// bandwidths hp and hq, given by rule, are not numbers: a fixed bandwidth
// nearer the frames' spread, a rule's scale nearer 1, or, where a rule
// without a scale measured the spread, features scaled by the power of
// ten that brings the larger bandwidth to between 1 and 10 (scaleadvice).
func notNumberAdvice(rule BandwidthRule, hp, hq float64) string {
	h := max(hp, hq)
	switch {
	case rule.Kind == Fixed:
		return "give a bandwidth nearer the spread of the frames (the nn rule measures it)"
	case rule.Scale != 0 && rule.Scale != 1:
		return fmt.Sprintf("give the %s rule a scale nearer 1", ruleNames[rule.Kind])
	case h < 1:
		return fmt.Sprintf("the features' values are too small for the %s rule; %s", rule, scaleadvice.Up(h))
	}
	return fmt.Sprintf("the features' values are too large for the %s rule; %s", rule, scaleadvice.Down(h))
}

// WriteText writes the report as lines of text.
func (r *PairReport) WriteText(w io.Writer) error {
	p, q, d := r.P, r.Q, r.Div
	fmt.Fprintf(w, "A  %s: %d frames × %d features, bandwidth %.6g\n", r.A, p.Len(), p.Dim(), p.Bandwidth())
	fmt.Fprintf(w, "B  %s: %d frames × %d features, bandwidth %.6g\n", r.B, q.Len(), q.Dim(), q.Bandwidth())
	fmt.Fprintf(w, "hellinger2     %.17g\n", d.Hellinger2)
	fmt.Fprintf(w, "jeffrey        %.17g\n", d.Jeffrey)
	_, err := fmt.Fprintf(w, "bhattacharyya  %.17g\n", d.Bhattacharyya)
	if o := r.OneSided; o != nil {
		fmt.Fprintf(w, "one-sided hellinger2 over A %.17g, over B %.17g\n", o.HellingerP, o.HellingerQ)
		_, err = fmt.Fprintf(w, "one-sided jeffrey    over A %.17g, over B %.17g\n", o.JeffreyP, o.JeffreyQ)
	}
	return err
}

// WriteJSON writes the report as one JSON object. JSON has no Inf: a
// one-sided estimate that overflowed is null. A set's path that is not
// valid UTF-8 is written by jsonname's convention: as JSON writes it,
// U+FFFD for each bad byte, with its exact bytes in base64 as path_b64.
func (r *PairReport) WriteJSON(w io.Writer) error {
	p, q, d := r.P, r.Q, r.Div
	set := func(path string, k *KDE) map[string]any {
		s := map[string]any{"path": path, "frames": k.Len(), "bandwidth": k.Bandwidth()}
		if b := jsonname.B64(path); b != "" {
			s["path_b64"] = b
		}
		return s
	}
	out := map[string]any{
		"hellinger2":     d.Hellinger2,
		"jeffrey":        d.Jeffrey,
		"bhattacharyya":  d.Bhattacharyya,
		"a":              set(r.A, p),
		"b":              set(r.B, q),
		"dim":            p.Dim(),
		"bandwidth_rule": r.Rule.String(), // how each set's bandwidth was chosen: a rule, or the fixed number
	}
	if o := r.OneSided; o != nil {
		out["one_sided"] = map[string]any{
			"hellinger2_over_a": finite.Ptr(o.HellingerP), "hellinger2_over_b": finite.Ptr(o.HellingerQ),
			"jeffrey_over_a": finite.Ptr(o.JeffreyP), "jeffrey_over_b": finite.Ptr(o.JeffreyQ),
		}
	}
	return json.NewEncoder(w).Encode(out)
}
