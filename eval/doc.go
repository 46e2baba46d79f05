// Package eval evaluates image-set recognition methods as in the
// experiments of Harandi et al., "Beyond Gauss": nearest neighbour on the
// empirical Hellinger and Jeffrey divergences between KDEs (nn-h, nn-j),
// kernel Fisher discriminant analysis on the set kernels k_HG, k_HL and k_J
// (kfda-hg, kfda-hl, kfda-j), nearest neighbour after the learned
// projection of Section 4 (nn-h-dr, nn-j-dr), and the two baselines with
// the same kFDA: Grassmann Discriminant Analysis (gda, projection kernel on
// each set's top-p subspace) and Covariance Discriminative Learning (cdl,
// log-Euclidean kernel on regularised covariances).
//
// A Protocol turns a labelled Data set into Splits (random gallery/probe
// sets per class, leave-one-out, or a split file; ORL-style pooled data
// draw their sets from each class's frames). Evaluate runs the methods on
// every split. Within a split every hyper-parameter (KDE bandwidth, kernel
// width, kFDA regulariser and latent dimension, GDA's p, CDL's λ) is chosen
// by k-fold cross-validation over the gallery sets only; the probes are
// classified once, with the chosen parameters.
//
// All sets of a split live in a Pool, which caches the squared distances
// between all frames: a divergence matrix for any choice of bandwidths then
// costs one exponential per pair of frames, each set's log density being
// evaluated once at every frame (the pairwise work is only the combination
// of those vectors). Shapes: a set is n×d (rows are frames); a pool of m
// sets has N frames in all; kernel and divergence matrices are m×m.
package eval
