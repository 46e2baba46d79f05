package eval

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// kFDA on a sum of set kernels (kfda-sum): a KDE kernel (kfda-hg), GDA's
// projection kernel and CDL's log-Euclidean kernel look at different
// things in a set (the shape of its density, the subspace it spans, its
// second moments); their sum is a kernel on all of them at once, the
// feature spaces side by side. Each family's kernel is chosen by its own
// cross-validation on the training sets, and scaled to a mean diagonal of
// 1 over them so that no family outweighs the others by its units; the
// sums of two and of all three are the candidates of one more
// cross-validation, with the regulariser and latent dimension.

// Term is one kernel of a sum: a single-kernel method fitted on the
// training sets (kfda-hg, gda or cdl, without its discriminant) and the
// weight of its kernel in the sum, 1 / the mean of its diagonal over the
// training sets.
type Term struct {
	Fit    *Fitted
	Weight float64
}

// sumFamilies are the methods whose kernels kfda-sum adds.
var sumFamilies = []string{KFDAHG, GDA, CDL}

// sumCombos are the sums kfda-sum chooses from, as indices into
// sumFamilies.
var sumCombos = [][]int{{0, 2}, {0, 1}, {1, 2}, {0, 1, 2}}

func runSum(t *Task, g Grid) (Prediction, error) {
	cands, err := sumCandidates(t, g)
	if err != nil {
		return Prediction{}, err
	}
	return runKFDA(t, g, cands)
}

// sumCandidates returns the kernels of sumCombos, each family's kernel
// chosen by its own cross-validation on t's training sets.
func sumCandidates(t *Task, g Grid) ([]candidate, error) {
	type chosen struct {
		k      *mat.SymDense // weighted
		desc   string
		fit    *Fitted
		weight float64
	}
	var fam []chosen
	for _, method := range sumFamilies {
		var cands []candidate
		var err error
		switch method {
		case KFDAHG:
			cands, err = divCandidates(t, g, method)
		case GDA:
			cands, err = gdaCandidates(t, g)
		case CDL:
			cands, err = cdlCandidates(t, g)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		_, c, _, _ := chooseKFDA(t, g, cands)
		k := cands[c].k
		var diag float64
		for _, i := range t.Train {
			diag += k.At(i, i)
		}
		diag /= float64(len(t.Train))
		if !(diag > 0) {
			return nil, fmt.Errorf("%s kernel %s: mean diagonal %v over the training sets, want > 0", method, cands[c].desc, diag)
		}
		w := mat.NewSymDense(k.SymmetricDim(), nil)
		w.ScaleSym(1/diag, k)
		fam = append(fam, chosen{k: w, desc: method + "(" + cands[c].desc + ")", fit: cands[c].fit, weight: 1 / diag})
	}
	var cands []candidate
	for _, combo := range sumCombos {
		n := fam[combo[0]].k.SymmetricDim()
		sum := mat.NewSymDense(n, nil)
		var desc []string
		f := &Fitted{Method: KFDASum, Divergence: fam[0].fit.Divergence, Bandwidth: Bandwidth{Mode: Global, Scale: 1}}
		for _, i := range combo {
			c := fam[i]
			sum.AddSym(sum, c.k)
			desc = append(desc, c.desc)
			term := *c.fit
			f.Terms = append(f.Terms, Term{Fit: &term, Weight: c.weight})
			if term.Method == KFDAHG {
				// The KDE term's bandwidth is the one the model's
				// gallery sets and batches get.
				f.Bandwidth = term.Bandwidth
			}
		}
		cands = append(cands, candidate{k: sum, desc: strings.Join(desc, "+"), fit: f})
	}
	return cands, nil
}
