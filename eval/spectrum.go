package eval

import (
	"fmt"
	"io"

	"setmatch/method"
)

// Spectra returns the extreme eigenvalues of the divergence kernels k_HG,
// k_HL and k_J on the gallery sets of split sp, at bandwidth global*1 and
// the paper's widths (method.Pool.KernelSpectra), the sets mapped by
// o.Transform first when it is set.
func Spectra(sp Split, o Options) ([]method.SpectrumReport, error) {
	sets := sp.AllSets()
	if o.Transform != nil {
		var err error
		if sets, err = o.Transform(sets, sp.Gallery); err != nil {
			return nil, err
		}
	}
	pool, err := method.NewPool(sets, o.Workers)
	if err != nil {
		return nil, err
	}
	return pool.KernelSpectra(method.Bandwidth{Mode: method.Global, Scale: 1}, sp.Gallery, method.PaperWidths)
}

// WriteSpectra writes the spectra of Spectra on a gallery of that many
// sets, as setmatch eval --spectrum prints them.
func WriteSpectra(w io.Writer, gallery int, reps []method.SpectrumReport) error {
	fmt.Fprintf(w, "%d gallery sets, bandwidth global*1\n%-6s %7s %13s %13s %10s\n", gallery, "kernel", "s", "min eig", "max eig", "min/max")
	for _, r := range reps {
		if _, err := fmt.Fprintf(w, "%-6s %7g %13.4g %13.4g %10.2e\n", r.Kernel, r.Width, r.Min, r.Max, r.Min/r.Max); err != nil {
			return err
		}
	}
	return nil
}
