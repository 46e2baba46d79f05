// Package match compares image sets modelled as Gaussian kernel density
// estimates (KDEs), after Harandi, Salzmann and Baktashmotlagh, "Beyond Gauss:
// Image-Set Matching on the Riemannian Manifold of PDFs".
//
// A set is an n×d matrix whose rows are frames. Its KDE with isotropic
// bandwidth S = h²I is
//
//	log p(x) = logsumexp_i(−|x−x_i|²/(2h²)) − log n − (d/2)·log(2πh²)
//
// and two sets P and Q are compared with the symmetric empirical estimators of
// the squared Hellinger distance (Eq. 10) and the Jeffrey divergence (Eq. 11),
// which evaluate both densities at the samples of both sets. With
// r = log p − log q the per-point terms have closed forms that are stable for
// any r:
//
//	Hellinger: (√T − √(1−T))² = 1 − 1/cosh(r/2)   ∈ [0, 1]
//	Jeffrey:   (2T−1)·log(T/(1−T)) = r·tanh(r/2)   ≥ 0
//
// Everything is computed in the log domain: with a few hundred features, the
// densities themselves underflow to zero.
//
// Around them: the bandwidth rules of a KDE (BandwidthRule, bandwidth.go);
// the divergence matrix of a list of sets (DivergenceMatrix) and the kernels
// on divergences (KernelHG, KernelHL, KernelJ); the gallery matcher, one
// query against every gallery set (Gallery), and the nearest-neighbour and
// open-set decisions (Nearest, NearestScores, NearestGated); and the
// comparison of two sets that setmatch div prints (ComparePair,
// pairreport.go).
//
// The package does no I/O. Shapes are given in names and doc comments: n, m
// rows (frames), d columns (features).
package match
