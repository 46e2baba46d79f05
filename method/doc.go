// Package method is the engine of the recognition methods of Harandi et
// al., "Beyond Gauss", and of their baselines: what `setmatch train`
// chooses and deploys, and what the experiment harness (package eval)
// scores.
//
// The methods (Name, Names, ParseNames) are nearest neighbour on the
// empirical Hellinger and Jeffrey divergences between KDEs (nn-h, nn-j),
// kernel Fisher discriminant analysis on the set kernels k_HG, k_HL and
// k_J (kfda-hg, kfda-hl, kfda-j), nearest neighbour after the learned
// projection of Section 4 (nn-h-dr, nn-j-dr; the learner is injected,
// Learner) or after a fixed Fisher discriminant (nn-h-lda), the two
// baselines with the same kFDA: Grassmann Discriminant Analysis (gda,
// projection kernel on each set's top-p subspace) and Covariance
// Discriminative Learning (cdl, log-Euclidean kernel on regularised
// covariances), kFDA on a weighted sum of their kernels (kfda-mix), and
// auto, the one method Choose picks by cross-validation inside the
// training sets.
//
// Run fits a method on a Task's training sets and classifies its test
// sets; Fit returns the fitted method (Fitted) that a model deploys.
// The hyper-parameters searched are a Grid (ParseGrid, grid.go), and
// MemoryNeed says how much memory a choice on given sets needs
// (memory.go).
// Within a task every hyper-parameter (KDE bandwidth, kernel width, kFDA
// regulariser and latent dimension, GDA's p, CDL's λ) is chosen by k-fold
// cross-validation over the training sets only.
//
// All sets of a task live in a Pool, which caches their divergence and
// kernel matrices, computed pair of sets by pair of sets in memory linear
// in the frames: a divergence matrix for any choice of bandwidths then
// costs one exponential per pair of frames, each set's log density being
// evaluated once at every frame. Shapes: a set is n×d (rows are frames); a
// pool of m sets has N frames in all; kernel and divergence matrices are
// m×m.
package method
