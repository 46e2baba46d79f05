package match

import (
	"fmt"
	"math"
)

// Divergences holds the symmetric empirical estimates between two sets.
type Divergences struct {
	Hellinger2 float64 // squared Hellinger distance, Eq. 10, in [0, 2]
	Jeffrey    float64 // Jeffrey (symmetric KL) divergence, Eq. 11, ≥ 0

	// Bhattacharyya is the matching estimate of the Bhattacharyya
	// coefficient, ½·(mean over P + mean over Q of sech(r/2)), in [0, 1]:
	// Hellinger2 = 2 − 2·Bhattacharyya up to rounding, as for the exact
	// quantities (the paper's Remark in Section 2).
	Bhattacharyya float64
}

// Measure selects one of the two divergences.
type Measure int

const (
	Hellinger Measure = iota // squared Hellinger distance H2
	Jeffrey                  // Jeffrey divergence J
)

// String returns "hellinger" or "jeffrey".
func (m Measure) String() string {
	if m == Jeffrey {
		return "jeffrey"
	}
	return "hellinger"
}

// ParseMeasure reads "hellinger" (or "h") and "jeffrey" (or "j").
func ParseMeasure(s string) (Measure, error) {
	switch s {
	case "hellinger", "h", "H":
		return Hellinger, nil
	case "jeffrey", "j", "J":
		return Jeffrey, nil
	}
	return 0, fmt.Errorf("divergence %q: want \"hellinger\" or \"jeffrey\"", s)
}

// Of returns the divergence m of d.
func (d Divergences) Of(m Measure) float64 {
	if m == Jeffrey {
		return d.Jeffrey
	}
	return d.Hellinger2
}

// HellingerTerm returns (√T − √(1−T))² for T = sigmoid(r), that is
// 1 − 1/cosh(r/2), accurately for every r: it is r²/16 near 0 and tends to 1.
func HellingerTerm(r float64) float64 {
	// 1 − sech x = (1 − e^−x)²/(1 + e^−2x) with x = |r|/2: expm1 keeps it
	// exact near 0, and nothing overflows for large x.
	m := math.Expm1(-math.Abs(r) / 2)
	e := 1 + m
	return m * m / (1 + e*e)
}

// HellingerTermDeriv returns d/dr of HellingerTerm: ½·tanh(r/2)·sech(r/2).
func HellingerTermDeriv(r float64) float64 {
	x := math.Abs(r) / 2
	e := math.Exp(-x)
	sech := 2 * e / (1 + e*e)
	return 0.5 * math.Tanh(r/2) * sech
}

// JeffreyTerm returns (2T−1)·log(T/(1−T)) for T = sigmoid(r), that is
// r·tanh(r/2): r²/2 near 0 and |r| for large |r|.
func JeffreyTerm(r float64) float64 { return r * math.Tanh(r/2) }

// JeffreyTermDeriv returns d/dr of JeffreyTerm: tanh(r/2) + (r/2)·sech²(r/2).
func JeffreyTermDeriv(r float64) float64 {
	if math.IsInf(r, 0) {
		return math.Copysign(1, r)
	}
	x := math.Abs(r) / 2
	e := math.Exp(-x)
	sech := 2 * e / (1 + e*e)
	return math.Tanh(r/2) + r/2*sech*sech
}

// Term returns the per-point term of measure m at log ratio r.
func (m Measure) Term(r float64) float64 {
	if m == Jeffrey {
		return JeffreyTerm(r)
	}
	return HellingerTerm(r)
}

// TermDeriv returns the derivative of the per-point term of m at r.
func (m Measure) TermDeriv(r float64) float64 {
	if m == Jeffrey {
		return JeffreyTermDeriv(r)
	}
	return HellingerTermDeriv(r)
}

// Symmetric returns both estimators from the four vectors of log densities:
// logPatP[i] = log p(x_i) and logQatP[i] = log q(x_i) at the n_p samples of P,
// and likewise at the n_q samples of Q.
func Symmetric(logPatP, logQatP, logPatQ, logQatQ []float64) Divergences {
	hp, jp, bp := sumTerms(logPatP, logQatP)
	hq, jq, bq := sumTerms(logPatQ, logQatQ)
	np, nq := float64(len(logPatP)), float64(len(logPatQ))
	return Divergences{
		Hellinger2:    hp/np + hq/nq,
		Jeffrey:       jp/np + jq/nq,
		Bhattacharyya: (bp/np + bq/nq) / 2,
	}
}

// sumTerms returns the sums over points of the Hellinger and Jeffrey terms
// and of sech(r/2), with r = logP[i] − logQ[i]. With x = |r|/2, e = e^−x and
// m = e − 1:
//
//	1 − sech x   = (1 − e)²/(1 + e²) = m²/(1 + e²)
//	r·tanh(r/2)  = 2x·(1 − e²)/(1 + e²) = −2x·m·(2 + m)/(1 + e²)
//	sech x       = 2e/(1 + e²)
//
// none of which cancels or overflows for any r, given e and m to full
// precision: below x = ½, m = expm1(−x) (exact even for tiny x) and e =
// 1 + m; from there, e = exp(−x) (which 1 + m would lose where e is tiny:
// far points, whose sech decides the Bhattacharyya estimate of far sets)
// and m = e − 1, exact as e ≤ 0.61. One exponential a point either way.
func sumTerms(logP, logQ []float64) (h, j, b float64) {
	logQ = logQ[:len(logP)]
	for i, lp := range logP {
		x := math.Abs(lp-logQ[i]) / 2
		var e, m float64
		if x < 0.5 {
			m = math.Expm1(-x)
			e = 1 + m
		} else {
			e = math.Exp(-x)
			m = e - 1
		}
		inv := 1 / (1 + e*e)
		h += m * m * inv
		j -= 2 * x * m * (2 + m) * inv
		b += 2 * e * inv
	}
	return h, j, b
}

// Compare returns the symmetric estimators (Eq. 10 and 11) between the KDEs
// p and q. It is the reference pairwise computation; Gallery computes the same
// values for one query against many sets faster.
func Compare(p, q *KDE) (Divergences, error) {
	lpp, lqp, lpq, lqq, err := crossLogDensities(p, q)
	if err != nil {
		return Divergences{}, err
	}
	return Symmetric(lpp, lqp, lpq, lqq), nil
}

// OneSided holds the one-sided estimators, which average over the samples of
// one set only (the paper's Eq. 6 and 7 for the Hellinger distance, and the
// corresponding Jeffrey estimators). They are asymmetric and unstable where
// one density is tiny; they are here for comparison in evaluation.
type OneSided struct {
	HellingerP float64 // mean over x in P of (1 − √(q/p))²
	HellingerQ float64 // mean over x in Q of (1 − √(p/q))²
	JeffreyP   float64 // mean over x in P of (1 − q/p)·log(p/q)
	JeffreyQ   float64 // mean over x in Q of (1 − p/q)·log(q/p)
}

// CompareOneSided returns the one-sided estimators between p and q.
// They can be +Inf where one density is negligible against the other: that
// instability is why the symmetric estimators exist.
func CompareOneSided(p, q *KDE) (OneSided, error) {
	lpp, lqp, lpq, lqq, err := crossLogDensities(p, q)
	if err != nil {
		return OneSided{}, err
	}
	var o OneSided
	for i := range lpp {
		r := lpp[i] - lqp[i] // log p/q at x in P
		e := -math.Expm1(-r / 2)
		o.HellingerP += e * e
		o.JeffreyP += -math.Expm1(-r) * r
	}
	for i := range lqq {
		r := lqq[i] - lpq[i] // log q/p at x in Q
		e := -math.Expm1(-r / 2)
		o.HellingerQ += e * e
		o.JeffreyQ += -math.Expm1(-r) * r
	}
	np, nq := float64(len(lpp)), float64(len(lqq))
	o.HellingerP /= np
	o.JeffreyP /= np
	o.HellingerQ /= nq
	o.JeffreyQ /= nq
	return o, nil
}

func crossLogDensities(p, q *KDE) (lpp, lqp, lpq, lqq []float64, err error) {
	if p.Dim() != q.Dim() {
		return nil, nil, nil, nil, fmt.Errorf("%w: %d and %d", ErrDimMismatch, p.Dim(), q.Dim())
	}
	if lpp, err = p.LogDensity(p.x, nil); err != nil {
		return
	}
	if lqp, err = q.LogDensity(p.x, nil); err != nil {
		return
	}
	if lpq, err = p.LogDensity(q.x, nil); err != nil {
		return
	}
	lqq, err = q.LogDensity(q.x, nil)
	return
}

// Set kernels of Section 3: positive definite functions of the divergences,
// with width s > 0.

// KernelHG returns the Gaussian kernel on the Hellinger distance, exp(−s·H2).
func KernelHG(h2, s float64) float64 { return math.Exp(-s * h2) }

// KernelHL returns the Laplace kernel on the Hellinger distance, exp(−s·√H2).
func KernelHL(h2, s float64) float64 { return math.Exp(-s * math.Sqrt(math.Max(h2, 0))) }

// KernelJ returns the Gaussian kernel on the Jeffrey divergence, exp(−s·J).
func KernelJ(j, s float64) float64 { return math.Exp(-s * j) }
