package eval

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"setmatch/kfda"
	"setmatch/match"
)

// candidate is one kernel matrix over the whole pool (m×m) with a
// description of the parameters that made it. The matrix is either held
// (k) or made when it is needed (compute, for the many kernels of a
// divergence kFDA's search: held at once, they would cost m² numbers
// each for the whole search).
type candidate struct {
	k       *mat.SymDense
	compute func() *mat.SymDense
	desc    string
	// fit describes the kernel (kfda-hg/hl/j on divergences, gda and cdl
	// on the sets) so that the chosen one can be deployed.
	fit *Fitted
}

// matrix returns the candidate's kernel matrix.
func (c candidate) matrix() *mat.SymDense {
	if c.k != nil {
		return c.k
	}
	return c.compute()
}

// dims returns the latent dimensions to try for c classes.
func (g Grid) dims(c int) []int {
	src := g.Dims
	if len(src) == 0 {
		src = []int{c - 1, (c + 0) / 2, (c + 2) / 4}
	}
	var out []int
	seen := map[int]bool{}
	for _, d := range src {
		if d <= 0 || d > c-1 {
			d = c - 1
		}
		if d >= 1 && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// sub returns the kernel block k[rows, cols].
func sub(k mat.Symmetric, rows, cols []int) *mat.Dense {
	out := mat.NewDense(len(rows), len(cols), nil)
	for a, i := range rows {
		r := out.RawRowView(a)
		for b, j := range cols {
			r[b] = k.At(i, j)
		}
	}
	return out
}

func subSym(k mat.Symmetric, idx []int) *mat.SymDense {
	out := mat.NewSymDense(len(idx), nil)
	for a, i := range idx {
		for b := a; b < len(idx); b++ {
			out.SetSym(a, b, k.At(i, idx[b]))
		}
	}
	return out
}

// kfdaPredict fits kFDA on the training sets and returns the 1-NN labels
// (in the first dim latent coordinates) of the test sets, with margins
// computed against truth when truth is given. When cls is not nil
// (len(test) rows), cls[a] receives test set a's distance to the nearest
// training set of every class in the latent space of dims[0]
// (classDist).
func kfdaPredict(k mat.Symmetric, train, labels, test []int, classes int, reg float64, dims []int, truth []int, cls [][]float64) ([][]int, [][]float64, error) {
	f, err := FitKFDA(subSym(k, train), labels, classes, reg, 0)
	if err != nil {
		return nil, nil, err
	}
	z, err := f.Transform(sub(k, test, train))
	if err != nil {
		return nil, nil, err
	}
	_, rmax := f.Train.Dims()
	pred := make([][]int, len(dims))
	marg := make([][]float64, len(dims))
	pos := make([]int, len(train))
	for i := range pos {
		pos[i] = i
	}
	for di, d := range dims {
		d = min(d, rmax)
		pred[di] = make([]int, len(test))
		marg[di] = make([]float64, len(test))
		for a := range test {
			q := z.RawRowView(a)[:d]
			dist := func(j int) float64 {
				g := f.Train.RawRowView(j)[:d]
				var s float64
				for c, v := range q {
					e := v - g[c]
					s += e * e
				}
				return math.Sqrt(s)
			}
			t := -1
			if truth != nil {
				t = truth[a]
			}
			pred[di][a], marg[di][a] = nnOutcome(dist, pos, labels, t)
			if cls != nil && di == 0 {
				cls[a] = classDist(dist, pos, labels, classes)
			}
		}
	}
	return pred, marg, nil
}

// chooseKFDA scores every candidate kernel, regulariser and latent
// dimension by cross-validation on the training sets and returns the best
// score, the candidate's index, the regulariser and the latent dimension.
func chooseKFDA(t *Task, g Grid, cands []candidate) (best score, cand int, reg float64, dim int) {
	regs := g.Regs
	if len(regs) == 0 {
		regs = []float64{1e-2}
	}
	dims := g.dims(t.Classes)
	cvTrain, cvLabels, fold := t.cv(max(g.Folds, 2))
	type key struct{ c, r, d int }
	bestK := key{}
	best = score{acc: -1}
	if fold != nil && (len(cands) > 1 || len(regs) > 1 || len(dims) > 1) {
		nf := 0
		for _, f := range fold {
			nf = max(nf, f+1)
		}
		// Candidates are scored in parallel, then compared in order so
		// that the choice does not depend on the number of workers.
		scores := make([][][]score, len(cands)) // [cand][reg][dim]
		t.progress.count("kernels", len(cands))
		t.Pool.parallel(len(cands), func(ci int) {
			defer t.progress.inc()
			k := cands[ci].matrix()
			scores[ci] = make([][]score, len(regs))
			for ri, reg := range regs {
				sc := make([]score, len(dims))
				n := 0
				for f := range nf {
					var tr, lab, te, truth []int
					for k, j := range cvTrain {
						if fold[k] == f {
							te = append(te, j)
							truth = append(truth, cvLabels[k])
						} else {
							tr = append(tr, j)
							lab = append(lab, cvLabels[k])
						}
					}
					pred, marg, err := kfdaPredict(k, tr, lab, te, t.Classes, reg, dims, truth, nil)
					if err != nil {
						// An ill-posed configuration simply loses.
						n = -1
						break
					}
					for di := range dims {
						for a := range te {
							if pred[di][a] == truth[a] {
								sc[di].acc++
							}
							sc[di].margin += marg[di][a]
						}
					}
					n += len(te)
				}
				for di := range dims {
					if n <= 0 {
						sc[di] = score{acc: -1}
						continue
					}
					sc[di] = score{sc[di].acc / float64(n), sc[di].margin / float64(n)}
				}
				scores[ci][ri] = sc
			}
		})
		for ci := range cands {
			for ri := range regs {
				for di, s := range scores[ci][ri] {
					if s.acc >= 0 && s.better(best) {
						best, bestK = s, key{ci, ri, di}
					}
				}
			}
		}
	}
	return best, bestK.c, regs[bestK.r], dims[bestK.d]
}

// runKFDA chooses a candidate kernel, regulariser and latent dimension
// (chooseKFDA) and classifies the test sets by 1-NN in the latent space
// of kFDA fitted on the training sets; without test sets it fits the
// chosen kernel on all training sets, for a model to deploy.
func runKFDA(t *Task, g Grid, cands []candidate) (Prediction, error) {
	best, ci, reg, dim := chooseKFDA(t, g, cands)
	c := cands[ci]
	params := fmt.Sprintf("%s reg=%g dim=%d", c.desc, reg, dim)
	if best.acc >= 0 {
		params += fmt.Sprintf(" cv=%.1f%%", 100*best.acc)
	}
	k := c.matrix()
	if len(t.Test) > 0 {
		cls := make([][]float64, len(t.Test))
		pred, _, err := kfdaPredict(k, t.Train, t.Labels, t.Test, t.Classes, reg, []int{dim}, nil, cls)
		if err != nil {
			return Prediction{}, fmt.Errorf("%s: %w", c.desc, err)
		}
		return Prediction{Labels: pred[0], Params: params, classDist: cls}, nil
	}
	// No test sets: fit the chosen kernel on all training sets, for a
	// model to deploy.
	var fit *Fitted
	if c.fit != nil {
		f, err := FitKFDA(subSym(k, t.Train), t.Labels, t.Classes, reg, 0)
		if err != nil {
			return Prediction{}, fmt.Errorf("%s: %w", c.desc, err)
		}
		fit = c.fit
		fit.CV, fit.Reg, fit.KFDA = best.acc, reg, f
		_, r := f.Train.Dims()
		fit.LatentDim = min(dim, r)
		if err := fit.setBandwidths(t); err != nil {
			return Prediction{}, err
		}
	}
	return Prediction{Params: params, Fit: fit}, nil
}

func runKFDADiv(t *Task, g Grid, method string) (Prediction, error) {
	cands, err := divCandidates(t, g, method)
	if err != nil {
		return Prediction{}, err
	}
	return runKFDA(t, g, cands)
}

func divCandidates(t *Task, g Grid, method string) ([]candidate, error) {
	m, sqrt, kernel := match.Hellinger, false, match.KernelHG
	switch method {
	case KFDAHL:
		sqrt, kernel = true, match.KernelHL
	case KFDAJ:
		m, kernel = match.Jeffrey, match.KernelJ
	}
	bws := g.Bandwidths
	if len(bws) == 0 {
		bws = []Bandwidth{{Mode: Global, Scale: 1}}
	}
	widths := g.Widths
	if len(widths) == 0 {
		widths = PaperWidths
	}
	if _, _, fold := t.cv(max(g.Folds, 2)); fold == nil {
		// Nothing to cross-validate on: the first bandwidth, and the
		// width that puts the median divergence at e^−1.
		bws, widths = bws[:1], []float64{1}
		g.WidthScale = "median"
	}
	var cands []candidate
	for _, b := range bws {
		dm, err := t.Pool.divMatrix(b, t.Train)
		if err != nil {
			return nil, fmt.Errorf("bandwidth %v: %w", b, err)
		}
		d := dm.Of(m)
		med := kfda.MedianOffDiag(d, t.Train, sqrt)
		fit := func(s, scale float64, median bool) *Fitted {
			return &Fitted{Method: method, Divergence: m, Bandwidth: b, Width: s, WidthScale: scale, WidthMedian: median}
		}
		for _, s := range widths {
			ss := strconv.FormatFloat(s, 'g', -1, 64)
			if g.WidthScale != "median" {
				cands = append(cands, candidate{compute: func() *mat.SymDense { return kfda.KernelMatrix(d, s, 1, kernel) }, desc: fmt.Sprintf("bw=%v s=%s", b, ss), fit: fit(s, 1, false)})
			}
			if g.WidthScale == "median" || g.WidthScale == "both" {
				if med > 0 {
					cands = append(cands, candidate{compute: func() *mat.SymDense { return kfda.KernelMatrix(d, s, med, kernel) }, desc: fmt.Sprintf("bw=%v s=%s/median", b, ss), fit: fit(s, med, true)})
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("no kernel candidates (width scale %q: want raw, median or both)", g.WidthScale)
	}
	return cands, nil
}

func runGDA(t *Task, g Grid) (Prediction, error) {
	cands, err := gdaCandidates(t, g)
	if err != nil {
		return Prediction{}, err
	}
	return runKFDA(t, g, cands)
}

func gdaCandidates(t *Task, g Grid) ([]candidate, error) {
	ps := g.GDAP
	if len(ps) == 0 {
		ps = []int{5}
	}
	pmax := 0
	for _, p := range ps {
		pmax = max(pmax, p)
	}
	var cands []candidate
	for _, p := range ps {
		k, err := t.Pool.GDAKernel(p, pmax)
		if err != nil {
			return nil, err
		}
		fit := &Fitted{Method: GDA, Divergence: match.Hellinger, Bandwidth: Bandwidth{Mode: Global, Scale: 1}, P: p}
		cands = append(cands, candidate{k: k, desc: fmt.Sprintf("p=%d", p), fit: fit})
	}
	return cands, nil
}

func runCDL(t *Task, g Grid) (Prediction, error) {
	cands, err := cdlCandidates(t, g)
	if err != nil {
		return Prediction{}, err
	}
	return runKFDA(t, g, cands)
}

func cdlCandidates(t *Task, g Grid) ([]candidate, error) {
	regs := g.CDLRegs
	if len(regs) == 0 {
		regs = []float64{1e-3}
	}
	var cands []candidate
	for _, r := range regs {
		k, lambda, err := t.Pool.CDLKernel(r, t.Train)
		if err != nil {
			return nil, err
		}
		fit := &Fitted{Method: CDL, Divergence: match.Hellinger, Bandwidth: Bandwidth{Mode: Global, Scale: 1}, Lambda: lambda}
		cands = append(cands, candidate{k: k, desc: fmt.Sprintf("lambda=%g(%.3g)", r, lambda), fit: fit})
	}
	return cands, nil
}
