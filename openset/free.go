package openset

// The shares of known sets let in at which Free reads the strangers let
// in (StrangersIn).
const (
	KnownIn95 = 0.95
	KnownIn99 = 0.99
)

// ThresholdFree is what the scores of a slice of samples say of the open
// set whatever the threshold, as shares in [0, 1].
type ThresholdFree struct {
	// StrangersIn95 and StrangersIn99 are the shares of strangers' sets
	// let in by the threshold that lets in 95% and 99% of the known sets
	// (Threshold95, Threshold99).
	StrangersIn95 float64 `json:"strangers_in_at_95_known"`
	Threshold95   float64 `json:"threshold_95"`
	StrangersIn99 float64 `json:"strangers_in_at_99_known"`
	Threshold99   float64 `json:"threshold_99"`
	// BestBalanced is the highest balanced accuracy any single threshold
	// (BestThreshold) reaches on the samples (Balance).
	BestBalanced  float64 `json:"best_balanced"`
	BestThreshold float64 `json:"best_threshold"`
}

// Free returns the threshold-free rates of s: the best balanced
// threshold (Balance) and the strangers let in at KnownIn95 and KnownIn99
// of the known sets let in (StrangersIn). It fails as they do, with
// ErrOneSided unless s holds both known sets and strangers'.
func Free(s []Sample) (ThresholdFree, error) {
	var f ThresholdFree
	best, err := Balance(s)
	if err != nil {
		return f, err
	}
	f.BestBalanced, f.BestThreshold = best.Balanced, best.Threshold
	if f.StrangersIn95, f.Threshold95, err = StrangersIn(s, KnownIn95); err != nil {
		return f, err
	}
	if f.StrangersIn99, f.Threshold99, err = StrangersIn(s, KnownIn99); err != nil {
		return f, err
	}
	return f, nil
}
