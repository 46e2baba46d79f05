package method

import "gonum.org/v1/gonum/mat"

// The engine's internals that the tests of package method_test (which
// compare it with a deployed model, package model) call.

var (
	KFDAPredict = kfdaPredict
	SubSym      = subSym
	Sub         = sub
	MixCombos   = mixCombos
)

// FrameOffset returns the index of set i's first frame among the pool's
// frames.
func (p *Pool) FrameOffset(i int) int { return p.off[i] }

// SetBandwidths sets f's bandwidths from t's pool.
func (f *Fitted) SetBandwidths(t *Task) error { return f.setBandwidths(t) }

// MixCandidate is a candidate kernel of kfda-mix.
type MixCandidate struct {
	Desc   string
	Matrix mat.Symmetric
	Fit    *Fitted
}

// MixCandidates returns the candidate kernels of kfda-mix on t.
func MixCandidates(t *Task, g Grid) ([]MixCandidate, error) {
	cands, err := mixCandidates(t, g)
	if err != nil {
		return nil, err
	}
	out := make([]MixCandidate, len(cands))
	for i, c := range cands {
		out[i] = MixCandidate{Desc: c.desc, Matrix: c.matrix(), Fit: c.fit}
	}
	return out, nil
}
