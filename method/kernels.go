package method

import (
	"errors"
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
	k mat.Symmetric // the pool's m×m kernel (or the entries of the task's sets: setKernel)
	// compute returns the kernel of the sets idx (pool indices), in that
	// order, or, when idx is nil, the pool's kernel (of the task's sets).
	compute func(idx []int) mat.Symmetric
	desc    string
	// fit describes the kernel (kfda-hg/hl/j on divergences, gda and cdl
	// on the sets) so that the chosen one can be deployed.
	fit *Fitted
}

// matrix returns the candidate's kernel matrix.
func (c candidate) matrix() mat.Symmetric {
	if c.k != nil {
		return c.k
	}
	return c.compute(nil)
}

// matrixOn returns the candidate's kernel matrix of the sets idx (pool
// indices), in that order: for a kernel made when needed, only those
// entries are made.
func (c candidate) matrixOn(idx []int) mat.Symmetric {
	if c.k != nil {
		return subSym(c.k, idx)
	}
	return c.compute(idx)
}

// divKernel returns the kernel kernel(max(δ, 0), s/scale) of the
// divergences d between the sets idx, in that order (kfda.KernelMatrix of
// those entries); when idx is nil, the pool's kernel of the sets all only
// (setKernel; every set when all is nil too).
func divKernel(d Divs, idx, all []int, s, scale float64, kernel func(div, s float64) float64) mat.Symmetric {
	if idx == nil {
		if all == nil {
			return kfda.KernelMatrix(d, s, scale, kernel)
		}
		return newSetKernel(d.SymmetricDim(), all, divKernel(d, all, nil, s, scale, kernel).(*mat.SymDense))
	}
	k := mat.NewSymDense(len(idx), nil)
	for a, i := range idx {
		for b := a; b < len(idx); b++ {
			k.SetSym(a, b, kernel(math.Max(d.At(i, idx[b]), 0), s/scale))
		}
	}
	return k
}

// setKernel is the m×m kernel of a pool's sets of which only the entries
// of some sets are held (len(sets)² numbers): a kernel made for a task
// covers its sets, not the whole pool (the pool of a fold also holds the
// halves of other folds). Asking for a set it does not cover is a bug (it
// panics).
type setKernel struct {
	m   int
	loc []int32 // per set of the pool its row in k, −1 when not covered
	k   *mat.SymDense
}

// newSetKernel returns the m×m kernel whose entries of the ascending sets
// sets are those of k (len(sets)×len(sets), in that order).
func newSetKernel(m int, sets []int, k *mat.SymDense) *setKernel {
	loc := make([]int32, m)
	for i := range loc {
		loc[i] = -1
	}
	for a, i := range sets {
		loc[i] = int32(a)
	}
	return &setKernel{m: m, loc: loc, k: k}
}

// At returns the kernel of sets i and j.
func (s *setKernel) At(i, j int) float64 {
	a, b := s.loc[i], s.loc[j]
	if a < 0 || b < 0 {
		panic(fmt.Sprintf("eval: kernel of sets %d and %d asked of a kernel that does not cover both", i, j))
	}
	return s.k.At(int(a), int(b))
}

// Dims returns m, m.
func (s *setKernel) Dims() (int, int) { return s.m, s.m }

// T returns s: it is symmetric.
func (s *setKernel) T() mat.Matrix { return s }

// SymmetricDim returns m.
func (s *setKernel) SymmetricDim() int { return s.m }

// covers reports whether s holds every set of sets.
func (s *setKernel) covers(sets []int) bool {
	for _, i := range sets {
		if s.loc[i] < 0 {
			return false
		}
	}
	return true
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
// computed against truth when truth is given.
func kfdaPredict(k mat.Symmetric, train, labels, test []int, classes int, reg float64, dims []int, truth []int) ([][]int, [][]float64, error) {
	p, err := kfda.Prepare(subSym(k, train), labels, classes)
	if err != nil {
		return nil, nil, err
	}
	return predictPrepared(p, sub(k, test, train), labels, reg, dims, truth)
}

// predictPrepared is kfdaPredict on a prepared discriminant of the
// training sets (kfda.Prepare) and the test × training kernel kt. A test
// set's squared latent distance to a training set is summed once, over
// the coordinates in order, and its running sum after the first d
// coordinates is the distance in d dimensions: the sum over its own d
// coordinates, to the last bit, for every entry of dims.
func predictPrepared(p *kfda.Prepared, kt *mat.Dense, labels []int, reg float64, dims []int, truth []int) ([][]int, [][]float64, error) {
	f, err := p.Fit(reg, 0)
	if err != nil {
		return nil, nil, err
	}
	z, err := f.Transform(kt)
	if err != nil {
		return nil, nil, err
	}
	nt, _ := kt.Dims()
	m, rmax := f.Train.Dims()
	pred := make([][]int, len(dims))
	marg := make([][]float64, len(dims))
	upTo := make([]int, len(dims)) // each dims entry clamped to the latent dimensions
	top := 0                       // the largest of them
	for di, d := range dims {
		pred[di] = make([]int, nt)
		marg[di] = make([]float64, nt)
		upTo[di] = min(d, rmax)
		top = max(top, upTo[di])
	}
	pos := make([]int, len(labels))
	for i := range pos {
		pos[i] = i
	}
	dist := make([][]float64, len(dims)) // dist[di][j]: a test set's distance to training set j
	for di := range dist {
		dist[di] = make([]float64, m)
	}
	sq := make([]float64, top+1) // sq[c]: the squared distance over the first c coordinates
	for a := range nt {
		q := z.RawRowView(a)
		for j := range m {
			g := f.Train.RawRowView(j)
			var s float64
			for c := range top {
				e := q[c] - g[c]
				s += e * e
				sq[c+1] = s
			}
			for di, u := range upTo {
				dist[di][j] = math.Sqrt(sq[u])
			}
		}
		t := -1
		if truth != nil {
			t = truth[a]
		}
		for di := range dims {
			pred[di][a], marg[di][a] = nnOutcome(func(j int) float64 { return dist[di][j] }, pos, labels, t)
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
		// that the choice does not depend on the number of workers. Each
		// kernel is made once, on the sets of the cross-validation only,
		// and each fold's discriminant is prepared once for every
		// regulariser (kfda.Prepare: the same numbers as fitting it anew).
		// Where every class has a single training set in a fold, the
		// within-class scatter is zero and every regulariser gives the
		// same discriminant up to a scale of its latent space, hence the
		// same labels and relative margins: the first regulariser's
		// outcomes stand for the others' there.
		scores := make([][][]score, len(cands)) // [cand][reg][dim]
		t.progress().count("kernels", len(cands))
		type foldSets struct{ tr, te, lab, truth []int }
		fs := make([]foldSets, nf)
		for f := range nf {
			for k := range cvTrain {
				if fold[k] == f {
					fs[f].te = append(fs[f].te, k)
					fs[f].truth = append(fs[f].truth, cvLabels[k])
				} else {
					fs[f].tr = append(fs[f].tr, k)
					fs[f].lab = append(fs[f].lab, cvLabels[k])
				}
			}
		}
		t.Pool.parallel(len(cands), func(ci int) {
			defer t.progress().inc()
			kk := cands[ci].matrixOn(cvTrain) // positions in cvTrain
			sc := make([][]score, len(regs))
			n := make([]int, len(regs))
			for ri := range regs {
				sc[ri] = make([]score, len(dims))
			}
			for _, f := range fs {
				p, perr := kfda.Prepare(subSym(kk, f.tr), f.lab, t.Classes)
				kt := sub(kk, f.te, f.tr)
				var pred0 [][]int
				var marg0 [][]float64
				for ri, reg := range regs {
					if n[ri] < 0 {
						continue
					}
					var pred [][]int
					var marg [][]float64
					err := perr
					switch {
					case err != nil:
					case ri > 0 && p.OneEach && pred0 != nil:
						pred, marg = pred0, marg0
					default:
						pred, marg, err = predictPrepared(p, kt, f.lab, reg, dims, f.truth)
					}
					if err != nil {
						// An ill-posed configuration simply loses.
						n[ri] = -1
						continue
					}
					if ri == 0 {
						pred0, marg0 = pred, marg
					}
					for di := range dims {
						for a := range f.te {
							sc[ri][di].add(pred[di][a] == f.truth[a], marg[di][a])
						}
					}
					n[ri] += len(f.te)
				}
			}
			for ri := range regs {
				for di := range dims {
					if n[ri] <= 0 {
						sc[ri][di] = score{acc: -1}
						continue
					}
					sc[ri][di] = sc[ri][di].mean(n[ri])
				}
			}
			scores[ci] = sc
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
		pred, _, err := kfdaPredict(k, t.Train, t.Labels, t.Test, t.Classes, reg, []int{dim}, nil)
		if err != nil {
			return Prediction{}, fmt.Errorf("%s: %w", c.desc, t.kernelNaN(err, c))
		}
		return Prediction{Labels: pred[0], Params: params}, nil
	}
	// No test sets: fit the chosen kernel on all training sets, for a
	// model to deploy.
	var fit *Fitted
	if c.fit != nil {
		f, err := kfda.Fit(subSym(k, t.Train), t.Labels, t.Classes, reg, 0)
		if err != nil {
			return Prediction{}, fmt.Errorf("%s: %w", c.desc, t.kernelNaN(err, c))
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

// kernelCandidates returns the kernel candidates of the kFDA method
// (kfda-hg, kfda-hl, kfda-j, gda, cdl or kfda-mix) on t.
func kernelCandidates(method Name, t *Task, g Grid) ([]candidate, error) {
	switch method {
	case GDA:
		return gdaCandidates(t, g)
	case CDL:
		return cdlCandidates(t, g)
	case KFDAMix:
		return mixCandidates(t, g)
	}
	return divCandidates(t, g, method)
}

func divCandidates(t *Task, g Grid, method Name) ([]candidate, error) {
	k := method.Kernel()
	m, sqrt, kernel := k.Measure(), k.Root(), k.Func()
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
		g.WidthScale = WidthMedian
	}
	sets := t.divSets()
	t.Pool.prefetch(bws, []divRequest{{t.Train, sets}})
	var cands []candidate
	for _, b := range bws {
		dm, err := t.Pool.divMatrix(b, t.Train, sets)
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
			if g.WidthScale != WidthMedian {
				cands = append(cands, candidate{compute: func(idx []int) mat.Symmetric { return divKernel(d, idx, sets, s, 1, kernel) }, desc: fmt.Sprintf("bw=%v s=%s", b, ss), fit: fit(s, 1, false)})
			}
			if g.WidthScale == WidthMedian || g.WidthScale == WidthBoth {
				if med > 0 {
					cands = append(cands, candidate{compute: func(idx []int) mat.Symmetric { return divKernel(d, idx, sets, s, med, kernel) }, desc: fmt.Sprintf("bw=%v s=%s/median", b, ss), fit: fit(s, med, true)})
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("no kernel candidates (width scale %q: want raw, median or both)", g.WidthScale)
	}
	return cands, nil
}

// gdaCandidates returns GDA's kernels, one per subspace dimension p of
// the grid below the feature dimension D: with p ≥ D every set's subspace
// is the whole feature space and the projection kernel is the constant D,
// which tells no set from another (kFDA would fit its rounding). Where
// the grid has no such p, D − 1 stands in (for D ≥ 2).
func gdaCandidates(t *Task, g Grid) ([]candidate, error) {
	ps := informativeP(g.GDAP, t.Pool.dim)
	pmax := 0
	for _, p := range ps {
		pmax = max(pmax, p)
	}
	ks, err := t.Pool.gdaKernels(ps, pmax)
	if err != nil {
		return nil, err
	}
	var cands []candidate
	for i, p := range ps {
		k := ks[i]
		fit := &Fitted{Method: GDA, Divergence: match.Hellinger, Bandwidth: Bandwidth{Mode: Global, Scale: 1}, P: p}
		cands = append(cands, candidate{k: k, desc: fmt.Sprintf("p=%d", p), fit: fit})
	}
	return cands, nil
}

// informativeP returns the p of ps (an empty ps: the one p = 5) below the
// feature dimension dim, in their order, or max(dim − 1, 1) when none is.
func informativeP(ps []int, dim int) []int {
	if len(ps) == 0 {
		ps = []int{5}
	}
	var out []int
	for _, p := range ps {
		if p < dim {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = []int{max(dim-1, 1)}
	}
	return out
}

func cdlCandidates(t *Task, g Grid) ([]candidate, error) {
	regs := cdlRegs(g)
	lambdas := make([]float64, len(regs))
	for i, r := range regs {
		l, err := t.Pool.cdlLambda(r, t.Train)
		if err != nil {
			return nil, err
		}
		lambdas[i] = l
	}
	sets := t.divSets()
	cover := make([][]int, len(lambdas))
	for i := range cover {
		cover[i] = sets
	}
	ks, err := t.Pool.cdlKernels(lambdas, cover)
	if err != nil {
		return nil, err
	}
	var cands []candidate
	for i, r := range regs {
		k, lambda := ks[i], lambdas[i]
		fit := &Fitted{Method: CDL, Divergence: match.Hellinger, Bandwidth: Bandwidth{Mode: Global, Scale: 1}, Lambda: lambda}
		cands = append(cands, candidate{k: k, desc: fmt.Sprintf("lambda=%g(%.3g)", r, lambda), fit: fit})
	}
	return cands, nil
}

// cdlRegs returns the grid's CDL regularisers (relative), 1e-3 when none.
func cdlRegs(g Grid) []float64 {
	if len(g.CDLRegs) == 0 {
		return []float64{1e-3}
	}
	return g.CDLRegs
}

// kernelNaN words kFDA's error of a NaN kernel value (kfda.KernelNaNError:
// of a test set, or of a training set with Training, against a training
// set) of the candidate c with the sets' names, and says what avoids it
// (a match.ScaleError where the sets' values are too large or too small
// for the squares of their distances); other errors it returns as they
// are.
func (t *Task) kernelNaN(err error, c candidate) error {
	e := (*kfda.KernelNaNError)(nil)
	if !errors.As(err, &e) {
		return err
	}
	rows := t.Test
	if e.Training {
		rows = t.Train
	}
	if e.Set < 0 || e.Set >= len(rows) || e.Train < 0 || e.Train >= len(t.Train) {
		return err
	}
	f := c.fit
	onDivs := f != nil && (f.Method == KFDAHG || f.Method == KFDAHL || f.Method == KFDAJ)
	advice := kfda.KernelNaNAdvice
	switch {
	case onDivs && f.WidthMedian && math.IsInf(f.WidthScale, 1):
		advice = fmt.Sprintf("their divergence overflowed to +Inf, and so did its median over the training sets, "+
			"which makes the kernel's width over it 0; %s and %s, on the Hellinger divergence, which stays within 0 and 2, "+
			"avoid it, as do widths on the raw divergence", KFDAHG, KFDAHL)
	case onDivs:
		// Frames' values out of the range of float64 squares, one way or
		// the other: the two sets' say which.
		se := (*match.ScaleError)(nil)
		if errors.As(match.WhyNoSpread(t.Pool.Sets[rows[e.Set]], t.Pool.Sets[t.Train[e.Train]]), &se) {
			return fmt.Errorf("set %s: %w: its kernel value against set %s is NaN: their divergence is not a number: %w",
				t.Pool.setName(rows[e.Set]), kfda.ErrKFDA, t.Pool.setName(t.Train[e.Train]), se)
		}
	}
	return fmt.Errorf("set %s: %w: its kernel value against set %s is NaN: %s",
		t.Pool.setName(rows[e.Set]), kfda.ErrKFDA, t.Pool.setName(t.Train[e.Train]), advice)
}
