// Package learn trains the projection W of setmatch (paper Sec. 4): from
// labelled training sets it chooses the affinity between sets (affinity.go),
// minimises the cost L(W) = Σ a_ij·δ(WᵀX_i, WᵀX_j) (cost.go) over the
// Grassmann manifold with package grassmann, starting from the PCA of all
// frames (pca.go) or from their Fisher discriminant (fisherstart.go), with
// the training bandwidth held during a round and re-estimated between
// rounds (trainbw.go), and turns the result into a model.Model
// (model.go). The starts, and the first iterations of trainings that
// begin alike, are computed once across a cross-validation (pcacache.go,
// fisherstart.go, prefixcache.go); the lines and the JSON log setmatch
// train writes of the iterations are progress.go's.
//
// The densities and divergences come from package match, so that training
// optimises exactly what matching computes. The package does no I/O.
//
// Shapes: D is the input (feature) dimension, d the learned dimension, n_i
// the number of frames of set i; a set is n_i×D, W is D×d.
package learn
