package method

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// kFDA on a mix of set kernels (kfda-mix): a KDE kernel (kfda-hg), GDA's
// projection kernel and CDL's log-Euclidean kernel look at different
// things in a set (the shape of its density, the subspace it spans, its
// second moments); a sum of them is a kernel on several at once, the
// feature spaces side by side. Each family's kernel is chosen by its own
// cross-validation on the training sets; in a sum each is scaled to a
// mean diagonal of 1 over them, so that no family outweighs the others by
// its units. The three kernels alone, the sums of two and the sum of all
// three are the candidates of one more cross-validation, with the
// regulariser and latent dimension: a family that only adds noise (CDL's
// covariances under strong lighting changes, for one) is left out.

// FittedTerm is one kernel of kfda-mix as the engine fits it: a
// single-kernel method fitted on the training sets (kfda-hg, gda or cdl,
// without its discriminant) and the weight of its kernel in a sum, 1 /
// the mean of its diagonal over the training sets (1 for a kernel alone).
// A model stores not the fit but the kernel it names (model.Term: the
// kernel's kind and parameters), and weighs it again on its gallery.
type FittedTerm struct {
	Fit    *Fitted
	Weight float64
}

// mixFamilies are the methods whose kernels kfda-mix takes.
var mixFamilies = []Name{KFDAHG, GDA, CDL}

// mixCombos are the kernels kfda-mix chooses from, as indices into
// mixFamilies: each alone, then the sums (on ties the first wins).
var mixCombos = [][]int{{0}, {1}, {2}, {0, 2}, {0, 1}, {1, 2}, {0, 1, 2}}

// mixCandidates returns the kernels of mixCombos, each family's kernel
// chosen by its own cross-validation on t's training sets.
func mixCandidates(t *Task, g Grid) ([]candidate, error) {
	type chosen struct {
		k    mat.Symmetric // as chosen, not weighted
		desc string
		fit  *Fitted
		diag float64 // its mean diagonal over the training sets
	}
	var fam []chosen
	for _, method := range mixFamilies {
		cands, err := kernelCandidates(method, t, g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		_, c, _, _ := chooseKFDA(t, g, cands)
		k := cands[c].matrix()
		var diag float64
		for _, i := range t.Train {
			diag += k.At(i, i)
		}
		diag /= float64(len(t.Train))
		if !(diag > 0) {
			return nil, fmt.Errorf("%s kernel %s: mean diagonal %v over the training sets, want > 0", method, cands[c].desc, diag)
		}
		fam = append(fam, chosen{k: k, desc: string(method) + "(" + cands[c].desc + ")", fit: cands[c].fit, diag: diag})
	}
	// The sums are held for the task's sets only (setKernel).
	sets := t.divSets()
	m := t.Pool.Len()
	var cands []candidate
	for _, combo := range mixCombos {
		k := fam[combo[0]].k // a kernel alone is taken as it is
		var sum *mat.SymDense
		if len(combo) > 1 {
			sum = mat.NewSymDense(len(sets), nil)
			k = newSetKernel(m, sets, sum)
		}
		var desc []string
		f := &Fitted{Method: KFDAMix, Divergence: fam[0].fit.Divergence, Bandwidth: Bandwidth{Mode: Global, Scale: 1}}
		for _, i := range combo {
			c := fam[i]
			w := 1.0
			if len(combo) > 1 {
				w = 1 / c.diag
				var s mat.SymDense
				s.ScaleSym(w, subSym(c.k, sets))
				sum.AddSym(sum, &s)
			}
			desc = append(desc, c.desc)
			term := *c.fit
			f.Terms = append(f.Terms, FittedTerm{Fit: &term, Weight: w})
			if term.Method == KFDAHG {
				// The KDE kernel's bandwidth is the one the model's
				// gallery sets and batches get.
				f.Bandwidth = term.Bandwidth
			}
		}
		cands = append(cands, candidate{k: k, desc: strings.Join(desc, "+"), fit: f})
	}
	return cands, nil
}
