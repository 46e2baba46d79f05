package deploy

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"setmatch/internal/stats"
	"setmatch/kfda"
	"setmatch/match"
	"setmatch/model"
)

// What a changed gallery needs of the model's members before it decides
// again (Enroll, Forget): the kFDA discriminants fitted again on it
// (refitKFDA), the mean moved onto the sets it keeps (recentre), and
// for a new set, how far it lies from its own class and from the others
// (separation).

// refitKFDA fits the discriminant of every member of m that decides by
// kFDA (m and its voters) again on the member's gallery as it is, with
// its kernels (the scale of a width relative to the median divergence,
// and the weights of a sum, computed again on the gallery, as training
// computes them), its regulariser and the latent dimension training
// chose for it (TrainedLatentDimParam): all of them (C − 1 of the gallery's
// C classes) where training took all, else training's number, never more
// than C − 1. A forget that leaves fewer classes lowers the dimension,
// and enrolling classes again raises it back, to training's number and
// no further. The member's record of its kernel and latent dimension
// (Selection.Params "kernel" and "latent-dim", where present) is updated
// to the new fit. oldClasses is the number of classes the members were
// fitted on before the change.
func refitKFDA(m *model.Model, oldClasses, workers int) ([]*mat.SymDense, error) {
	classes := len(m.Classes())
	kernels := make([]*mat.SymDense, len(m.Members()))
	for i, mem := range m.Members() {
		k := mem.Discriminant
		if k == nil {
			continue
		}
		r := k.Dim()
		trained, ok := mem.Selection.Params[TrainedLatentDimParam]
		if !ok && len(m.Meta.History) == 0 {
			// The model is as training made it: record its choice
			// before the first change moves it.
			trained = strconv.Itoa(r)
			if r >= oldClasses-1 {
				trained = allLatentDims
			}
			if mem.Selection.Params == nil {
				mem.Selection.Params = map[string]string{}
			}
			mem.Selection.Params[TrainedLatentDimParam] = trained
			ok = true
		}
		switch n, err := strconv.Atoi(trained); {
		case ok && trained == allLatentDims:
			r = classes - 1
		case ok && err == nil && n >= 1:
			r = n
		case r >= oldClasses-1:
			// A model changed before it recorded training's choice: all
			// of them where it used all of them.
			r = classes - 1
		}
		r = min(r, classes-1)
		km, err := FitTerms(mem, k.Kernels(), k.Reg, r, workers)
		if err != nil {
			if i == 0 {
				return nil, fmt.Errorf("fitting %s again on the gallery: %w", memberMethod(mem), err)
			}
			return nil, fmt.Errorf("vote member %d (%s): fitting it again on the gallery: %w", i+1, memberMethod(mem), err)
		}
		kernels[i] = km
		p := mem.Selection.Params
		if _, ok := p["kernel"]; ok {
			p["kernel"] = model.DescribeKernels(mem.Discriminant.Kernels())
		}
		if _, ok := p["latent-dim"]; ok {
			p["latent-dim"] = strconv.Itoa(mem.Discriminant.Dim())
		}
	}
	return kernels, nil
}

// recentre centres the member's gallery on the centre of its own sets:
// the mean a model subtracts from every frame (the centre of the training
// sets, stats.MedianOfMeans, as nnModel takes it) becomes the median of
// the mean frames of the sets its gallery holds now, read back through W
// (for a projection W, the part of the mean W sees: W(WᵀW)⁻¹ times the
// median of the mean frames of their projected sets plus WᵀMean), and every gallery
// sample moves by the same amount as every batch will, so that nothing a
// batch is compared by changes (divergences and bandwidth rules do not
// depend on where the frames are centred). A model with a zero mean (the raw frames, as the
// set kernels take them) or whose kernel compares uncentred frames (gda,
// cdl) is left alone. It reports whether the mean changed. It does not
// change the voters.
func recentre(m *model.Model) (bool, error) {
	if m.Discriminant != nil {
		for _, t := range m.Discriminant.Kernels() {
			if !t.OnDivergences() {
				return false, nil
			}
		}
	}
	zero := true
	for _, v := range m.Mean {
		zero = zero && v == 0
	}
	if zero || len(m.Sets) == 0 {
		return false, nil
	}
	d := m.Dim()
	mu := stats.MedianOfMeans(m.Samples()...)
	mean := make([]float64, len(m.Mean))
	if m.Identity {
		for j, v := range m.Mean {
			mean[j] = v + mu[j]
		}
	} else {
		// z = WᵀMean + μ, the gallery's mean frame as W sees it; the new
		// mean is W·c with (WᵀW)c = z, so that Wᵀ·mean = z.
		z := mat.NewVecDense(d, nil)
		z.MulVec(m.W.T(), mat.NewVecDense(len(m.Mean), append([]float64(nil), m.Mean...)))
		z.AddVec(z, mat.NewVecDense(d, mu))
		var g mat.Dense
		g.Mul(m.W.T(), m.W)
		var c mat.VecDense
		if err := c.SolveVec(&g, z); err != nil {
			return false, fmt.Errorf("recentring %s: %w", memberMethod(m), err)
		}
		mv := mat.NewVecDense(len(mean), mean)
		mv.MulVec(m.W, &c)
	}
	sets := make([]model.Set, len(m.Sets))
	for k, s := range m.Sets {
		r, _ := s.Samples.Dims()
		y := mat.NewDense(r, d, nil)
		for i := range r {
			dst := y.RawRowView(i)
			for j, v := range s.Samples.RawRowView(i) {
				dst[j] = v - mu[j]
			}
		}
		s.Samples = y
		sets[k] = s
	}
	moved := !slices.Equal(mean, m.Mean)
	m.Mean, m.Sets = mean, sets
	return moved, nil
}

// Margin is how far a gallery set is from its own class and from the
// others, by nearest neighbour under the score the model's threshold
// bounds (the set as a batch, against every other gallery set): the
// divergence for a model that decides by nearest neighbour, the distance
// its kernel measures for a kFDA model. Own is the smallest score to
// another set of its class (NaN when it has none), Other the smallest to
// a set of another class, OtherLabel that class. Other − Own > 0: a batch
// like the set is nearer its own class.
type Margin struct {
	Label, Name string
	Own         float64
	OwnName     string
	Other       float64
	OtherLabel  string
}

// separation returns the Margin of each gallery set of m whose index is
// in idx (m alone, without its voters), from scores, the m×m scores of
// its gallery sets where they are computed already (nil: computed here):
// for a kFDA model (its discriminant fitted on the gallery) by the
// distances its kernel measures, scores being the kernel of that fit
// (FitTerms); else by m's divergence with the sets' bandwidths, scores
// being their divergence matrix, or where there is none each set of idx
// compared with every other gallery set (the pair of a set with itself,
// at divergence 0, is not computed).
func separation(m *model.Model, idx []int, scores *mat.SymDense, workers int) ([]Margin, error) {
	if k := m.Discriminant; k != nil {
		km := scores
		if km == nil {
			var err error
			if km, err = GalleryKernel(m, k.Kernels(), workers); err != nil {
				return nil, err
			}
		}
		return margins(m, idx, func(i int) ([]float64, error) {
			row := make([]float64, len(m.Sets))
			for j := range row {
				row[j] = kfda.KernelDistance(km.At(i, i), km.At(j, j), km.At(i, j))
			}
			return row, nil
		})
	}
	if scores != nil {
		return margins(m, idx, func(i int) ([]float64, error) {
			return mat.Row(nil, i, scores), nil
		})
	}
	kdes := make([]*match.KDE, len(m.Sets))
	for i, s := range m.Sets {
		k, err := match.NewKDE(s.Samples, s.Bandwidth)
		if err != nil {
			return nil, fmt.Errorf("gallery set %s/%s: %w", s.Label, s.Name, err)
		}
		kdes[i] = k
	}
	g, err := match.NewGallery(kdes)
	if err != nil {
		return nil, err
	}
	g.Workers = workers
	var div []match.Divergences
	return margins(m, idx, func(i int) ([]float64, error) {
		s := m.Sets[i]
		if div, err = g.CompareMember(i, div); err != nil {
			return nil, fmt.Errorf("gallery set %s/%s: %w", s.Label, s.Name, err)
		}
		if pairsHook != nil {
			pairsHook(len(m.Sets), len(m.Sets)-1)
		}
		row := make([]float64, len(div))
		for j, d := range div {
			row[j] = d.Of(m.Divergence)
		}
		return row, nil
	})
}

// TrainedLatentDimParam is the parameter (Selection.Params) in which a
// kFDA member records the latent dimension training chose for it, from
// the first enrolment or forgetting on (refitKFDA): allLatentDims where
// it took all of them (C − 1 of its C classes), else the number.
const TrainedLatentDimParam = "trained-latent-dim"

// allLatentDims is TrainedLatentDimParam's value for all the latent
// dimensions there are.
const allLatentDims = "all"

// pairsHook, where not nil, is told of the pairs of sets whose
// divergences deploy computes (a test's count of the work): sets, the
// number of sets of the gallery compared, and pairs, how many of their
// pairs were compared.
var pairsHook func(sets, pairs int)

// margins returns the Margin of each gallery set of m whose index is in
// idx, from score(i): set i's scores against every gallery set.
func margins(m *model.Model, idx []int, score func(i int) ([]float64, error)) ([]Margin, error) {
	var out []Margin
	for _, i := range idx {
		s := m.Sets[i]
		row, err := score(i)
		if err != nil {
			return nil, err
		}
		mg := Margin{Label: s.Label, Name: s.Name, Own: math.NaN(), Other: math.Inf(1)}
		for j, v := range row {
			switch o := m.Sets[j]; {
			case j == i:
			case o.Label == s.Label && (math.IsNaN(mg.Own) || v < mg.Own):
				mg.Own, mg.OwnName = v, o.Name
			case o.Label != s.Label && v < mg.Other:
				mg.Other, mg.OtherLabel = v, o.Label
			}
		}
		out = append(out, mg)
	}
	return out, nil
}
