package method

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Name is a method's name, as on the command line, in the paper's
// tables and in a model file.
type Name string

// The methods.
const (
	NNH    Name = "nn-h"
	NNJ    Name = "nn-j"
	KFDAHG Name = "kfda-hg"
	KFDAHL Name = "kfda-hl"
	KFDAJ  Name = "kfda-j"
	NNHDR  Name = "nn-h-dr"
	NNJDR  Name = "nn-j-dr"
	// NNHLDA is nearest neighbour on the Hellinger divergence after a
	// fixed Fisher discriminant W (lda.go).
	NNHLDA Name = "nn-h-lda"
	GDA    Name = "gda"
	CDL    Name = "cdl"
	// KFDAMix is kFDA on a KDE kernel, GDA's or CDL's set kernel, or a
	// sum of them, chosen by cross-validation (mix.go).
	KFDAMix Name = "kfda-mix"
	// Auto chooses among the deployable methods by cross-validation on
	// the training sets (Choose) and runs the winner: what setmatch train
	// --method auto deploys.
	Auto Name = "auto"
)

// Kernel returns the kernel of a single-kernel kFDA method as a model
// names it: KernelHG, KernelHL and KernelJ for kfda-hg, kfda-hl and
// kfda-j, KernelGDA and KernelCDL for gda and cdl; "" for the other
// methods.
func (n Name) Kernel() Kernel {
	switch n {
	case KFDAHG:
		return KernelHG
	case KFDAHL:
		return KernelHL
	case KFDAJ:
		return KernelJ
	case GDA:
		return KernelGDA
	case CDL:
		return KernelCDL
	}
	return ""
}

// IsDR reports whether n is nearest neighbour after a learned W (nn-h-dr,
// nn-j-dr).
func (n Name) IsDR() bool { return n == NNHDR || n == NNJDR }

// IsKFDA reports whether n decides by kFDA: the kfda-* methods and the
// set kernels (gda, cdl).
func (n Name) IsKFDA() bool {
	return strings.HasPrefix(string(n), "kfda") || n == GDA || n == CDL
}

// OfKernel returns the kFDA method on kernel k, as Name.Kernel names
// it: the inverse of Kernel ("" for KernelSum, whose method is KFDAMix,
// and for a name that is no kernel).
func OfKernel(k Kernel) Name {
	for _, n := range Names {
		if n.Kernel() == k && k != "" {
			return n
		}
	}
	return ""
}

// Names lists every method in table order.
var Names = []Name{NNH, NNJ, KFDAHG, KFDAHL, KFDAJ, NNHDR, NNJDR, NNHLDA, GDA, CDL, KFDAMix, Auto}

// Join joins the names with sep between them, as strings.Join.
func Join(names []Name, sep string) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, sep)
}

// ParseNames reads a comma-separated list of method names ("all" for
// every method), each once, in the order given.
func ParseNames(s string) ([]Name, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(Names), nil
	}
	var out []Name
	for _, f := range strings.Split(s, ",") {
		n := Name(strings.ToLower(strings.TrimSpace(f)))
		if n == "" {
			continue
		}
		if !slices.Contains(Names, n) {
			return nil, fmt.Errorf("unknown method %q: want some of %s (or all)", n, Join(Names, ","))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no methods given")
	}
	return out, nil
}
