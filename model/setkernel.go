package model

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"setmatch/method"
	"setmatch/setkernel"
)

// A kFDA model's kernels on the sets themselves rather than on KDE
// divergences (method.KernelGDA, method.KernelCDL: Kernel.OnSets) are the
// baselines' set kernels (package setkernel), computed on the projected
// frames (setmatch train deploys them in the full space: W = I and a zero
// mean, so that GDA's uncentred subspaces are those it was chosen with).

// Gallery returns the gallery form of the set kernel t (method.KernelGDA
// with its P, method.KernelCDL with its Lambda) of the n_j×d sets, which
// gives the kernel of a batch against every set (setkernel.Gallery).
func (t Term) Gallery(sets []*mat.Dense, workers int) (*setkernel.Gallery, error) {
	if t.Kind() == method.KernelGDA {
		return setkernel.NewGDAGallery(t.P, sets, workers)
	}
	return setkernel.NewCDLGallery(t.Lambda, sets, workers)
}

// TermGallery returns the gallery form of the set kernel t on m's gallery
// sets (Term.Gallery of m.Samples()); the error of one set names it by its
// label and name ("gallery set b/4: …"), not its index.
func (m *Model) TermGallery(t Term, workers int) (*setkernel.Gallery, error) {
	g, err := t.Gallery(m.Samples(), workers)
	if se := (*setkernel.SetError)(nil); errors.As(err, &se) && se.Set >= 0 && se.Set < len(m.Sets) {
		s := m.Sets[se.Set]
		return nil, fmt.Errorf("gallery set %s/%s: %w", s.Label, s.Name, se.Err)
	}
	return g, err
}
