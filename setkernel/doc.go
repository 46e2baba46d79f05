// Package setkernel holds the set kernels of the two baselines that kFDA
// uses besides the KDE kernels: the projection kernel of Grassmann
// Discriminant Analysis (GDA, Hamm & Lee, ICML 2008) on the subspaces
// spanned by the sets, and the log-Euclidean kernel of Covariance
// Discriminative Learning (CDL, Wang et al., CVPR 2012) on their
// regularised covariances: each set's basis or spectrum, and the kernel
// of two sets from the Gram matrix of their columns. The Gram blocks of
// every pair of a list of sets are made in one place (GramPairs), from
// which the method engine (package method) builds its kernel matrices of
// every p or λ of a cross-validation at once; a Gallery holds a model's
// gallery sets in the form that gives the kernel vector of one batch
// against all of them (package model's matcher) and their kernel matrix,
// from the same blocks. It does no I/O.
//
// Shapes: a set is n×d (rows are frames); a basis is d×p with orthonormal
// columns; a spectrum holds r ≤ n−1 eigenpairs of a d×d covariance.
package setkernel
