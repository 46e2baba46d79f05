// Package setkernel holds the set kernels of the two baselines that kFDA
// uses besides the KDE kernels: the projection kernel of Grassmann
// Discriminant Analysis (GDA, Hamm & Lee, ICML 2008) on the subspaces
// spanned by the sets, and the log-Euclidean kernel of Covariance
// Discriminative Learning (CDL, Wang et al., CVPR 2012) on their
// regularised covariances. The evaluation (package eval) builds kernel
// matrices over many sets from them; a Gallery holds a model's gallery
// sets in the form that gives the kernel vector of one batch against all
// of them (package model's matcher) and their kernel matrix. It does no
// I/O.
//
// Shapes: a set is n×d (rows are frames); a basis is d×p with orthonormal
// columns; a spectrum holds r ≤ n−1 eigenpairs of a d×d covariance.
package setkernel
