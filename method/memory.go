package method

import "setmatch/internal/par"

// MemoryEstimate returns about how many bytes of live data the choice of
// the auto method (Choose) and the fit of what it deploys hold at their
// peak, for training sets of frames[i] frames of dim features with the
// given labels and the grid g, the garbage collector's headroom not
// counted. It is what the caller can compare with the machine's memory
// before it starts (setmatch train does).
//
// What it counts, all linear in the frames but the m×m matrices: the
// frames (and a copy, where the frame halves of the sets join them in
// the folds' pool), CDL's covariance eigenvectors (about one per frame)
// and GDA's bases; per fold, the divergence matrices of every bandwidth
// on the fold's sets, and CDL's kernel matrices (one per regulariser);
// GDA's kernel matrices (one per p) on the pool; and, per worker, a kFDA
// fit of the training sets (a few m×m matrices). Where the choice scores
// its candidates on a sample of the classes (Grid.ChoiceSets), it counts
// the choice on the sample, and every set's frames with eight m×m
// matrices for the fit on all of them and its calibration (a W learned
// from the sets' frame halves, learnInput, holds their 2m×2m
// divergences: four of the eight; RechooseDR's held-out fold learns
// its candidates' W before it, from fewer sets or halves). The sample is
// the one ChoiceSample draws with seed, as training with that seed does.
func MemoryEstimate(frames []int, dim int, labels []int, g Grid, workers int, seed uint64) int64 {
	c := g.ChoiceCap()
	if c <= 0 || len(frames) <= c || len(labels) != len(frames) {
		return choiceEstimate(frames, dim, labels, g, workers)
	}
	idx := ChoiceSample(labels, c, seed)
	sf, sl := make([]int, len(idx)), make([]int, len(idx))
	for k, i := range idx {
		sf[k], sl[k] = frames[i], labels[i]
	}
	n := 0
	for _, k := range frames {
		n += k
	}
	m := float64(len(frames))
	return choiceEstimate(sf, dim, sl, g, workers) + 2*int64(n)*int64(dim)*8 + 8*int64(m*m*8)
}

// choiceEstimate is MemoryEstimate for a choice that scores its
// candidates on every set.
func choiceEstimate(frames []int, dim int, labels []int, g Grid, workers int) int64 {
	const f8 = 8
	m := len(frames)
	if m == 0 || len(labels) != m {
		return 0
	}
	n := 0
	for _, k := range frames {
		n += k
	}
	smallest := SmallestClass(labels)
	pool, poolFrames := m, n
	folds := max(g.AutoFolds, 3)
	covered := float64(m) // sets a fold's divergences cover
	switch {
	case smallest == 2 || folds2(labels):
		// The halves of the sets of two-set classes (or of every set)
		// join the pool; a fold covers about 5/12 of it.
		pool, poolFrames, folds = 3*m, 2*n, 4
		covered = float64(pool) * 5 / 12
	case smallest == 1:
		// The halves of the sets of one-set classes join the pool as
		// their two items (Task.halveSingles), and the halves of those
		// items and of the sets of two-set classes join it again
		// (pairHalves); a fold covers about 5/12 of it.
		sizes := classSizes(labels)
		var singles, singleFrames, pairs, pairFrames int
		for i, l := range labels {
			switch sizes[l] {
			case 1:
				singles, singleFrames = singles+1, singleFrames+frames[i]
			case 2:
				pairs, pairFrames = pairs+1, pairFrames+frames[i]
			}
		}
		pool, poolFrames, folds = m+6*singles+2*pairs, n+2*singleFrames+pairFrames, 4
		covered = float64(pool) * 5 / 12
	}
	reps := g.AutoRepeats
	if reps < 1 {
		reps = AutoRepeats
	}
	runs := folds * reps
	bws := len(deployableBandwidths(g.Bandwidths))
	pmax := 0
	for _, p := range g.GDAP {
		pmax = max(pmax, p)
	}
	cdl := len(g.CDLRegs)
	if cdl == 0 {
		cdl = 1
	}
	b := int64(poolFrames) * int64(dim) * f8 // the frames (the pool's, with halves)
	if poolFrames > n {
		b += int64(n) * int64(dim) * f8
	}
	b += int64(poolFrames) * int64(dim) * f8             // CDL's eigenvectors
	b += 2 * int64(pool) * int64(pmax) * int64(dim) * f8 // GDA's bases, and side by side for the products
	sq := func(k float64) int64 { return int64(k * k * f8) }
	b += int64(runs*(bws+cdl)) * sq(covered)                      // the folds' divergences and CDL kernels
	b += int64(bws+cdl) * sq(float64(m))                          // the fit's
	b += int64(len(g.GDAP)) * sq(float64(pool))                   // GDA's kernels
	b += int64(max(par.Workers(workers), 2)) * 8 * sq(float64(m)) // kFDA fits
	return b
}

// folds2 reports whether every class has a single set (the pool of a
// pooled data set holds the halves of every set).
func folds2(labels []int) bool {
	return folds(labels, 2, 0) == nil
}

// MemoryNeed returns about how many bytes of memory a training run needs
// at its peak, for training sets as MemoryEstimate takes them: the data
// set as loaded, and twice the live data of MemoryEstimate (the
// collector's headroom above the live data, up to as much again; the soft
// limit narrows it); and that live data.
func MemoryNeed(frames []int, dim int, labels []int, g Grid, workers int, seed uint64) (need, live int64) {
	live = MemoryEstimate(frames, dim, labels, g, workers, seed)
	n := 0
	for _, k := range frames {
		n += k
	}
	return 2*live + int64(n)*int64(dim)*8, live
}
