package openeval

import (
	"setmatch/model"
	"setmatch/openset"
)

// Nearest returns the label of the nearest gallery set of a match,
// before the threshold: for a vote, the label the vote gives (that of
// its deciding member).
func Nearest(mt *model.Matcher, res model.Result) string {
	if res.Votes != nil {
		return res.Votes[res.Member]
	}
	return mt.Labels()[res.Decision.Best]
}

// Sample is the outcome of one probe set of class class decided by mt
// (res), as the rates of package openset read it: its score, whether it
// is a stranger's (its class is not in the model), and whether its
// nearest label (Nearest) is its class. The score is divided by the
// factor of its nearest class's threshold (Result.Factor, model.Spread),
// so that one threshold on the samples decides as the matcher does. For
// a vote the score is the deciding member's: the members' scores are on
// different scales, so the rates from them are approximate.
func Sample(mt *model.Matcher, res model.Result, class string, stranger bool) openset.Sample {
	score := res.Decision.Score
	if res.Factor > 0 {
		score /= res.Factor
	}
	return openset.Sample{Score: score, Stranger: stranger, Right: Nearest(mt, res) == class}
}
